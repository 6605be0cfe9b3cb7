"""Importing a real cluster: a `kubectl get ... -A -o yaml` dump or a kube-scheduler-simulator
export becomes the scenario's objects, and the user is told what was kept, created and dropped.

The engine decides (scheduler_core.loader.cluster_import and the workload controllers); this
service stores the reduced objects: finished pods and unmodelled kinds are not stored,
controllers and their existing pods are (the engine does not duplicate owned pods), and
`metadata.managedFields` and the last-applied-configuration annotation, large and meaningless
for scheduling, are left out. Plain manifests go through the ordinary YAML import unchanged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from playground.manifests import ManifestError, identity, split_loaded
from playground.models import Scenario
from playground.ownership import Actor, ensure_can_edit
from playground.services import scenario_validation
from playground.services import scenarios as scenario_service
from playground.services.runs import prepare
from playground.services.scenario_rows import StoredObject, insert_stored, stored_objects
from playground.services.scenario_validation import ScenarioInvalid
from scheduler_core.util.collector import collector_paused

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


@dataclass
class ImportResult:
    scenario: Scenario
    source_format: str  # "manifests", "kubectl-list" or "kube-scheduler-simulator"
    summary: dict[str, Any]  # WorkloadSummary.as_dict()
    lines: list[str]  # the summary in words
    not_simulated: list[Any]  # the loader's LoadWarnings: fields accepted but not simulated

    @property
    def is_cluster_dump(self) -> bool:
        return self.source_format != "manifests"

    def notice(self) -> str:
        """One short sentence for the page's message area."""
        totals = self.summary["totals"]
        parts = [f"{verb} {sum(totals[key].values())} objects" for key, verb in
                 (("kept", "kept"), ("created", "created"), ("dropped", "dropped")) if totals[key]]
        return f"Imported a {self.source_format} cluster dump: " + ", ".join(parts) + "."


def _slim(manifest: dict[str, Any]) -> dict[str, Any]:
    meta = manifest.get("metadata")
    if isinstance(meta, dict) and ("managedFields" in meta or LAST_APPLIED in (meta.get("annotations") or {})):
        meta = {k: v for k, v in meta.items() if k != "managedFields"}
        annotations = {k: v for k, v in (meta.get("annotations") or {}).items() if k != LAST_APPLIED}
        if annotations:
            meta["annotations"] = annotations
        else:
            meta.pop("annotations", None)
        manifest = {**manifest, "metadata": meta}
    return manifest


def scenario_import_any(*, scenario: Scenario, actor: Actor, text: str, source: str = "<input>") -> ImportResult:
    """Replace the scenario's objects with those of `text`, a cluster dump or plain manifests.
    Bad input raises ScenarioInvalid and changes nothing.

    The text is loaded once: the loader's validation (the web's, as for any upload) tells a
    dump by its summary and hands back its documents, which become the rows, plain manifests
    as `scenario_import_yaml` stores them and a dump reduced (`_reduced`)."""
    from scheduler_core.loader.cluster_import import normalize_dump

    ensure_can_edit(scenario=scenario, actor=actor)
    scenario_validation.refuse_nul(text, source=source)
    summaries: list[Any] = []
    with collector_paused():  # until the documents are let go (see `read_yaml_rows`)
        documents: list[Any] = []
        warnings = scenario_validation.validate_text(text, source=source, documents=documents, summaries=summaries)
        summary = summaries[0]
        try:
            if summary.source_format == "manifests":
                objects = stored_objects(documents, text)
            else:
                objects = [StoredObject(*identity(m), json.dumps(m)) for m in _reduced(normalize_dump(documents)[0])]
        except ManifestError as error:
            raise ScenarioInvalid(f"{source}: {error}") from None
        finally:
            del documents
    if summary.source_format == "manifests":
        scenario = scenario_service.scenario_objects_replace(
            scenario=scenario, objects=objects, load_summary=summary, warnings=warnings)
        return ImportResult(scenario, summary.source_format, summary.as_dict(), summary.lines(), warnings)
    with transaction.atomic():
        scenario = Scenario.objects.select_for_update().get(pk=scenario.pk)
        scenario.kube_objects.all().delete()
        insert_stored(scenario, objects)
        scenario.save(update_fields=["updated_at"])
        prepare.prepare_yaml_later(scenario, len(objects))
    return ImportResult(scenario, summary.source_format, summary.as_dict(), summary.lines(), warnings)


def _reduced(documents: list[Any]) -> list[dict[str, Any]]:
    """The objects of a reduced dump as they are stored: what writing them as YAML (PyYAML's
    safe dumper: each mapping's keys sorted where they compare) and reading that back made,
    without the text in between, slimmed (`_slim`)."""
    return [_slim(manifest) for manifest in split_loaded(_keys_sorted(documents))]


def _keys_sorted(value: Any) -> Any:
    """A copy of `value` with every mapping's pairs in sorted order, as PyYAML's dumper writes
    them (`sorted` of the pairs, left in their order when the keys do not compare)."""
    if isinstance(value, dict):
        pairs = list(value.items())
        try:
            pairs = sorted(pairs)
        except TypeError:
            pass
        return {key: _keys_sorted(item) for key, item in pairs}
    if isinstance(value, list):
        return [_keys_sorted(item) for item in value]
    return value
