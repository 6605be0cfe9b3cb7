"""Celery tasks for runs: thin wrappers around playground.services.runs (imported in their bodies)."""

from __future__ import annotations

import logging

from celery import Task, shared_task
from celery.signals import worker_ready

logger = logging.getLogger(__name__)


@shared_task(bind=True, name="playground.advance_run", acks_late=True, max_retries=None)
def advance_run_task(self: Task, run_id: int, action_index: int, ticket: str | None = None) -> int:
    """Execute the run's pending actions (action_index names the one that queued this task; a
    task whose action another task already executed does nothing; 0: a run just started, build
    its engine ahead of the first action; -1: the next slice of a play, with its `ticket`)."""
    from playground.services import runs as run_service
    from playground.services.runs import dispatch

    if ticket is not None and not dispatch.ticket_is_current(run_id, ticket):
        return 0  # a newer continuation of this play exists (or a user action's task took it over)
    queue = (
        (self.request.delivery_info or {}).get("routing_key")
        or run_service.runs_queue()
        or self.app.conf.task_default_queue
    )
    try:
        return run_service.advance_run(run_id, warm=action_index == 0, queue=queue)
    except run_service.LeaseLost:
        return 0  # another worker took the run over; it continues from the stored log
    except run_service.RunBusy:
        options = {"queue": queue} if queue else {}
        raise self.retry(countdown=0.2, priority=self.request.delivery_info.get("priority"), **options) from None


@worker_ready.connect
def _resume_runs_on_startup(sender: object = None, **kwargs: object) -> None:
    """A worker killed mid-play left its action 'running' (its message waits in Redis until the
    broker's visibility timeout): a starting worker queues those runs again at once."""
    from playground.services import runs as run_service

    try:
        count = run_service.resume_unfinished_runs()
    except Exception:  # no tables yet (fresh database): nothing to resume
        logger.warning("could not look for unfinished runs", exc_info=True)
        return
    if count:
        logger.info("resumed %d unfinished run(s)", count)
    from playground.services.run_recovery import start_sweeper

    start_sweeper()  # in the main process: it outlives a pool process that is killed mid-run
