"""Between the web and the worker: queueing the worker for a run, and telling the run's pages
that its log grew (they read what changed from the database)."""

from __future__ import annotations

import logging
import os
from typing import Any

from django.conf import settings
from django.db.models import Max

from playground.groups import RUN_UPDATED_EVENT, run_group, send_to_group
from playground.models import Run, RunAction
from playground.services.extender_access import uses_extenders
from playground.tasks.runs import advance_run_task

logger = logging.getLogger(__name__)


def notify(run_id: int, *, head_step: int | None = None, last_seq: int | None = None) -> None:
    """Tell every open page of the run that the log grew (they read what changed from the DB)."""
    try:
        send_to_group(run_group(run_id), RUN_UPDATED_EVENT, head_step=head_step, last_seq=last_seq)
    except Exception:  # the log is the truth: a lost notification is caught up on reconnect
        logger.warning("run %s: notification failed", run_id, exc_info=True)


def runs_queue() -> str | None:
    """The Celery queue for run tasks (None: the default). Tests point it at their own worker."""
    return getattr(settings, "PLAYGROUND_RUNS_QUEUE", None) or os.environ.get("PLAYGROUND_RUNS_QUEUE") or None


def queue_for(run_id: int, yaml_text: str | None = None) -> str | None:
    """The run's Celery queue: runs that may call extenders have their own (and their own
    worker), so a run waiting on a slow extender never delays the others."""
    queue = runs_queue()
    if yaml_text is None:
        yaml_text = Run.objects.filter(pk=run_id).values_list("scenario_yaml", flat=True).first() or ""
    extender_queue = getattr(settings, "PLAYGROUND_EXTENDER_QUEUE", "")
    if extender_queue and uses_extenders(yaml_text):
        queue = f"{queue}.{extender_queue}" if queue else extender_queue
    return queue


def schedule(run_id: int, index: int) -> None:
    queue = queue_for(run_id)
    options: dict[str, Any] = {"queue": queue} if queue else {}
    advance_run_task.apply_async((run_id, index), **options)


def warm(run_id: int) -> None:
    """Have a worker build the run's engine now (action index 0: no action), so the first Step
    of a big run does not wait for a checkpoint restore. Best effort: without it the first
    action builds the engine, so a broker that cannot take the task now is only logged."""
    try:
        schedule(run_id, 0)
    except Exception:
        logger.warning("run %s: could not queue the engine warm-up", run_id, exc_info=True)


def resume_unfinished_runs() -> int:
    """Queue the worker for every run with pending or interrupted actions (a worker starting up
    calls this: a worker that was killed mid-play left its action 'running')."""
    rows = (
        RunAction.objects.filter(state__in=[RunAction.STATE_PENDING, RunAction.STATE_RUNNING])
        .values("run_id")
        .annotate(first=Max("index"))
    )
    count = 0
    for row in rows:
        schedule(row["run_id"], row["first"])
        count += 1
    return count
