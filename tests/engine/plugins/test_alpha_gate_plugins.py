"""The v1.35 alpha scheduler paths behind gates: NodeDeclaredFeatures and the taint toleration
comparison operators (Gt/Lt), each off by default."""

from __future__ import annotations

import pytest

from scheduler_core.api.types import Taint, Toleration
from scheduler_core.loader import load_scenario_text
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


# ---- TaintTolerationComparisonOperators beyond TaintToleration -----------------------------------
def _zone_node(name: str, zone: str, taints: str = "") -> str:
    spec = f"spec: {{taints: [{taints}]}}\n" if taints else ""
    return (f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}, "
            f"zone: {zone}}}}}\n{spec}status: {{allocatable: {{cpu: '8', pods: '20'}}}}\n")


def _bound(name: str, node: str) -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, labels: {{app: x}}}}\n"
            f"spec: {{nodeName: {node}, containers: [{{name: c, image: x}}]}}\n")


SPREAD_POD = """apiVersion: v1
kind: Pod
metadata: {name: spread, labels: {app: x}}
spec:
  tolerations: [{key: sla, operator: Gt, value: "300", effect: NoSchedule}]
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: NotIn, values: [a]}]}]
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: x}},
     nodeAffinityPolicy: Ignore, nodeTaintsPolicy: Honor}
  containers: [{name: c, image: x}]
"""


def test_spread_node_taints_policy_honor_counts_gt_tolerated_nodes_only_with_the_gate() -> None:
    # a1 (zone a, empty) carries sla=500: the pod may never go there (its node affinity), but with
    # nodeTaintsPolicy Honor zone a is a spread domain exactly when the pod tolerates the taint.
    docs = "---\n".join([_zone_node("a1", "a", "{key: sla, value: '500', effect: NoSchedule}"),
                         _zone_node("b1", "b"), _zone_node("c1", "c"),
                         _bound("x1", "b1"), _bound("x2", "c1"), SPREAD_POD])
    on = _pods(docs, "TaintTolerationComparisonOperators=true")["spread"]
    # zone a counts (0 pods): b and c would reach skew 2.
    assert on["status"] == "Pending"
    assert "2 node(s) didn't match pod topology spread constraints" in on["message"]
    off = _pods(docs, "")["spread"]
    # Gt tolerates nothing without the gate: zone a is no domain, b or c is fine.
    assert off["status"] == "Bound" and off["node"] in ("b1", "c1")


def test_no_execute_eviction_uses_gt_lt_only_with_the_gate() -> None:
    from scheduler_core.controllers import TaintEvictionController, get_matching_tolerations

    taint = Taint(key="sla", value="500", effect="NoExecute")
    gt = Toleration(key="sla", operator="Gt", value="300", effect="NoExecute", toleration_seconds=60)
    assert get_matching_tolerations([taint], [gt], True) == (True, [gt])
    assert get_matching_tolerations([taint], [gt]) == (False, [])
    from scheduler_core.api.types import Node, Pod

    for flag, due in ((True, 60.0), (False, 0.0)):
        tc = TaintEvictionController(comparison_operators=flag)
        p = Pod(name="p", namespace="default", node_name="n1", tolerations=[gt])
        tc.node_updated(None, Node(name="n1", taints=[taint]), [p], 0.0)
        assert tc.next_fire_time() == due


def test_no_execute_eviction_in_a_run_follows_the_gate() -> None:
    text = """apiVersion: v1
kind: Node
metadata: {name: n1}
spec: {taints: [{key: sla, value: "500", effect: NoExecute}]}
status: {allocatable: {cpu: "2"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  nodeName: n1
  tolerations: [{key: sla, operator: Gt, value: "300", effect: NoExecute}]
  containers: [{name: c, image: x}]
"""
    assert _pods(text, "TaintTolerationComparisonOperators=true")["p"]["status"] == "Bound"
    assert _pods(text, "")["p"]["status"] == "Deleted"


# ---- PodTopologySpread's beta gates (on by default) ------------------------------------------------
def _run(text: str, gates: str = "", version: str | None = None) -> dict[str, dict]:
    sim = Simulation(load_scenario_text(text), feature_gates=gates, kubernetes_version=version)
    sim.run()
    return {p["name"]: p for p in sim.result(True)["pods"]}


def test_node_inclusion_policies_are_defaulted_without_their_gate_at_v130() -> None:
    # Zone a's only node is tainted and the pod does not tolerate it: with nodeTaintsPolicy Honor
    # zone a is no domain; with the gate off the policy is Ignore and zone a (0 pods) counts.
    docs = "---\n".join([_zone_node("a1", "a", "{key: k, value: v, effect: NoSchedule}"),
                         _zone_node("b1", "b"), _bound("x1", "b1"),
                         """apiVersion: v1
kind: Pod
metadata: {name: spread, labels: {app: x}}
spec:
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: x}},
     nodeTaintsPolicy: Honor}
  containers: [{name: c, image: x}]
"""])
    assert _run(docs, version="v1.30")["spread"]["node"] == "b1"
    off = _run(docs, "NodeInclusionPolicyInPodTopologySpread=false", version="v1.30")["spread"]
    assert off["status"] == "Pending"
    from scheduler_core.featuregate import FeatureGateError
    with pytest.raises(FeatureGateError, match="locked to true"):
        _run(docs, "NodeInclusionPolicyInPodTopologySpread=false")
