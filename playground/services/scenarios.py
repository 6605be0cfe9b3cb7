"""Changing scenarios: create, import, edit objects, bulk helpers, fork, delete.

Every change that touches a scenario's objects first joins the new list of manifests into YAML
and has the engine's loader (`load_scenario_text`, with the web's limits from settings) validate
the whole scenario. Invalid input raises `ScenarioInvalid` with the loader's message and the
database is left exactly as it was (each service runs in one transaction).

Fields the loader accepts but does not simulate (probes, volumes, env, ...) are not errors; the
services that take a user's manifests (create, import, saving an object) return their model
instance with a transient `not_simulated` attribute, the loader's `LoadWarning`s for what that
change brought in, so the page can list them once.
"""

from __future__ import annotations

import logging
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import F

from playground.infra.bulk_insert import insert_rows
from playground.limits import web_limits
from playground.manifests import API_VERSIONS, ManifestError, build_yaml, identity, split_documents, split_loaded
from playground.models import Scenario, ScenarioObject
from playground.ownership import Actor, ensure_can_edit, ensure_has_identity, owner_fields
from playground.selectors.scenarios import cached_yaml, objects_version, scenario_manifests
from playground.services.extender_access import refused_extender
from playground.services.runs.prepare import copy_prepared, prepare_yaml_later

logger = logging.getLogger(__name__)

MAX_BULK = 5000
ZONE_LABEL = "topology.kubernetes.io/zone"
REGION_LABEL = "topology.kubernetes.io/region"
HOSTNAME_LABEL = "kubernetes.io/hostname"
PAUSE_IMAGE = "registry.k8s.io/pause:3.10"


class ScenarioInvalid(Exception):
    """Input that would make the scenario invalid; `message` is what the user should read.

    When the engine's loader refused it, `field`, `kind`, `name` and `document` say where.
    """

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        kind: str | None = None,
        name: str | None = None,
        document: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.kind = kind
        self.name = name
        self.document = document

    def __str__(self) -> str:
        return self.message


# ---- validation ------------------------------------------------------------------------------


def validate_manifests(manifests: list[dict[str, Any]], *, source: str = "scenario") -> str:
    """Validate manifests as one scenario through the engine's loader; return their YAML."""
    text = build_yaml(manifests)
    validate_text(text, source=source)
    return text


def validate_text(
    text: str, *, source: str = "scenario", documents: list[Any] | None = None, summaries: list[Any] | None = None
) -> list[Any]:
    """Run the engine's loader over `text` with the web's limits; translate its ScenarioError
    into ScenarioInvalid. Returns the loader's "not simulated" warnings (`LoadWarning`s);
    `documents` receives the YAML documents the loader decoded (see `load_scenario_text`),
    `summaries` the load's summary (what was kept, created, dropped)."""
    from scheduler_core.api.errors import ScenarioError
    from scheduler_core.loader import load_scenario_text

    try:
        loaded = load_scenario_text(text, source=source, limits=web_limits(), documents=documents)
    except ScenarioError as error:
        raise ScenarioInvalid(
            str(error), field=error.field, kind=error.kind, name=error.name, document=error.document
        ) from None
    except RecursionError:
        raise ScenarioInvalid(f"{source}: the YAML is nested too deeply") from None
    refused = refused_extender(loaded)
    if refused is not None:
        field, message = refused
        raise ScenarioInvalid(f"{source}: KubeSchedulerConfiguration {field}: {message}", field=field,
                              kind="KubeSchedulerConfiguration")
    if summaries is not None:
        summaries.append(loaded.load_summary)
    return loaded.warnings


def manifest_warnings(manifest: dict[str, Any], *, source: str = "form") -> list[Any]:
    """The "not simulated" warnings of one object alone (the whole scenario was validated
    already): what saving this object brings in, not what its neighbours carry."""
    return manifests_warnings([manifest], source=source)


