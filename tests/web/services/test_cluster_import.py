"""Uploading a cluster dump on the scenario page: reduced objects stored, summary shown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from playground.models import Scenario
from playground.selectors.scenarios import scenario_yaml
from tests.web.views.test_scenarios_views import GOOD, create, post

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.fixture(autouse=True)
def _loaded_in_the_request(settings: Any) -> None:
    """These read an import's answer in the request, as for a small file; the 1 MB dumps here
    are a worker's to load now (services.scenario_uploads: test_big_upload_checked_by_worker.py)."""
    settings.PLAYGROUND_UPLOAD_WORKER_WEIGHT = 10**9


def test_kubectl_dump_upload_shows_summary_and_stores_live_objects(client: Client) -> None:
    scenario = create(client, yaml_text=GOOD)
    payload = (FIXTURES / "kubectl-get-all.yaml").read_bytes()
    html = post(client, scenario, "import_yaml", **{"import-file": SimpleUploadedFile("cluster.yaml", payload)})
    assert "Imported a kubectl-list cluster dump" in html
    assert 'id="import-summary"' in html
    assert "dropped 4 Pod: finished (phase Succeeded): holds no resources" in html
    kinds = {o.kind for o in scenario.kube_objects.all()}
    assert {"Node", "Pod", "Deployment", "DaemonSet", "ReplicaSet", "StatefulSet"} <= kinds
    pods = scenario.kube_objects.filter(kind="Pod")
    assert pods.count() == 220  # 225 in the dump, 5 finished
    assert not any("managedFields" in p.manifest["metadata"] for p in pods[:20])
    # The stored scenario loads to the same cluster, with nothing created twice.
    from scheduler_core.loader import load_scenario_text

    again = load_scenario_text(scenario_yaml(scenario=scenario))
    # (the StatefulSet's claims, absent from `kubectl get all`, are made at each load)
    assert len(again.pods) == 220 and again.load_summary.count("created") == {"PersistentVolumeClaim": 3}


def test_simulator_export_upload_and_bad_dump_changes_nothing(client: Client) -> None:
    scenario = create(client, yaml_text=GOOD)
    node = {"metadata": {"name": "w1", "uid": "u1", "resourceVersion": "7"},
            "status": {"capacity": {"cpu": "4", "memory": "8Gi"}}}
    pod = {"metadata": {"name": "p1", "namespace": "default", "uid": "u2"},
           "spec": {"nodeName": "w1", "containers": [{"name": "c", "image": "x"}]}, "status": {"phase": "Running"}}
    done = {"metadata": {"name": "p2", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "x"}]}, "status": {"phase": "Succeeded"}}
    export = {"pods": [pod, done], "nodes": [node], "pvs": [], "pvcs": [{"metadata": {"name": "c", "namespace": "default"},
                                                                      "spec": {"accessModes": ["ReadWriteOnce"],
                                                                               "resources": {"requests": {"storage": "1Gi"}}}}],
              "storageClasses": [], "priorityClasses": [], "namespaces": [], "schedulerConfig": None}
    html = post(client, scenario, "import_yaml",
                **{"import-file": SimpleUploadedFile("export.json", json.dumps(export).encode())})
    assert "kube-scheduler-simulator" in html
    assert sorted((o.kind, o.name) for o in scenario.kube_objects.all()) == [
        ("Node", "w1"), ("PersistentVolumeClaim", "c"), ("Pod", "p1")]
    before = scenario_yaml(scenario=Scenario.objects.get(pk=scenario.pk))
    pod["spec"]["nodeName"] = "w1"
    pod["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "lots"}}
    html = post(client, scenario, "import_yaml",
                **{"import-file": SimpleUploadedFile("export.json", json.dumps(export).encode())})
    assert "export.json" in html and "resources.requests.cpu" in html
    assert scenario_yaml(scenario=scenario) == before
