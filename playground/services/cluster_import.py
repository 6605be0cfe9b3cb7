"""Importing a real cluster: a `kubectl get ... -A -o yaml` dump or a kube-scheduler-simulator
export becomes the scenario's objects, and the user is told what was kept, created and dropped.

The engine decides (scheduler_core.loader.cluster_import and the workload controllers); this
service stores the reduced objects: finished pods and unmodelled kinds are not stored,
controllers and their existing pods are (the engine does not duplicate owned pods), and
`metadata.managedFields` and the last-applied-configuration annotation, large and meaningless
for scheduling, are left out. Plain manifests go through the ordinary YAML import unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml
from django.db import transaction

from playground.limits import web_limits
from playground.manifests import split_documents
from playground.models import Scenario, ScenarioObject
from playground.ownership import Actor, ensure_can_edit
from playground.services import scenario_objects, scenario_validation
from playground.services import scenarios as scenario_service
from playground.services.runs import prepare
from playground.services.scenario_validation import ScenarioInvalid

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
    Bad input raises ScenarioInvalid and changes nothing."""
    from scheduler_core.api.errors import ScenarioError
    from scheduler_core.loader import load_scenario_text
    from scheduler_core.loader.cluster_import import normalize_dump

    ensure_can_edit(scenario=scenario, actor=actor)
    scenario_validation.refuse_nul(text, source=source)
    try:
        loaded = load_scenario_text(text, source=source, limits=web_limits())
    except ScenarioError as error:
        raise ScenarioInvalid(str(error), field=error.field, kind=error.kind, name=error.name,
                              document=error.document) from None
    except RecursionError:
        raise ScenarioInvalid(f"{source}: the YAML is nested too deeply") from None
    summary = loaded.load_summary
    if summary.source_format == "manifests":
        scenario = scenario_service.scenario_import_yaml(scenario=scenario, actor=actor, text=text, source=source)
        return ImportResult(scenario, summary.source_format, summary.as_dict(), summary.lines(),
                            scenario.not_simulated)
    docs = list(yaml.load_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
    reduced, _ = normalize_dump(docs)
    manifests = [_slim(m) for m in split_documents(yaml.dump_all(reduced, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper)))]
    with transaction.atomic():
        scenario = Scenario.objects.select_for_update().get(pk=scenario.pk)
        scenario.kube_objects.all().delete()
        ScenarioObject.objects.bulk_create(scenario_objects.build_rows(scenario, manifests), batch_size=500)
        scenario.save(update_fields=["updated_at"])
        prepare.prepare_yaml_later(scenario, len(manifests))
    return ImportResult(scenario, summary.source_format, summary.as_dict(), summary.lines(), loaded.warnings)