def manifests_warnings(manifests: list[dict[str, Any]], *, source: str = "form") -> list[Any]:
    """The "not simulated" warnings of these objects alone, grouped as the loader groups them."""
    from scheduler_core.api.errors import ScenarioError
    from scheduler_core.loader.documents import flatten_documents
    from scheduler_core.loader.newer_kinds import reduce_newer
    from scheduler_core.loader.strict import NotSimulated

    notes = NotSimulated()
    docs, newer, _ = reduce_newer(list(manifests), source)  # kinds and fields of v1.36/v1.37 clusters
    try:
        flatten_documents(docs, source, notes)
    except ScenarioError:
        return newer
    return newer + notes.warnings()


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


def _locked(scenario: Scenario) -> Scenario:
    """Re-read the scenario inside a transaction, locking its row where the database can."""
    return Scenario.objects.select_for_update().defer("yaml_cache").get(pk=scenario.pk)


# ---- scenarios ---------------------------------------------------------------------------------


def scenario_create(
    *, actor: Actor, name: str, description: str = "", seed: int = 0, yaml_text: str | None = None, source: str = ""
) -> Scenario:
    """A new scenario owned by `actor`, empty or with the objects of `yaml_text` (validated first)."""
    ensure_has_identity(actor, "Creating a scenario")
    manifests: list[dict[str, Any]] = []
    warnings: list[Any] = []
    summaries: list[Any] = []
    if yaml_text is not None and yaml_text.strip():
        manifests, warnings = read_yaml_import(yaml_text, source=source or name or "<input>", summaries=summaries)
    with transaction.atomic():
        scenario = Scenario.objects.create(
            name=name.strip() or "Untitled scenario", description=description, seed=seed, **owner_fields(actor)
        )
        insert_manifests(scenario, manifests)
        keep_workload_pods(scenario, summaries)
        prepare_yaml_later(scenario, len(manifests))
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


def refuse_nul(text: str, *, source: str) -> None:
    """Refuse text with a NUL character, saying where the first one is (YAML forbids it, and
    it is the mark of a binary or UTF-16 file read as UTF-8)."""
    at = text.find("\x00")
    if at < 0:
        return
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    raise ScenarioInvalid(
        f"{source}: line {line}, column {column}: the file is not text (it contains a NUL byte; "
        "is it binary, or UTF-16 instead of UTF-8?)"
    )


def read_yaml_import(
    text: str, *, source: str = "<input>", summaries: list[Any] | None = None
) -> tuple[list[dict[str, Any]], list[Any]]:
    """Validate multi-document YAML through the engine and cut it into one manifest per object;
    also return the loader's "not simulated" warnings (`summaries`: see `validate_text`)."""
    refuse_nul(text, source=source)
    documents: list[Any] = []
    warnings = validate_text(text, source=source, documents=documents, summaries=summaries)
    try:
        return split_loaded(documents), warnings
    except ManifestError as error:
        raise ScenarioInvalid(f"{source}: {error}") from None


def parse_yaml_import(text: str, *, source: str = "<input>") -> list[dict[str, Any]]:
    """Validate multi-document YAML through the engine and cut it into one manifest per object."""
    return read_yaml_import(text, source=source)[0]


def scenario_import_yaml(*, scenario: Scenario, actor: Actor, text: str, source: str = "<input>") -> Scenario:
    """Replace all of the scenario's objects with those of `text`; bad input changes nothing."""
    ensure_can_edit(scenario=scenario, actor=actor)
    summaries: list[Any] = []
    manifests, warnings = read_yaml_import(text, source=source, summaries=summaries)
    with transaction.atomic():
        scenario = _locked(scenario)
        scenario.kube_objects.all().delete()
        insert_manifests(scenario, manifests)
        scenario.save(update_fields=["updated_at"])
        keep_workload_pods(scenario, summaries)
        prepare_yaml_later(scenario, len(manifests))
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
        manifests = scenario_manifests(scenario=scenario)
        insert_manifests(fork, manifests)
        pods = Scenario.objects.filter(pk=scenario.pk).values_list("workload_pods_version", "workload_pods_cache").get()
        if pods[0] == source_version:  # the same objects: the same workload pods
            Scenario.objects.filter(pk=fork.pk).update(
                workload_pods_cache=pods[1], workload_pods_version=objects_version(scenario=fork))
        if kept is not None:  # the same objects: the same YAML and start, kept for the fork's version
            fork_version = objects_version(scenario=fork)
            Scenario.objects.filter(pk=fork.pk).update(yaml_cache=kept, yaml_cache_version=fork_version)
            if copy_prepared(source=scenario, source_version=source_version, fork=fork, fork_version=fork_version):
                return fork
        prepare_yaml_later(fork, len(manifests))
    return fork


