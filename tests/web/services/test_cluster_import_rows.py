"""An import loads its text once (services.cluster_import): a cluster dump's reduced objects and
plain manifests are stored exactly as when the text was read again, written as YAML and read back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.db import connection

from bench.generate_envelope import render
from playground.manifests import identity, split_documents
from playground.models import Scenario, ScenarioObject
from playground.ownership import Actor
from playground.services import scenario_uploads
from playground.services import scenarios as svc
from playground.services.cluster_import import _slim, scenario_import_any
from playground.services.scenario_validation import ScenarioInvalid
from scheduler_core.loader import cluster_import as engine_import

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
GALLERY = Path(__file__).resolve().parents[3] / "playground" / "gallery"
OWNER = Actor(session_token="import-owner")
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

SIMULATOR_EXPORT = json.dumps({
    "nodes": [{"metadata": {"name": "w1", "uid": "u1", "resourceVersion": "7", "labels": {"z": "1", "a": "2"}},
               "status": {"capacity": {"memory": "8Gi", "cpu": "4"}}}],
    "pods": [{"metadata": {"name": "p1", "namespace": "default", "uid": "u2"},
              "spec": {"nodeName": "w1", "containers": [{"name": "c", "image": "x"}]}, "status": {"phase": "Running"}},
             {"metadata": {"name": "p2", "namespace": "default"},
              "spec": {"containers": [{"name": "c", "image": "x"}]}, "status": {"phase": "Succeeded"}}],
    "pvs": [], "pvcs": [], "storageClasses": [], "priorityClasses": [], "namespaces": [], "schedulerConfig": None,
})


def reduced_before(text: str) -> list[str]:
    """What a dump's import stored before: the text read again, reduced, written as YAML, read
    back, slimmed; each manifest as its JSON column held it."""
    documents = list(yaml.load_all(text, Loader=_LOADER))
    reduced, _ = engine_import.normalize_dump(documents)
    manifests = [_slim(m) for m in split_documents(yaml.dump_all(reduced, Dumper=_DUMPER))]
    return [json.dumps([*identity(m), m]) for m in manifests]


def stored(scenario: Scenario) -> list[str]:
    """Each row's identity and manifest, the manifest's pairs in the order the database keeps
    them (SQLite: as written; PostgreSQL's jsonb orders keys itself, alike for both paths)."""
    found = scenario.kube_objects.order_by("order").values_list("kind", "namespace", "name", "manifest")
    return [json.dumps([kind, namespace, name, manifest]) for kind, namespace, name, manifest in found]


DUMPS = {path.name: path.read_text() for path in sorted(FIXTURES.glob("kubectl-*.yaml"))}
DUMPS["simulator export"] = SIMULATOR_EXPORT


@pytest.mark.parametrize("text", DUMPS.values(), ids=DUMPS.keys())
def test_a_dump_is_stored_as_its_yaml_round_trip_stored_it(text: str) -> None:
    scenario = svc.scenario_create(actor=OWNER, name="s", yaml_text=render(2, 3))
    result = scenario_import_any(scenario=scenario, actor=OWNER, text=text, source="dump.yaml")
    assert result.is_cluster_dump
    expected = reduced_before(text)
    got = stored(scenario)
    if connection.vendor == "postgresql":  # jsonb keeps its own key order: compare the values
        expected = [json.dumps(json.loads(row), sort_keys=True) for row in expected]
        got = [json.dumps(json.loads(row), sort_keys=True) for row in got]
    assert got == expected
    assert list(scenario.kube_objects.order_by("order").values_list("order", flat=True)) == list(range(len(got)))


def test_plain_manifests_are_stored_as_a_yaml_import_stores_them() -> None:
    text = (GALLERY / "deployments-daemonsets.yaml").read_text()
    imported = svc.scenario_create(actor=OWNER, name="s", yaml_text=render(2, 3))
    result = scenario_import_any(scenario=imported, actor=OWNER, text=text, source="up.yaml")
    assert not result.is_cluster_dump
    created = svc.scenario_create(actor=OWNER, name="c", yaml_text=text)
    assert stored(imported) == stored(created)
    kept = Scenario.objects.values_list("workload_pods_cache", flat=True)
    assert kept.get(pk=imported.pk) == kept.get(pk=created.pk) is not None


def test_an_import_loads_its_text_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from scheduler_core import loader

    calls: list[int] = []
    real = loader.load.load_scenario_text

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(loader, "load_scenario_text", counted)
    scenario = svc.scenario_create(actor=OWNER, name="s", yaml_text=render(2, 3))
    calls.clear()
    scenario_import_any(scenario=scenario, actor=OWNER, text=(GALLERY / "deployments-daemonsets.yaml").read_text(),
                        source="up.yaml")
    assert len(calls) == 1
    calls.clear()
    scenario_import_any(scenario=scenario, actor=OWNER, text=DUMPS["kubectl-get-all.yaml"], source="dump.yaml")
    assert len(calls) == 1


def test_a_dump_with_a_refused_extender_changes_nothing(settings: Any) -> None:
    """A dump is checked as any upload: an extender the operator does not allow is refused
    before anything is stored (it was stored before, and refused only when a run called it)."""
    settings.EXTENDER_ALLOWED_URLS = []
    scenario = svc.scenario_create(actor=OWNER, name="s", yaml_text=render(2, 3))
    rows = stored(scenario)
    config = ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
              "extenders: [{urlPrefix: 'http://10.0.0.1/x', filterVerb: filter}]\n")
    with pytest.raises(ScenarioInvalid) as refused:
        scenario_import_any(scenario=scenario, actor=OWNER, text=DUMPS["kubectl-get-all.yaml"] + "---\n" + config,
                            source="dump.yaml")
    assert refused.value.field == "extenders[0].urlPrefix"
    assert stored(scenario) == rows
    assert ScenarioObject.objects.filter(scenario=scenario).count() == len(rows)


def test_a_dumps_import_is_weighed_as_one_load(settings: Any) -> None:
    """Loaded once, a dump's import costs about its load (1 MB fixture: 0.46 s CPU, the load
    alone 0.41-0.49 s), no longer ten times a plain file's: weighed at twice its load, it stays
    in the request where a plain file of twice its weight would."""
    dump = DUMPS["kubectl-get-all.yaml"]
    weight = scenario_uploads.load_weight(dump)
    settings.PLAYGROUND_UPLOAD_WORKER_WEIGHT = 2 * weight + 1
    assert not scenario_uploads.needs_worker(dump, importing=True)
    settings.PLAYGROUND_UPLOAD_WORKER_WEIGHT = 2 * weight
    assert scenario_uploads.needs_worker(dump, importing=True)
    plain = (GALLERY / "deployments-daemonsets.yaml").read_text()
    settings.PLAYGROUND_UPLOAD_WORKER_WEIGHT = scenario_uploads.load_weight(plain) + 1
    assert not scenario_uploads.needs_worker(plain, importing=True)
