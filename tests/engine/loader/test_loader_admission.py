"""Priority admission and the disruption controller's PDB status at time 0."""

import pytest
from helpers import NODE, load, pod

from scheduler_core.api.errors import ScenarioError


def pc(name: str, value: int, extra: str = "") -> str:
    return (f"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {{name: {name}}}\n"
            f"value: {value}\n{extra}")


def test_class_resolves_value_and_policy():
    sc = load(pc("low", 10), pc("vip", 1000, "preemptionPolicy: Never\n"), NODE,
              pod("priorityClassName: low\n", name="a"), pod("priorityClassName: vip\n", name="b"))
    a, b = sc.pods
    assert (a.priority, a.preemption_policy, a.priority_class_name) == (10, "PreemptLowerPriority",
                                                                       "low")
    assert (b.priority, b.preemption_policy) == (1000, "Never")


def test_classes_may_come_after_pods():
    sc = load(NODE, pod("priorityClassName: late\n"), pc("late", 7))
    assert sc.pods[0].priority == 7


def test_global_default_applies_and_sets_class_name():
    sc = load(pc("std", 100, "globalDefault: true\npreemptionPolicy: Never\n"), NODE, pod())
    p = sc.pods[0]
    assert (p.priority, p.priority_class_name, p.preemption_policy) == (100, "std", "Never")


def test_no_class_no_default_gives_zero():
    sc = load(pc("x", 5), NODE, pod())
    assert (sc.pods[0].priority, sc.pods[0].priority_class_name) == (0, "")


def test_system_classes_are_built_in():
    sc = load(NODE, pod("priorityClassName: system-node-critical\n", name="a"),
              pod("priorityClassName: system-cluster-critical\n", name="b"))
    assert [p.priority for p in sc.pods] == [2000001000, 2000000000]
    assert sc.priority_classes == []


def test_redeclaring_a_system_class_identically_is_a_no_op():
    sc = load(pc("system-node-critical", 2000001000), NODE)
    assert sc.priority_classes == []


def test_explicit_priority_matching_class_is_accepted():
    sc = load(pc("low", 10), NODE, pod("priorityClassName: low\npriority: 10\n"))
    assert sc.pods[0].priority == 10


def test_explicit_priority_conflicting_with_class_is_rejected():
    with pytest.raises(ScenarioError) as info:
        load(pc("low", 10), NODE, pod("priorityClassName: low\npriority: 11\n"))
    e = info.value
    assert (e.document, e.kind, e.name, e.field) == (3, "Pod", "default/p", "spec.priority")
    assert "the integer value of priority (11) must not be provided" in e.reason
    assert "computed 10" in e.reason


def test_explicit_priority_conflicting_with_global_default_is_rejected():
    with pytest.raises(ScenarioError, match="computed 100"):
        load(pc("std", 100, "globalDefault: true\n"), NODE,
             pod("priorityClassName: std\npriority: 5\n"))


def test_explicit_priority_without_class_is_kept():
    # The recordings' API server kept spec.priority for class-less pods (see v21 case).
    sc = load(pc("std", 100, "globalDefault: true\n"), NODE, pod("priority: 5\n"))
    p = sc.pods[0]
    assert (p.priority, p.priority_class_name) == (5, "")


def test_pod_preemption_policy_conflicting_with_class_is_rejected():
    with pytest.raises(ScenarioError) as info:
        load(pc("low", 10), NODE, pod("priorityClassName: low\npreemptionPolicy: Never\n"))
    assert info.value.field == "spec.preemptionPolicy"
    assert "PreemptionPolicy (Never) must not be provided" in info.value.reason


def test_pod_preemption_policy_matching_class_is_accepted():
    sc = load(pc("nv", 10, "preemptionPolicy: Never\n"), NODE,
              pod("priorityClassName: nv\npreemptionPolicy: Never\n"))
    assert sc.pods[0].preemption_policy == "Never"


def test_pod_preemption_policy_without_any_class_is_kept():
    sc = load(NODE, pod("preemptionPolicy: Never\n"))
    assert sc.pods[0].preemption_policy == "Never"


def pdb(spec: str, name: str = "b", ns: str = "") -> str:
    meta = f"{{name: {name}{', namespace: ' + ns if ns else ''}}}"
    return f"apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {meta}\nspec: {spec}\n"


def guarded(name: str, bound: bool = True, app: str = "g", ns: str = "") -> str:
    meta = f"labels: {{app: {app}}}" + (f", namespace: {ns}" if ns else "")
    return pod("nodeName: n1\n" if bound else "", name=name, meta=meta)


@pytest.mark.parametrize("spec,expected", [
    ("{selector: {matchLabels: {app: g}}, minAvailable: 1}", 2),   # 3 healthy - 1
    ("{selector: {matchLabels: {app: g}}, minAvailable: 3}", 0),   # 3 - 3
    ("{selector: {matchLabels: {app: g}}, minAvailable: 5}", 0),   # floored at 0
    ("{selector: {matchLabels: {app: g}}, minAvailable: 0}", 3),
    ("{selector: {matchLabels: {app: g}}, minAvailable: 50%}", 0),  # needs a controller
    ("{selector: {matchLabels: {app: g}}, maxUnavailable: 1}", 0),  # needs a controller
    ("{selector: {matchLabels: {app: g}}, maxUnavailable: 50%}", 0),
    ("{selector: {matchLabels: {app: g}}}", 0),                     # neither set
    ("{selector: {matchLabels: {app: none}}, minAvailable: 0}", 0),  # no pods: expectedCount 0
    ("{minAvailable: 0}", 0),                                        # nil selector: no pods
    ("{selector: {}, minAvailable: 1}", 2),                          # empty selector: all pods
])
def test_pdb_disruptions_allowed(spec, expected):
    sc = load(NODE, guarded("g1"), guarded("g2"), guarded("g3"), guarded("pending", bound=False),
              guarded("other-ns", ns="elsewhere"), pod(name="unlabelled", spec="nodeName: n1\n")
              if "selector: {}" not in spec else "", pdb(spec))
    assert sc.pdbs[0].disruptions_allowed == expected


def test_pdb_counts_only_its_namespace_and_bound_pods():
    sc = load(NODE, guarded("a", ns="x"), guarded("b", ns="x"), guarded("c", ns="x", bound=False),
              guarded("d"), pdb("{selector: {matchLabels: {app: g}}, minAvailable: 1}", ns="x"))
    assert sc.pdbs[0].disruptions_allowed == 1


def test_pdb_fields():
    sc = load(NODE, pdb("{selector: {matchLabels: {app: g}}, maxUnavailable: 25%}"))
    b = sc.pdbs[0]
    assert (b.namespace, b.name, b.max_unavailable, b.min_available) == ("default", "b", "25%", None)
    assert b.selector.match_labels == {"app": "g"}