def scenario_delete(*, scenario: Scenario, actor: Actor) -> None:
    ensure_can_edit(scenario=scenario, actor=actor)
    scenario.delete()


# ---- objects -----------------------------------------------------------------------------------


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
        scenario = _locked(scenario)
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
        locked = _locked(scenario)
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
        scenario = _locked(scenario)
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


def _append_objects(scenario: Scenario, actor: Actor, new: list[dict[str, Any]]) -> list[ScenarioObject]:
    """Append several objects at once (validated together with the existing ones)."""
    ensure_can_edit(scenario=scenario, actor=actor)
    with transaction.atomic():
        scenario = _locked(scenario)
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


# ---- bulk helpers ------------------------------------------------------------------------------


def zone_names(count: int) -> list[str]:
    """zone-a, zone-b, ... zone-z, then zone-27, zone-28, ..."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return [f"zone-{letters[i]}" if i < len(letters) else f"zone-{i + 1}" for i in range(count)]


def _next_free_index(existing: Iterable[str], prefix: str) -> int:
    pattern = re.compile(rf"^{re.escape(prefix)}-(\d+)$")
    highest = 0
    for name in existing:
        match = pattern.match(name)
        if match:
            highest = max(highest, int(match.group(1)))
    return highest + 1


@dataclass(frozen=True)
class NodeTemplate:
    cpu: str = "4"
    memory: str = "16Gi"
    pods: int | None = 110
    labels: dict[str, str] | None = None
    taints: list[dict[str, Any]] | None = None
    unschedulable: bool = False


def node_manifest(*, name: str, template: NodeTemplate, zone: str = "", region: str = "") -> dict[str, Any]:
    """A Node manifest as a kubelet would register it (hostname label, capacity = allocatable)."""
    labels = {HOSTNAME_LABEL: name}
    if region:
        labels[REGION_LABEL] = region
    if zone:
        labels[ZONE_LABEL] = zone
    labels.update(template.labels or {})
    capacity: dict[str, Any] = {}
    if template.cpu:
        capacity["cpu"] = template.cpu
    if template.memory:
        capacity["memory"] = template.memory
    if template.pods is not None:
        capacity["pods"] = str(template.pods)
    manifest: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}
    spec: dict[str, Any] = {}
    if template.taints:
        spec["taints"] = list(template.taints)
    if template.unschedulable:
        spec["unschedulable"] = True
    if spec:
        manifest["spec"] = spec
    manifest["status"] = {"capacity": capacity, "allocatable": dict(capacity)}
    return manifest


def _check_room(scenario: Scenario, kind: str, limit: str, noun: str, count: int) -> None:
    """Refuse a bulk addition that the scenario's objects of `kind` plus `count` would take past
    the limit, before any manifest is made (what workloads and a timeline add is counted by the
    loader's validation, which follows)."""
    limits = web_limits()
    have = scenario.kube_objects.filter(kind=kind).count()
    if have + count > getattr(limits, limit):
        raise ScenarioInvalid(
            limits.refusal(limit, f"count: too many {noun} ({have:,} in the scenario and {count:,} more)"),
            field="count",
        )


def scenario_nodes_add_bulk(
    *, scenario: Scenario, actor: Actor, count: int, prefix: str, zones: int, template: NodeTemplate
) -> list[ScenarioObject]:
    """Add `count` identical nodes named prefix-N, spread round-robin over `zones` zones."""
    if not 1 <= count <= MAX_BULK:
        raise ScenarioInvalid(f"the number of nodes must be between 1 and {MAX_BULK}")
    _check_room(scenario, "Node", "max_nodes", "nodes", count)
    if not 0 <= zones <= 26 * 4:
        raise ScenarioInvalid("the number of zones must be between 0 and 104")
    names = scenario.kube_objects.filter(kind="Node").values_list("name", flat=True)
    start = _next_free_index(names, prefix)
    width = max(len(str(start + count - 1)), 1)
    zone_list = zone_names(zones)
    new = [
        node_manifest(
            name=f"{prefix}-{index:0{width}d}" if count > 1 else f"{prefix}-{index}",
            template=template,
            zone=zone_list[i % zones] if zones else "",
            region="region-1" if zones else "",
        )
        for i, index in enumerate(range(start, start + count))
    ]
    return _append_objects(scenario, actor, new)


# Kubernetes' rand.String alphabet (no vowels, no confusable characters).
_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def _suffix(rng: random.Random, length: int) -> str:
    return "".join(rng.choice(_SUFFIX_ALPHABET) for _ in range(length))


def scenario_pods_add_batch(
    *,
    scenario: Scenario,
    actor: Actor,
    count: int,
    name: str,
    pod_template: dict[str, Any],
    with_replicaset: bool = True,
) -> list[ScenarioObject]:
    """A Deployment-like batch: `count` pods from `pod_template` named <name>-<hash>-<xxxxx>.

    The pods carry `app: <name>` and a pod-template-hash label; with `with_replicaset` a
    ReplicaSet selecting them is added too (and named as the pods' controller owner), so the
    scheduler's default topology spreading groups them as it would a real Deployment's pods.
    """
    if not 1 <= count <= MAX_BULK:
        raise ScenarioInvalid(f"the number of pods must be between 1 and {MAX_BULK}")
    _check_room(scenario, "Pod", "max_pods", "pods", count)
    metadata = dict(pod_template.get("metadata") or {})
    namespace = metadata.get("namespace") or "default"
    existing = {(row[0], row[1]) for row in scenario.kube_objects.filter(kind="Pod").values_list("namespace", "name")}
    rng = random.Random(f"{scenario.pk}/{namespace}/{name}/{len(existing)}")
    template_hash = _suffix(rng, 10)
    rs_name = f"{name}-{template_hash}"
    labels = dict(metadata.get("labels") or {})
    labels.setdefault("app", name)
    labels["pod-template-hash"] = template_hash
    new: list[dict[str, Any]] = []
    if with_replicaset:
        new.append(
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "metadata": {"name": rs_name, "namespace": namespace, "labels": dict(labels)},
                "spec": {
                    "replicas": count,
                    "selector": {"matchLabels": {"app": labels["app"], "pod-template-hash": template_hash}},
                },
            }
        )
    names: set[str] = set()
    while len(names) < count:
        candidate = f"{rs_name}-{_suffix(rng, 5)}"
        if (namespace, candidate) not in existing:
            names.add(candidate)
    for pod_name in sorted(names):
        pod = {k: v for k, v in pod_template.items() if k != "metadata"}
        pod["metadata"] = {**metadata, "name": pod_name, "namespace": namespace, "labels": dict(labels)}
        if with_replicaset:
            pod["metadata"]["ownerReferences"] = [
                {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs_name, "controller": True}
            ]
        pod.setdefault("apiVersion", "v1")
        pod.setdefault("kind", "Pod")
        new.append(pod)
    return _append_objects(scenario, actor, new)


def empty_manifest(kind: str) -> dict[str, Any]:
    return {"apiVersion": API_VERSIONS[kind], "kind": kind, "metadata": {}}
