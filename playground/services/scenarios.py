"""A scenario's life: create (empty or from YAML), edit its details, replace all its objects
with an import, fork, delete.

Each takes a user's text through services.scenario_validation first (the engine's loader with
the web's limits; `ScenarioInvalid` on a refusal) and then writes in one transaction, so bad
input leaves the database exactly as it was. Create and import return their model instance
with a transient `not_simulated` attribute (the loader's `LoadWarning`s for what came in).
Editing single objects lives in services.scenario_objects, bulk additions in
services.scenario_bulk.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from playground.models import Scenario
from playground.ownership import Actor, ensure_can_edit, ensure_has_identity, owner_fields
from playground.selectors.scenarios import cached_yaml, objects_version
from playground.services.runs.prepare import copy_prepared, prepare_yaml_later
from playground.services.scenario_objects import locked_scenario
from playground.services.scenario_rows import StoredObject, copy_objects, insert_stored
from playground.services.scenario_validation import read_yaml_rows


def scenario_create(
    *, actor: Actor, name: str, description: str = "", seed: int = 0, yaml_text: str | None = None, source: str = ""
) -> Scenario:
    """A new scenario owned by `actor`, empty or with the objects of `yaml_text` (validated first)."""
    ensure_has_identity(actor, "Creating a scenario")
    objects: list[StoredObject] = []
    warnings: list[Any] = []
    summaries: list[Any] = []
    if yaml_text is not None and yaml_text.strip():
        objects, warnings = read_yaml_rows(yaml_text, source=source or name or "<input>", summaries=summaries)
    with transaction.atomic():
        scenario = Scenario.objects.create(
            name=name.strip() or "Untitled scenario", description=description, seed=seed, **owner_fields(actor)
        )
        insert_stored(scenario, objects)
        keep_workload_pods(scenario, summaries)
        prepare_yaml_later(scenario, len(objects))
    scenario.not_simulated = warnings
    return scenario


def keep_workload_pods(scenario: Scenario, summaries: list[Any]) -> None:
    """Keep, with the objects' version, the pods the workloads of the objects just stored will
    create, as the load that validated them found (`summaries`: that load's summary; none: an
    empty scenario). The scenario page reads them instead of loading the scenario again."""
    from playground.selectors.workload_pods import pods_by_owner

    found = pods_by_owner(summaries[0]) if summaries else None
    Scenario.objects.filter(pk=scenario.pk).update(  # update(): `updated_at` stays as it is
        workload_pods_cache=found, workload_pods_version=objects_version(scenario=scenario)
    )


def scenario_update_details(*, scenario: Scenario, actor: Actor, name: str, description: str, seed: int) -> Scenario:
    ensure_can_edit(scenario=scenario, actor=actor)
    scenario.name = name.strip() or scenario.name
    scenario.description = description
    scenario.seed = seed
    scenario.save(update_fields=["name", "description", "seed", "updated_at"])
    return scenario


def scenario_import_yaml(*, scenario: Scenario, actor: Actor, text: str, source: str = "<input>") -> Scenario:
    """Replace all of the scenario's objects with those of `text`; bad input changes nothing."""
    ensure_can_edit(scenario=scenario, actor=actor)
    summaries: list[Any] = []
    objects, warnings = read_yaml_rows(text, source=source, summaries=summaries)
    return scenario_objects_replace(scenario=scenario, objects=objects, load_summary=summaries[0], warnings=warnings)


def scenario_objects_replace(
    *, scenario: Scenario, objects: list[StoredObject], load_summary: Any, warnings: list[Any]
) -> Scenario:
    """Replace all the scenario's objects with `objects`, the rows of a text the caller has had
    the loader validate (`read_yaml_rows`, or an import's own load), whose summary
    `load_summary` is (the workloads' pods are kept from it). The caller checked ownership."""
    with transaction.atomic():
        scenario = locked_scenario(scenario)
        scenario.kube_objects.all().delete()
        insert_stored(scenario, objects)
        scenario.save(update_fields=["updated_at"])
        keep_workload_pods(scenario, [load_summary])
        prepare_yaml_later(scenario, len(objects))
    scenario.not_simulated = warnings
    return scenario


def scenario_fork(*, scenario: Scenario, actor: Actor) -> Scenario:
    """An editable copy of any scenario the actor can see (gallery or shared), owned by the actor."""
    ensure_has_identity(actor, "Forking")
    with transaction.atomic():
        fork = Scenario.objects.create(
            name=scenario.name if scenario.name.startswith("Fork of ") else f"Fork of {scenario.name}"[:200],
            description=scenario.description or scenario.explanation,
            seed=scenario.seed,
            feature_gates=scenario.feature_gates,
            forked_from=scenario,
            **owner_fields(actor),
        )
        source_version = objects_version(scenario=scenario)
        kept = cached_yaml(scenario=scenario, version=source_version)
        copied = copy_objects(scenario, fork)
        pods = Scenario.objects.filter(pk=scenario.pk).values_list("workload_pods_version", "workload_pods_cache").get()
        if pods[0] == source_version:  # the same objects: the same workload pods
            Scenario.objects.filter(pk=fork.pk).update(
                workload_pods_cache=pods[1], workload_pods_version=objects_version(scenario=fork))
        if kept is not None:  # the same objects: the same YAML and start, kept for the fork's version
            fork_version = objects_version(scenario=fork)
            Scenario.objects.filter(pk=fork.pk).update(yaml_cache=kept, yaml_cache_version=fork_version)
            if copy_prepared(source=scenario, source_version=source_version, fork=fork, fork_version=fork_version):
                return fork
        prepare_yaml_later(fork, copied)
    return fork


def scenario_delete(*, scenario: Scenario, actor: Actor) -> None:
    ensure_can_edit(scenario=scenario, actor=actor)
    scenario.delete()
