"""kube-apiserver's DefaultTolerationSeconds admission, on by default: an unreachable node's pods
are evicted after 300 s, not at once; an APIServer document can turn the plugin off."""

from __future__ import annotations

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

BASE = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: '4', pods: '110'}}
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  nodeName: n1
  containers: [{name: c}]
---
apiVersion: v1
kind: Pod
metadata: {name: patient}
spec:
  nodeName: n1
  tolerations: [{key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 60}]
  containers: [{name: c}]
---
apiVersion: playground.kube-scheduler.dev/v1
kind: Timeline
actions:
- {at: 10, action: addTaint, node: n1, taint: {key: node.kubernetes.io/unreachable, effect: NoExecute}}
"""
OFF = "---\napiVersion: playground.kube-scheduler.dev/v1\nkind: APIServer\ndisableAdmissionPlugins: [DefaultTolerationSeconds]\n"


def _deleted_at(text: str) -> dict[str, float]:
    sim = Simulation(load_scenario_text(text, source="t"), seed=0)
    result = sim.result(sim.run(3600.0))
    return {p["name"]: p["deletedAt"] for p in result["pods"]}


def test_admission_adds_the_two_tolerations_unless_the_pod_has_them() -> None:
    pods = {p.name: p for p in load_scenario_text(BASE, source="t").pods}
    added = [(t.key, t.operator, t.effect, t.toleration_seconds, t.added_by) for t in pods["web"].tolerations]
    assert added == [("node.kubernetes.io/not-ready", "Exists", "NoExecute", 300, "DefaultTolerationSeconds"),
                     ("node.kubernetes.io/unreachable", "Exists", "NoExecute", 300, "DefaultTolerationSeconds")]
    patient = [(t.key, t.toleration_seconds, t.added_by) for t in pods["patient"].tolerations]
    assert patient == [("node.kubernetes.io/unreachable", 60, ""),
                       ("node.kubernetes.io/not-ready", 300, "DefaultTolerationSeconds")]


def test_an_unreachable_node_keeps_its_pods_300_seconds_and_no_admission_evicts_at_once() -> None:
    assert _deleted_at(BASE) == {"web": 310.0, "patient": 70.0}
    assert _deleted_at(BASE + OFF) == {"web": 10.0, "patient": 70.0}
    assert all(not p.tolerations or p.name == "patient" for p in load_scenario_text(BASE + OFF, source="t").pods)


def test_the_view_says_which_tolerations_admission_added() -> None:
    sim = Simulation(load_scenario_text(BASE, source="t"), seed=0)
    sim.run(20.0)
    evictions = {e["pod"]: e for e in sim.view()["evictions"]}
    assert evictions["default/web"]["admittedTolerations"] == [
        "node.kubernetes.io/unreachable:NoExecute for 300s (DefaultTolerationSeconds)"]
    assert "admittedTolerations" not in evictions["default/patient"]


def test_only_known_plugins_can_be_turned_off() -> None:
    with pytest.raises(ScenarioError) as error:
        load_scenario_text(BASE + OFF.replace("DefaultTolerationSeconds", "Priority"), source="s.yaml")
    assert 'disableAdmissionPlugins[0]: Unsupported value: "Priority"' in str(error.value)
