"""The diagnostics ping's task."""

from __future__ import annotations

from celery import Task, shared_task

from playground.tasks.limits import Limits, time_limited


@shared_task(bind=True, name="playground.answer_ping")
def answer_ping_task(self: Task, ping_id: int) -> None:
    from playground.services import diagnostics

    with time_limited(Limits.for_runs()):
        diagnostics.answer_ping(ping_id=ping_id, worker=self.request.hostname or "unknown worker")
