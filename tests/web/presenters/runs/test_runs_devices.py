"""The run page's devices panel (Dynamic Resource Allocation): slices per node, devices with
their attributes, which claim holds which device, free counts, search and pages."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from playground.models import Run, RunAction
from playground.services.runs import actions as svc
from playground.services.scenarios import scenario_create
from tests.engine.dra.test_dra_extended_resource import CLASS as EXTENDED_CLASS
from tests.web.services.runs.test_runs_services import OWNER, act, inline_worker  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

GPU_NODES = 30


def dra_yaml(nodes: int = GPU_NODES, pods: int = 4) -> str:
    docs = ["apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\n"
            "spec:\n  selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}]\n",
            "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: one-gpu}\n"
            "spec:\n  spec:\n    devices:\n      requests:\n      - {name: gpu, exactly: {deviceClassName: gpu}}\n",
            # a node without devices: no card for it
            "apiVersion: v1\nkind: Node\nmetadata: {name: cpu-only}\nstatus: {capacity: {cpu: '64', memory: 64Gi}}\n"]
    for i in range(nodes):
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata: {{name: gpu-{i:02d}}}\n"
                    "status: {capacity: {cpu: '8', memory: 32Gi}}\n")
        docs.append(f"apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {{name: gpu-{i:02d}-slice}}\n"
                    f"spec:\n  driver: gpu.example.com\n  nodeName: gpu-{i:02d}\n"
                    f"  pool: {{name: gpu-{i:02d}, generation: 1, resourceSliceCount: 1}}\n  devices:\n"
                    f"  - name: gpu-0\n    attributes: {{model: {{string: {'h100' if i == 7 else 'a100'}}}}}\n"
                    "    capacity: {memory: {value: 40Gi}}\n")
    for i in range(pods):
        docs.append(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: train-{i}}}\nspec:\n"
                    "  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]\n"
                    "  containers:\n  - name: app\n    image: cuda\n"
                    "    resources: {requests: {cpu: '6'}, claims: [{name: gpu}]}\n")
    return "---\n".join(docs)


@pytest.fixture
def dra_run(inline_worker: list) -> Run:  # noqa: F811
    scenario = scenario_create(actor=OWNER, name="gpus", yaml_text=dra_yaml())
    run = svc.run_start(scenario=scenario, actor=OWNER)
    for _ in range(4):
        act(run, RunAction.KIND_STEP)
    return run


def get(client: Client, run: Run, name: str, **params: Any) -> str:
    response = client.get(reverse(f"playground:{name}", args=[run.share_token]), params)
    assert response.status_code == 200
    return response.content.decode()


def device_nodes(html: str) -> list[str]:
    return re.findall(r'<article class="device-node" data-node="([^"]+)"', html)


def test_panel_shows_slices_devices_holders_and_free_counts(client: Client, dra_run: Run) -> None:
    html = get(client, dra_run, "run")
    assert 'id="run-devices"' in html and 'id="devices-query"' in html
    assert "<strong>26</strong> of 30 devices free on 30 nodes (4 held by claims)" in html
    shown = device_nodes(html)
    assert len(shown) == 12 and "cpu-only" not in shown  # one page; only nodes with slices
    assert "1–12 of 30 nodes with devices" in html
    held = re.findall(r'data-claim="([^"]+)"', html)
    assert sorted(held) == [f"default/train-{i}-gpu" for i in range(4)]
    assert "model=a100, memory=40Gi" in html and "gpu-00-slice" in html


def test_search_free_filter_and_pages(client: Client, dra_run: Run) -> None:
    assert device_nodes(get(client, dra_run, "run_devices", dq="h100")) == ["gpu-07"]
    holders = device_nodes(get(client, dra_run, "run_devices", dq="train-"))
    assert len(holders) == 4
    free = get(client, dra_run, "run_devices", free="1")
    assert "26 nodes match" in free and not set(device_nodes(free)) & set(holders)
    every = [n for page in (1, 2, 3) for n in device_nodes(get(client, dra_run, "run_devices", dpage=str(page)))]
    assert sorted(every) == [f"gpu-{i:02d}" for i in range(GPU_NODES)]
    assert 'id="devices-page" value="2" hx-swap-oob="true"' in get(client, dra_run, "run_devices", dpage="2")


def test_runs_without_devices_have_no_panel(client: Client, inline_worker: list) -> None:  # noqa: F811
    plain = ("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: '2', memory: 4Gi}}\n---\n"
             "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: pause}]\n")
    run = svc.run_start(scenario=scenario_create(actor=OWNER, name="plain", yaml_text=plain), actor=OWNER)
    act(run, RunAction.KIND_STEP)
    assert 'id="run-devices"' not in get(client, run, "run")


def test_binding_cycle_shows_what_prebind_wrote_to_the_claim(client: Client, dra_run: Run) -> None:
    html = get(client, dra_run, "run")
    assert re.search(r"ResourceClaim default/train-3-gpu allocated \(gpu\.example\.com/gpu-\d\d/gpu-0\) by "
                     r"DynamicResources", html), html[html.find("Reserve / Permit"):][:600]


EXTENDED_YAML = EXTENDED_CLASS + """\
---
apiVersion: v1
kind: Node
metadata: {name: gpu-00}
status: {capacity: {cpu: '8', memory: 32Gi}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gpu-00-slice}
spec:
  driver: gpu.example.com
  nodeName: gpu-00
  pool: {name: gpu-00, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}, {name: gpu-1}]
---
apiVersion: v1
kind: Pod
metadata: {name: infer}
spec:
  containers:
  - name: app
    image: cuda
    resources: {limits: {example.com/gpu: '1'}}
"""


@pytest.mark.parametrize("gates", ["DRAExtendedResource=true", ""])
def test_panel_shows_the_claim_made_for_an_extended_resource(client: Client, inline_worker: list,  # noqa: F811
                                                              gates: str) -> None:
    """DRAExtendedResource: the pod asks for example.com/gpu without any claim; the scheduler's
    claim for it holds a device in the panel. Without the gate nothing is held."""
    scenario = scenario_create(actor=OWNER, name="extended", yaml_text=EXTENDED_YAML)
    run = svc.run_start(scenario=scenario, actor=OWNER, feature_gates=gates or None)
    for _ in range(2):
        act(run, RunAction.KIND_STEP)
    html = get(client, run, "run")
    held = re.findall(r'data-claim="([^"]+)"', html)
    if gates:
        assert len(held) == 1 and re.fullmatch(r"default/infer-extended-resources-[a-z0-9]{5}", held[0])
        assert "<strong>1</strong> of 2 devices free on 1 node (1 held by claims)" in html
    else:
        assert held == []
        assert "<strong>2</strong> of 2 devices free on 1 node (0 held by claims)" in html
