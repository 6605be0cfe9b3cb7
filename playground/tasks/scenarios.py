"""Scenario tasks: keeping a big scenario's YAML and run start ready for its next Start."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="playground.prepare_scenario_yaml")
def prepare_scenario_yaml_task(scenario_id: int) -> None:
    from playground.services import scenarios

    scenarios.scenario_prepare_by_id(scenario_id=scenario_id)
