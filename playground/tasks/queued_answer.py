"""The worker's side of a queued answer (services/queued_answers.py): compute and store it within
the run tasks' time limits, and store a failure the polling page shows when it cannot be made."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from celery import Task
from celery.exceptions import SoftTimeLimitExceeded

from playground.tasks.limits import Limits, time_limited

logger = logging.getLogger(__name__)


def answer_in_worker(task: Task, key: str, compute: Callable[[], Any], fail: Callable[[str], None], *,
                     label: str, noun: str) -> None:
    """Run `compute` (which stores its answer) for the answer under `key`. Seconds of CPU, so this
    worker process is marked busy meanwhile (runs whose engines it holds go elsewhere). Bounded
    like a run's action (PLAYGROUND_TASK_SOFT_TIME_LIMIT / PLAYGROUND_TASK_TIME_LIMIT): past them,
    or on any error, `fail` stores a line ("The <noun> ...") naming the limit and its setting or
    the error, so a page never polls forever. `label` starts the log lines."""
    from playground.infra.queues import home_queue
    from playground.services.runs import fleet

    home = home_queue(task.request.hostname) if task.request.hostname else None
    limits = Limits.for_runs()
    try:
        with time_limited(limits, lambda: fail(f"The {noun} {limits.hard_message()}.")), fleet.busy(home):
            compute()
    except SoftTimeLimitExceeded:
        logger.warning("%s %s: %s", label, key, limits.soft_message())
        fail(f"The {noun} {limits.soft_message()}.")
    except Exception as error:
        logger.exception("%s %s failed", label, key)
        fail(f"The {noun} failed in the worker ({type(error).__name__}: {str(error)[:200]}).")
