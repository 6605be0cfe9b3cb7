"""The start stores a scenario's pods as they are, and the pods of one template share their
parsed spec: safe only because nothing changes a pod or its parts in place (a change is a new
Pod). Running the gallery's scenarios (preemption, evictions, drains, DRA, storage, gangs) to the
end leaves every pod of the loaded scenario equal to a fresh load of it."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from scheduler_core.loader import load_scenario_file, load_scenario_text
from scheduler_core.simulation import Simulation

GALLERY = sorted((Path(__file__).resolve().parents[3] / "playground" / "gallery").glob("*.yaml"))

TWO_PODS = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: '4', memory: 8Gi, pods: '110'}}
---
apiVersion: v1
kind: Pod
metadata: {name: bound}
spec:
  nodeName: n1
  containers: [{name: c, image: x, resources: {requests: {cpu: 500m}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: pending}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: 500m}}}]
"""


def test_the_start_stores_the_scenarios_pods_without_copying_them() -> None:
    scenario = load_scenario_text(TWO_PODS, source="s.yaml")
    sim = Simulation(scenario)
    stored = sim.apiserver.cluster.pods
    assert [stored[p.key] is p for p in scenario.pods] == [True, True]
    assert sim.run(60)
    assert scenario.pods[1].node_name == "" and stored["default/pending"] is not scenario.pods[1]


def test_a_pod_created_later_is_stamped_with_the_clock() -> None:
    sim = Simulation(load_scenario_text(TWO_PODS, source="s.yaml"))
    sim.run(60)
    sim.clock.t = 30.0  # as the loop jumps it
    now = sim.clock.now()
    assert now > 0
    sim.apply_manifest_action({"action": "addPod", "pod": {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "late"},
        "spec": {"containers": [{"name": "c", "image": "x"}]}}})
    assert sim.apiserver.cluster.pods["default/late"].creation_time == now


@pytest.mark.parametrize("path", GALLERY, ids=[p.stem for p in GALLERY])
def test_a_run_changes_no_pod_of_its_scenario(path: Path) -> None:
    scenario = load_scenario_file(path)
    before = copy.deepcopy(scenario.pods)
    sim = Simulation(scenario, graceful_termination=True)
    sim.run(3600)
    assert scenario.pods == before
    assert load_scenario_file(path).pods == before
