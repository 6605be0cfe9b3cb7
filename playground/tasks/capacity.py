"""The "How many more fit?" task for a big scenario: the copies are counted off the web request."""

from __future__ import annotations

from typing import Any

from celery import Task, shared_task

from playground.tasks.queued_answer import answer_in_worker


@shared_task(bind=True, name="playground.capacity_scenario")
def capacity_scenario_task(self: Task, job: dict[str, Any]) -> None:
    """Count and store one answer (services.capacity_queued), within the run tasks' time limits."""
    from playground.services import capacity_queued

    the_job = capacity_queued.Job(**job)
    answer_in_worker(self, the_job.key, lambda: capacity_queued.compute(the_job),
                     lambda message: capacity_queued.fail(the_job, message), label="capacity", noun="count")
