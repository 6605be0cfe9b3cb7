"""The "How many more fit?" task for a big scenario: the copies are counted off the web request."""

from __future__ import annotations

import logging
from typing import Any

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded

from playground.tasks.limits import Limits, time_limited

logger = logging.getLogger(__name__)


@shared_task(bind=True, name="playground.capacity_scenario")
def capacity_scenario_task(self: Task, job: dict[str, Any]) -> None:
    """Count and store one answer (services.capacity_queued). Seconds of CPU for a scenario of
    thousands of nodes, so this worker process is marked busy meanwhile (runs whose engines it
    holds go elsewhere). Bounded like a run's action (PLAYGROUND_TASK_SOFT_TIME_LIMIT /
    PLAYGROUND_TASK_TIME_LIMIT): past them the page shows a line naming the limit and its setting."""
    from playground.infra.queues import home_queue
    from playground.services import capacity_queued
    from playground.services.runs import fleet

    the_job = capacity_queued.Job(**job)
    home = home_queue(self.request.hostname) if self.request.hostname else None
    limits = Limits.for_runs()
    try:
        with time_limited(limits, lambda: capacity_queued.fail(the_job, f"The count {limits.hard_message()}.")), \
                fleet.busy(home):
            capacity_queued.compute(the_job)
    except SoftTimeLimitExceeded:
        logger.warning("capacity %s: %s", the_job.key, limits.soft_message())
        capacity_queued.fail(the_job, f"The count {limits.soft_message()}.")
    except Exception as error:  # a page must not poll forever: it shows what went wrong
        logger.exception("capacity %s failed", the_job.key)
        capacity_queued.fail(the_job, f"The count failed in the worker ({type(error).__name__}: {str(error)[:200]}).")
