"""Celery tasks: thin wrappers that call services."""

from __future__ import annotations

from celery import Task, shared_task

from playground.services import diagnostics


@shared_task(bind=True, name="playground.answer_ping")
def answer_ping_task(self: Task, ping_id: int) -> None:
    diagnostics.answer_ping(ping_id=ping_id, worker=self.request.hostname or "unknown worker")


from playground.tasks_runs import advance_run_task  # noqa: E402, F401  (registers the run tasks)
