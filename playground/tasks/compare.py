"""The "compare versions" / "gates on vs off" task: both headless runs, off the web request."""

from __future__ import annotations

import logging
from typing import Any

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded

from playground.tasks.limits import Limits, time_limited

logger = logging.getLogger(__name__)


@shared_task(bind=True, name="playground.compare_scenario")
def compare_scenario_task(self: Task, job: dict[str, Any]) -> None:
    """Compute and store one comparison (services.versions.queued). Seconds of CPU at the cap,
    so this worker process is marked busy meanwhile (runs whose engines it holds go elsewhere).
    Bounded like a run's action (PLAYGROUND_TASK_SOFT_TIME_LIMIT / PLAYGROUND_TASK_TIME_LIMIT):
    past them the page shows a line naming the limit and its setting."""
    from playground.infra.queues import home_queue
    from playground.services.runs import fleet
    from playground.services.versions import queued

    the_job = queued.Job(**job)
    home = home_queue(self.request.hostname) if self.request.hostname else None
    limits = Limits.for_runs()
    try:
        with time_limited(limits, lambda: queued.fail(the_job, f"The comparison {limits.hard_message()}.")), \
                fleet.busy(home):
            queued.compute(the_job)
    except SoftTimeLimitExceeded:
        logger.warning("compare %s: %s", the_job.key, limits.soft_message())
        queued.fail(the_job, f"The comparison {limits.soft_message()}.")
    except Exception as error:  # a page must not poll forever: it shows what went wrong
        logger.exception("compare %s failed", the_job.key)
        queued.fail(the_job, f"The comparison failed in the worker ({type(error).__name__}: {str(error)[:200]}).")
