"""Editing a scenario's objects one at a time or a page of documents at a time.

Each service locks the scenario's row, validates the whole scenario with the change in place
(services.scenario_validation: bad input raises `ScenarioInvalid` and, each service being one
transaction, leaves the database exactly as it was), then writes the rows and queues the kept
YAML's rebuild. Also the row helpers the other scenario services store objects with
(`build_rows`, `insert_manifests`, `locked_scenario`), since storing rows is this module's concern.

The services that take a user's manifests return their model instance with a transient
`not_simulated` attribute: the loader's warnings for what that change brought in, not its
neighbours'.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.db.models import F

from playground.infra.bulk_insert import insert_rows
from playground.manifests import ManifestError, build_yaml, identity, split_documents
from playground.models import Scenario, ScenarioObject
from playground.ownership import Actor, ensure_can_edit
from playground.services.runs.prepare import prepare_yaml_later
from playground.services.scenario_validation import (
    ScenarioInvalid,
    manifest_warnings,
    manifests_warnings,
    refuse_nul,
    validate_manifests,
    validate_text,
)


def build_rows(scenario: Scenario, manifests: Iterable[dict[str, Any]]) -> list[ScenarioObject]:
    rows = []
    for order, manifest in enumerate(manifests):
        kind, namespace, name = identity(manifest)
        rows.append(
            ScenarioObject(scenario=scenario, kind=kind, namespace=namespace, name=name, order=order, manifest=manifest)
        )
    return rows


def insert_manifests(scenario: Scenario, manifests: Iterable[dict[str, Any]], *, first_order: int = 0) -> int:
    """Store `manifests` as new rows of `scenario`, in order; returns how many (an upload's
    thousands of objects: `insert_rows`, not `bulk_create`)."""
    return insert_rows(
        ScenarioObject, ("scenario", "kind", "namespace", "name", "order", "manifest"),
        ((scenario.pk, *identity(manifest), first_order + index, manifest) for index, manifest in enumerate(manifests)),
    )


def locked_scenario(scenario: Scenario) -> Scenario:
    """Re-read the scenario inside a transaction, locking its row where the database can."""
    return Scenario.objects.select_for_update().defer("yaml_cache").get(pk=scenario.pk)



def _duplicate_message(kind: str, namespace: str, name: str) -> str:
    shown = f"{namespace}/{name}" if namespace else name
    return f'a {kind} named "{shown}" already exists in this scenario'


def scenario_object_save(
    *, scenario: Scenario, actor: Actor, manifest: dict[str, Any], object_id: int | None = None
) -> ScenarioObject:
    """Add an object (object_id None) or replace one; the whole scenario is validated first."""
    ensure_can_edit(scenario=scenario, actor=actor)
    kind, namespace, name = identity(manifest)
    with transaction.atomic():
        scenario = locked_scenario(scenario)
        rows = list(scenario.kube_objects.order_by("order", "id"))
        index = None
        if object_id is not None:
            index = next((i for i, row in enumerate(rows) if row.pk == object_id), None)
            if index is None:
                raise ScenarioInvalid("That object no longer exists (it was deleted meanwhile).")
        for i, row in enumerate(rows):
            if i != index and (row.kind, row.namespace, row.name) == (kind, namespace, name) and name:
                raise ScenarioInvalid(_duplicate_message(kind, namespace, name), field="metadata.name")
        manifests = [row.manifest for row in rows]
        if index is None:
            manifests.append(manifest)
        else:
            manifests[index] = manifest
        found = validate_text(build_yaml(manifests), source="scenario")
        position = len(manifests) - 1 if index is None else index
        if index is None:
            next_order = rows[-1].order + 1 if rows else 0
            obj = ScenarioObject.objects.create(
                scenario=scenario, kind=kind, namespace=namespace, name=name, order=next_order, manifest=manifest
            )
        else:
            obj = rows[index]
            obj.kind, obj.namespace, obj.name, obj.manifest = kind, namespace, name, manifest
            obj.save(update_fields=["kind", "namespace", "name", "manifest"])
        scenario.save(update_fields=["updated_at"])
        prepare_yaml_later(scenario, len(manifests))
    obj.not_simulated = manifest_warnings(manifest) + references_in(found, position + 1, position + 1)
    return obj


def references_in(warnings: list[Any], first: int, last: int) -> list[Any]:
    """The loader's reference warnings (an object named that the scenario lacks: see
    `scheduler_core/loader/resource_build.py`) of documents `first`..`last` (1-based, as the
    loader numbers them), so an edit reports what it brought in and not its neighbours'."""
    return [w for w in warnings if getattr(w, "category", None) == "reference"
            and w.document is not None and first <= w.document <= last]


def _documents_text(text: str) -> str:
    """`text` ready to sit between other documents: no leading document marker (it would make
    an empty document and shift the loader's document numbers), a final newline."""
    body = text.strip("\n")
    if not body.strip():
        return ""
    body = re.sub(r"\A---[ \t]*(\n|\Z)", "", body.lstrip())
    return body + "\n" if body.strip() else ""


