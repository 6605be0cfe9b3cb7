"""Node conditions turned into taints by the node lifecycle controller, on the virtual clock
with kube-controller-manager v1.35's defaults (health pass every 5 s, 50 s grace period), then
the taint manager's evictions after the admission-added 300 s tolerations."""

from __future__ import annotations

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.controllers.nodelifecycle import next_pass
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

NODES = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: '4', pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
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
metadata: {name: db}
spec:
  nodeName: n2
  containers: [{name: c}]
---
apiVersion: playground.kube-scheduler.dev/v1
kind: Timeline
actions:
"""


def _run(actions: str, until: float = 3600.0) -> Simulation:
    sim = Simulation(load_scenario_text(NODES + actions, source="t"), seed=0, record_events=True)
    sim.run(until)
    return sim


def _taint_changes(sim: Simulation) -> list[tuple[float, str, str]]:
    return [(e["time"], e["node"], e["change"]) for e in sim.sink.events
            if e["type"] == "node_lifecycle" and e["change"].startswith("taint")]


def test_health_passes_every_five_seconds() -> None:
    assert [next_pass(t) for t in (0, 0.5, 5, 12)] == [0, 5, 5, 15]
    assert [next_pass(t, strictly=True) for t in (0, 5, 62)] == [5, 10, 65]


def test_ready_false_taints_noschedule_at_once_and_noexecute_at_the_next_pass() -> None:
    sim = _run("- {at: 12, action: setNodeCondition, node: n1, status: 'False'}\n")
    assert _taint_changes(sim) == [
        (12.0, "n1", "taint node.kubernetes.io/not-ready:NoSchedule added"),
        (15.0, "n1", "taint node.kubernetes.io/not-ready:NoExecute added"),
    ]
    result = sim.result(True)
    assert {p["name"]: p["deletedAt"] for p in result["pods"]} == {"web": 315.0, "db": None}
    events = [(e["reason"], e["object"], e["message"]) for e in sim.sink.events if e["type"] == "k8s_event"]
    assert ("NodeNotReady", "n1", "Node n1 status is now: NodeNotReady") in events


def test_a_silent_kubelet_turns_unknown_after_the_grace_period() -> None:
    sim = _run("- {at: 12, action: setNodeCondition, node: n2, status: Unknown}\n", until=3600.0)
    assert _taint_changes(sim) == [
        (65.0, "n2", "taint node.kubernetes.io/unreachable:NoSchedule added"),
        (65.0, "n2", "taint node.kubernetes.io/unreachable:NoExecute added"),
    ]
    conditions = [e for e in sim.sink.events if e["type"] == "node_lifecycle" and "Ready=Unknown" in e["change"]]
    assert [(e["time"], e["by"]) for e in conditions] == [(65.0, "node-lifecycle-controller")]
    assert "NodeStatusUnknown: Kubelet stopped posting node status." in conditions[0]["change"]
    assert {p["name"]: p["deletedAt"] for p in sim.result(True)["pods"]} == {"web": None, "db": 365.0}
    node = next(n for n in sim.view()["nodes"] if n["name"] == "n2")
    assert node["conditions"]["Ready"] == "Unknown"


def test_recovering_before_the_grace_period_changes_nothing_and_recovery_lifts_the_taints() -> None:
    early = _run("- {at: 12, action: setNodeCondition, node: n2, status: Unknown}\n"
                 "- {at: 40, action: setNodeCondition, node: n2, status: 'True'}\n")
    assert _taint_changes(early) == []
    late = _run("- {at: 12, action: setNodeCondition, node: n1, status: 'False'}\n"
                "- {at: 100, action: setNodeCondition, node: n1, status: 'True'}\n")
    assert _taint_changes(late)[2:] == [
        (100.0, "n1", "taint node.kubernetes.io/not-ready:NoSchedule removed"),
        (100.0, "n1", "taint node.kubernetes.io/not-ready:NoExecute removed"),
    ]
    assert {p["name"]: p["deletedAt"] for p in late.result(True)["pods"]} == {"web": None, "db": None}
    reasons = [e["reason"] for e in late.sink.events if e["type"] == "k8s_event" and e.get("kind") == "Node"]
    assert reasons == ["NodeNotReady", "NodeReady"]


def test_an_unreachable_node_that_reports_not_ready_swaps_its_noexecute_taint() -> None:
    sim = _run("- {at: 0, action: setNodeCondition, node: n1, status: Unknown}\n"
               "- {at: 70, action: setNodeCondition, node: n1, status: 'False'}\n")
    assert _taint_changes(sim) == [
        (55.0, "n1", "taint node.kubernetes.io/unreachable:NoSchedule added"),
        (55.0, "n1", "taint node.kubernetes.io/unreachable:NoExecute added"),
        (70.0, "n1", "taint node.kubernetes.io/not-ready:NoSchedule added"),
        (70.0, "n1", "taint node.kubernetes.io/unreachable:NoSchedule removed"),
        (70.0, "n1", "taint node.kubernetes.io/not-ready:NoExecute added"),
        (70.0, "n1", "taint node.kubernetes.io/unreachable:NoExecute removed"),
    ]


@pytest.mark.parametrize(("action", "field", "why"), [
    ("{at: 1, action: setNodeCondition, node: n1, status: Maybe}", "status", 'Unsupported value: "Maybe"'),
    ("{at: 1, action: setNodeCondition, node: n1, type: DiskPressure, status: 'True'}", "type", "Unsupported"),
    ("{at: 1, action: setNodeCondition, node: n9, status: 'False'}", "node", 'node "n9" does not exist'),
])
def test_bad_condition_actions_are_refused_with_their_field(action: str, field: str, why: str) -> None:
    with pytest.raises(ScenarioError, match=rf"actions\[0\]\.{field}.*{why}"):
        load_scenario_text(NODES + f"- {action}\n", source="t")
