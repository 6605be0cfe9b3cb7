"""Scenario tasks: keeping a big scenario's YAML and run start ready for its next Start."""

from __future__ import annotations

from celery import Task, shared_task


@shared_task(bind=True, name="playground.prepare_scenario_yaml")
def prepare_scenario_yaml_task(self: Task, scenario_id: int) -> None:
    """Seconds of work for a big scenario: meanwhile this process is marked busy, so the runs
    whose engines it holds are sent to another worker rather than wait behind it."""
    from playground.services import scenarios
    from playground.services.runs import dispatch

    home = dispatch.home_queue(self.request.hostname) if self.request.hostname else None
    with dispatch.busy(home):
        scenarios.scenario_prepare_by_id(scenario_id=scenario_id)
