"""The v1.35 alpha scheduler paths behind gates: NodeDeclaredFeatures and the taint toleration
comparison operators (Gt/Lt), each off by default."""

from __future__ import annotations

import pytest

from scheduler_core.api.loader import load_scenario_text
from scheduler_core.api.types import Taint, Toleration
from scheduler_core.simulation import Simulation

FEATURE_POD = """apiVersion: v1
kind: Pod
metadata: {name: needs}
spec:
  containers:
  - name: c
    image: x
    restartPolicy: Never
    restartPolicyRules: [{action: RestartAllContainers, exitCodes: {operator: In, values: [42]}}]
"""
NODES = """apiVersion: v1
kind: Node
metadata: {name: a}
status: {allocatable: {cpu: "2"}, declaredFeatures: [RestartAllContainersOnContainerExits]}
---
apiVersion: v1
kind: Node
metadata: {name: b}
status: {allocatable: {cpu: "8"}}
"""


def _pods(text: str, gates: str) -> dict[str, dict]:
    sim = Simulation(load_scenario_text(text), feature_gates=gates)
    sim.run()
    return {p["name"]: p for p in sim.result(True)["pods"]}


def test_node_declared_features_filters_nodes_only_with_its_gate() -> None:
    on = _pods(NODES + "---\n" + FEATURE_POD, "NodeDeclaredFeatures=true")["needs"]
    assert (on["status"], on["node"]) == ("Bound", "a")
    # Off (the default), the requirement is not checked: b, with more room, wins.
    off = _pods(NODES + "---\n" + FEATURE_POD, "")["needs"]
    assert (off["status"], off["node"]) == ("Bound", "b")


def test_node_without_the_feature_is_unresolvable() -> None:
    nodes = NODES.replace("declaredFeatures: [RestartAllContainersOnContainerExits]", "declaredFeatures: []")
    p = _pods(nodes + "---\n" + FEATURE_POD, "NodeDeclaredFeatures=true")["needs"]
    assert p["status"] == "Pending"
    assert p["message"].startswith("0/2 nodes are available: 2 node declared features check failed - "
                                   "unsatisfied requirements: RestartAllContainersOnContainerExits.")
    assert "2 Preemption is not helpful for scheduling" in p["message"]


@pytest.mark.parametrize(("op", "tol", "taint", "want"), [
    ("Gt", "300", "500", True), ("Gt", "300", "300", False), ("Lt", "300", "100", True),
    ("Lt", "300", "gold", False), ("Gt", "x", "5", False), ("Gt", "-5", "-1", True),
    ("Lt", "10", "010", False),  # a leading zero is not a decimal integer
])
def test_comparison_operators(op: str, tol: str, taint: str, want: bool) -> None:
    t = Toleration(key="sla", operator=op, value=tol, effect="NoSchedule")
    tn = Taint(key="sla", value=taint, effect="NoSchedule")
    assert t.tolerates_taint_with(tn, True) is want
    assert t.tolerates_taint(tn) is False  # gate off: Gt/Lt tolerate nothing


def test_comparison_operators_gate_decides_the_run() -> None:
    text = """apiVersion: v1
kind: Node
metadata: {name: n1}
spec: {taints: [{key: sla, value: "500", effect: NoSchedule}]}
status: {allocatable: {cpu: "2"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  tolerations: [{key: sla, operator: Gt, value: "300", effect: NoSchedule}]
  containers: [{name: c, image: x}]
"""
    assert _pods(text, "TaintTolerationComparisonOperators=true")["p"]["status"] == "Bound"
    assert _pods(text, "")["p"]["status"] == "Pending"
