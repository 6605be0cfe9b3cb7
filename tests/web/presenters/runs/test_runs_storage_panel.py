"""The run page's storage panel, without a browser: the WaitForFirstConsumer lesson's classes,
claims (bound to which volume, the selected node, the pods using them) and volumes; a run
with many claims searched and paged; a run without storage shows no panel."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from playground.models import Run, RunAction
from playground.services.runs import actions as svc
from playground.services.scenarios import scenario_create
from tests.web.services.runs.test_runs_services import OWNER, act, inline_worker  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

LESSON = Path(__file__).resolve().parents[4] / "playground" / "gallery" / "wait-for-first-consumer.yaml"


def start(yaml_text: str, steps: int) -> Run:
    scenario = scenario_create(actor=OWNER, name="storage", yaml_text=yaml_text)
    run = svc.run_start(scenario=scenario, actor=OWNER)
    for _ in range(steps):
        act(run, RunAction.KIND_STEP)
    return run


def get(client: Client, run: Run, name: str, **params: Any) -> str:
    response = client.get(reverse(f"playground:{name}", args=[run.share_token]), params)
    assert response.status_code == 200
    return response.content.decode()


def test_storage_panel_shows_classes_claims_and_volumes(client: Client, inline_worker: list) -> None:  # noqa: F811
    run = start(LESSON.read_text(), 3)
    html = get(client, run, "run")
    assert 'id="run-storage"' in html
    assert 'data-class="zonal-late"' in html and "topology.kubernetes.io/zone in zone-b" in html
    assert "3 claims (2 bound, 1 not bound)" in html
    row = html.split('data-claim="default/db-data"')[1].split("</tr>")[0]
    assert "Bound" in row and "<td>b1</td>" in row and "default/db" in row
    pending = html.split('data-claim="default/reports-data"')[1].split("</tr>")[0]
    assert "Pending" in pending and "default/reports" in pending
    volumes = get(client, run, "run_storage", storage_show="volumes")
    assert 'data-volume="ssd-a1"' in volumes and "kubernetes.io/hostname in a1" in volumes
    assert "default/cache-data" in volumes


def test_storage_panel_lists_the_csi_storage_capacities(client: Client, inline_worker: list) -> None:  # noqa: F811
    lesson = LESSON.parent / "storage-capacity-scoring.yaml"
    scenario = scenario_create(actor=OWNER, name="capacity", yaml_text=lesson.read_text())
    run = svc.run_start(scenario=scenario, actor=OWNER, feature_gates="StorageCapacityScoring=true")
    act(run, RunAction.KIND_STEP)
    act(run, RunAction.KIND_STEP)
    html = get(client, run, "run")
    row = html.split('data-capacity="kube-system/lvm-big-disk"')[1].split("</tr>")[0]
    assert "<td>lvm</td>" in row and "kubernetes.io/hostname=big-disk" in row and "100Gi" in row
    assert "StorageCapacityScoring=true" in html
    claim = html.split('data-claim="default/data"')[1].split("</tr>")[0]
    assert "big-disk" in claim


def test_many_claims_are_searched_and_paged(client: Client, inline_worker: list) -> None:  # noqa: F811
    docs = ["apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: '4', memory: 8Gi}}\n",
            "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: s}\nprovisioner: p.csi\n"
            "volumeBindingMode: WaitForFirstConsumer\n"]
    docs += [f"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {{name: c{i:03d}}}\nspec:\n"
             "  accessModes: [ReadWriteOnce]\n  storageClassName: s\n  resources: {requests: {storage: 1Gi}}\n"
             for i in range(70)]
    run = start("---\n".join(docs), 0)
    html = get(client, run, "run")
    assert 'id="storage-q"' in html and "1–50 of 70 claims" in html
    second = get(client, run, "run_storage", page="2")
    assert 'data-claim="default/c069"' in second and 'data-claim="default/c000"' not in second
    found = get(client, run, "run_storage", storage_q="c01")
    assert found.count("data-claim=") == 10


def test_a_run_without_storage_has_no_storage_panel(client: Client, inline_worker: list) -> None:  # noqa: F811
    run = start("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: '4', memory: 8Gi}}\n", 0)
    assert 'id="run-storage"' not in get(client, run, "run")


def test_frame_deltas_keep_only_changed_claims_and_leave_views_without_storage_alone() -> None:
    from playground import frame_views

    claim = {"key": "default/a", "phase": "Pending"}
    before = {"clock": 0, "nodes": [], "pods": [], "storageClaims": [claim, {"key": "default/b", "phase": "Bound"}],
              "storageVolumes": []}
    after = {**before, "storageClaims": [{**claim, "phase": "Bound"}, before["storageClaims"][1]]}
    delta = frame_views.diff(before, after, base=0)
    assert delta["storageClaims"] == {"default/a": {"key": "default/a", "phase": "Bound"}}
    assert frame_views.apply(before, delta) == after
    plain = {"clock": 1, "nodes": [], "pods": []}
    delta = frame_views.diff(plain, {**plain, "clock": 2}, base=0)
    assert "storageClaims" not in delta
    assert frame_views.apply(plain, delta) == {**plain, "clock": 2}
