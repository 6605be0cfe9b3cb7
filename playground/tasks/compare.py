"""The "compare versions" / "gates on vs off" / fork task: both sides, off the web request."""

from __future__ import annotations

from typing import Any

from celery import Task, shared_task

from playground.tasks.queued_answer import answer_in_worker


@shared_task(bind=True, name="playground.compare_scenario")
def compare_scenario_task(self: Task, job: dict[str, Any]) -> None:
    """Compute and store one comparison (services.versions.queued), within the run tasks' time limits."""
    from playground.services.versions import queued

    the_job = queued.Job(**job)
    answer_in_worker(self, the_job.key, lambda: queued.compute(the_job),
                     lambda message: queued.fail(the_job, message), label="compare", noun="comparison")