def scenario_documents_replace(
    *, scenario: Scenario, actor: Actor, first: int, count: int, text: str, source: str = "YAML view"
) -> int:
    """Replace documents `first` .. `first + count - 1` (0-based, document order) with the
    documents of `text` (any number; none deletes them): what the YAML view's page edit does.

    The whole scenario is validated with the new documents in their place, so the loader's
    document numbers are the scenario's. Returns how many documents the text held; the model
    instance passed in gets `not_simulated`, the warnings of the new documents alone."""
    ensure_can_edit(scenario=scenario, actor=actor)
    refuse_nul(text, source=source)
    body = _documents_text(text)
    with transaction.atomic():
        locked = locked_scenario(scenario)
        rows = list(locked.kube_objects.order_by("order", "id").only("id", "order", "manifest"))
        if count < 0 or not 0 <= first <= len(rows) or first + count > len(rows):
            raise ScenarioInvalid("Those documents are no longer there (the scenario changed): reload the page.")
        pieces = [build_yaml(row.manifest for row in rows[:first]), body,
                  build_yaml(row.manifest for row in rows[first + count :])]
        found = validate_text("---\n".join(piece for piece in pieces if piece), source="scenario")
        try:
            new = split_documents(body) if body else []
        except ManifestError as error:
            raise ScenarioInvalid(f"{source}: {error}") from None
        replaced = rows[first : first + count]
        following = rows[first + count] if first + count < len(rows) else None
        if replaced:
            base = replaced[0].order
        elif following is not None:
            base = following.order
        else:
            base = rows[-1].order + 1 if rows else 0
        if following is not None and base + len(new) > following.order:
            # make room: the documents after the page move down (one UPDATE, order is not unique)
            locked.kube_objects.filter(order__gte=following.order).update(order=F("order") + base + len(new) - following.order)
        ScenarioObject.objects.filter(pk__in=[row.pk for row in replaced]).delete()
        created = build_rows(locked, new)
        for offset, row in enumerate(created):
            row.order = base + offset
        ScenarioObject.objects.bulk_create(created, batch_size=500)
        locked.save(update_fields=["updated_at"])
        prepare_yaml_later(locked, len(rows) - count + len(new))
    scenario.updated_at = locked.updated_at
    scenario.not_simulated = manifests_warnings(new, source=source) + references_in(found, first + 1, first + len(new))
    return len(new)


def scenario_object_delete(*, scenario: Scenario, actor: Actor, object_id: int) -> None:
    """Delete one object, unless the rest no longer validates (e.g. a PriorityClass still in use)."""
    ensure_can_edit(scenario=scenario, actor=actor)
    with transaction.atomic():
        scenario = locked_scenario(scenario)
        rows = list(scenario.kube_objects.order_by("order", "id"))
        remaining = [row.manifest for row in rows if row.pk != object_id]
        if len(remaining) == len(rows):
            return  # already gone
        validate_manifests(remaining)
        scenario.kube_objects.filter(pk=object_id).delete()
        scenario.save(update_fields=["updated_at"])
        prepare_yaml_later(scenario, len(remaining))


def scenario_config_save(*, scenario: Scenario, actor: Actor, config: dict[str, Any] | None) -> None:
    """Set (or with None remove) the scenario's KubeSchedulerConfiguration document."""
    ensure_can_edit(scenario=scenario, actor=actor)
    existing = scenario.kube_objects.filter(kind="KubeSchedulerConfiguration").order_by("order").first()
    if config is None:
        if existing is not None:
            scenario_object_delete(scenario=scenario, actor=actor, object_id=existing.pk)
        return
    scenario_object_save(scenario=scenario, actor=actor, manifest=config, object_id=existing.pk if existing else None)


def append_objects(scenario: Scenario, actor: Actor, new: list[dict[str, Any]]) -> list[ScenarioObject]:
    """Append several objects at once (validated together with the existing ones)."""
    ensure_can_edit(scenario=scenario, actor=actor)
    with transaction.atomic():
        scenario = locked_scenario(scenario)
        rows = list(scenario.kube_objects.order_by("order", "id"))
        taken = {(row.kind, row.namespace, row.name) for row in rows}
        for manifest in new:
            key = identity(manifest)
            if key in taken:
                raise ScenarioInvalid(_duplicate_message(*key), field="metadata.name")
            taken.add(key)
        validate_manifests([row.manifest for row in rows] + new)
        start = rows[-1].order + 1 if rows else 0
        created = build_rows(scenario, new)
        for offset, row in enumerate(created):
            row.order = start + offset
        ScenarioObject.objects.bulk_create(created, batch_size=500)
        scenario.save(update_fields=["updated_at"])
        prepare_yaml_later(scenario, len(rows) + len(created))
    return created


