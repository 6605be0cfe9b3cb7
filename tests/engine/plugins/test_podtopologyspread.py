"""PodTopologySpread, table-driven from upstream's filtering_test.go / scoring_test.go semantics."""

from __future__ import annotations

import pytest

from scheduler_core.api.types import LABEL_HOSTNAME, Taint, Toleration, WorkloadSelector
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import PluginArgsError
from scheduler_core.framework.plugins.helper.spread import Selector, default_selector
from scheduler_core.framework.plugins.podtopologyspread import PodTopologySpread
from scheduler_core.framework.plugins.podtopologyspread.filtering import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    PRE_FILTER_STATE_KEY,
)
from scheduler_core.framework.status import Code
from scheduler_core.framework.types import NodeScore, PodInfo, QueueingHint
from tests.engine.plugins.fakes import (
    FakeCluster,
    FakeHandle,
    FakeSnapshot,
    exists,
    make_node,
    make_pod,
    match_labels,
    node_affinity_in,
    tsc,
)

S, U, UU = Code.SUCCESS, Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def zn(name, zone, **extra):
    labels = {"zone": zone, "node": name}
    labels.update(extra)
    return make_node(name, labels)


FOUR = [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2"), zn("node-y", "zone2")]


def foo_pods(spec: str, label: str = "foo"):
    """'a2 b1 y3' -> two pods on node-a, one on node-b, three on node-y, all labelled foo."""
    pods = []
    for part in spec.split():
        node, n = part[0], int(part[1:])
        for i in range(n):
            pods.append(make_pod(f"p-{node}{i}", node=f"node-{node}", labels={label: ""}))
    return pods


def plugin_for(pods, nodes, args=None, cluster=None):
    snap = FakeSnapshot(pods, nodes)
    return PodTopologySpread(args, FakeHandle(snap, cluster)), snap


def run_filter(pod, pods, nodes, args=None, cluster=None):
    pl, snap = plugin_for(pods, nodes, args, cluster)
    state = CycleState()
    _, st = pl.pre_filter(state, pod, snap.list())
    assert st is None, st
    out = {}
    for ni in snap.list():
        s = pl.filter(state, pod, ni)
        out[ni.name] = S if s is None else s.code
    return out


def code_map(spec: str):
    return {f"node-{k[0]}": {"S": S, "U": U, "X": UU}[k[2:]] for k in spec.split()}


# ---- PreFilter state ----------------------------------------------------------------------------

PREFILTER_CASES = [
    ("clean cluster", make_pod("p", labels={"foo": ""}, spread=[tsc(5, "zone", selector=match_labels(foo="bar"))]),
     [], FOUR, [{"zone1": 0, "zone2": 0}], [0]),
    ("normal one constraint", make_pod("p", labels={"foo": ""}, spread=[tsc(1, "zone", selector=exists("foo"))]),
     foo_pods("a2 b1 y2"), FOUR, [{"zone1": 3, "zone2": 2}], [2]),
    ("null selector matches nothing", make_pod("p", labels={"foo": ""}, spread=[tsc(1, "zone", selector=None)]),
     foo_pods("a2 b1 y2"), FOUR, [{"zone1": 0, "zone2": 0}], [0]),
    ("3-zone cluster", make_pod("p", labels={"foo": ""}, spread=[tsc(1, "zone", selector=exists("foo"))]),
     foo_pods("a2 b1 y2"), FOUR + [zn("node-o", "zone3"), zn("node-p", "zone3")],
     [{"zone1": 3, "zone2": 2, "zone3": 0}], [0]),
    ("namespace mismatch doesn't count",
     make_pod("p", labels={"foo": ""}, spread=[tsc(1, "zone", selector=exists("foo"))]),
     [make_pod("a1", node="node-a", labels={"foo": ""}), make_pod("a2", ns="ns1", node="node-a", labels={"foo": ""}),
      make_pod("b1", node="node-b", labels={"foo": ""}), make_pod("y1", ns="ns2", node="node-y", labels={"foo": ""}),
      make_pod("y2", node="node-y", labels={"foo": ""})],
     FOUR, [{"zone1": 2, "zone2": 1}], [1]),
    ("two constraints; soft ones bypassed",
     make_pod("p", labels={"foo": ""}, spread=[
         tsc(1, "zone", "ScheduleAnyway", exists("foo")), tsc(1, "zone", selector=exists("foo")),
         tsc(1, "node", "ScheduleAnyway", exists("foo")), tsc(1, "node", selector=exists("foo"))]),
     foo_pods("a2 b1 y4"), FOUR, [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}],
     [3, 0]),
    ("incoming pod's node affinity limits domains (Honor default)",
     make_pod("p", labels={"foo": ""}, affinity=node_affinity_in("node", "node-a", "node-y"),
              spread=[tsc(1, "node", selector=exists("foo"))]),
     foo_pods("a2 b1 y3"), FOUR, [{"node-a": 2, "node-y": 3}], [2]),
    ("nodeAffinityPolicy Ignore counts every node",
     make_pod("p", labels={"foo": ""}, node_selector={"zone": "zone1"},
              spread=[tsc(1, "zone", selector=exists("foo"), node_affinity_policy="Ignore")]),
     foo_pods("a2 b1 y3"), FOUR, [{"zone1": 3, "zone2": 3}], [3]),
    ("nodeSelector honoured by default",
     make_pod("p", labels={"foo": ""}, node_selector={"zone": "zone1"}, spread=[tsc(1, "zone", selector=exists("foo"))]),
     foo_pods("a2 b1 y3"), FOUR, [{"zone1": 3}], [3]),
    ("terminating pods excluded",
     make_pod("p", labels={"foo": ""}, spread=[tsc(1, "node", selector=exists("foo"))]),
     [make_pod("pa", node="node-a", labels={"foo": ""}, terminating=True),
      make_pod("pb", node="node-b", labels={"foo": ""})],
     [make_node("node-a", {"node": "node-a"}), make_node("node-b", {"node": "node-b"})],
     [{"node-a": 0, "node-b": 1}], [0]),
    ("node missing the key is no domain; empty value is one",
     make_pod("p", labels={"foo": ""}, spread=[tsc(1, "zone", selector=exists("foo"))]),
     foo_pods("a1 b1 x1"), [zn("node-a", "zone1"), make_node("node-b", {"node": "node-b"}), zn("node-x", "")],
     [{"zone1": 1, "": 1}], [1]),
    ("empty selector counts nothing (upstream Empty() shortcut)",
     make_pod("p", labels={"foo": ""}, spread=[tsc(1, "zone", selector=match_labels())]),
     foo_pods("a2 b1 y2"), FOUR, [{"zone1": 0, "zone2": 0}], [0]),
]


@pytest.mark.parametrize("name,pod,pods,nodes,want_counts,want_min", PREFILTER_CASES,
                         ids=[c[0] for c in PREFILTER_CASES])
def test_pre_filter_state(name, pod, pods, nodes, want_counts, want_min):
    pl, snap = plugin_for(pods, nodes)
    state = CycleState()
    _, st = pl.pre_filter(state, pod, snap.list())
    assert st is None
    s = state.read(PRE_FILTER_STATE_KEY)
    assert s.tp_value_to_match_num == want_counts
    assert [p.n0 for p in s.critical_paths] == want_min


def test_pre_filter_skips_without_constraints():
    pl, snap = plugin_for([], FOUR, args={"defaultingType": "List"})
    _, st = pl.pre_filter(CycleState(), make_pod("p"), snap.list())
    assert st is not None and st.code == Code.SKIP


def test_pre_filter_node_taints_policy_honor():
    taint = Taint("k", "v", "NoSchedule")
    nodes = [zn("node-a", "zone1"), make_node("node-b", {"zone": "zone2", "node": "node-b"}, [taint])]
    pod = make_pod("p", labels={"foo": ""}, spread=[tsc(1, "zone", selector=exists("foo"), node_taints_policy="Honor")])
    pl, snap = plugin_for(foo_pods("a1"), nodes)
    state = CycleState()
    pl.pre_filter(state, pod, snap.list())
    assert state.read(PRE_FILTER_STATE_KEY).tp_value_to_match_num == [{"zone1": 1}]
    tolerating = make_pod("p", labels={"foo": ""}, tolerations=[Toleration("k", "Exists")],
                          spread=[tsc(1, "zone", selector=exists("foo"), node_taints_policy="Honor")])
    state = CycleState()
    pl.pre_filter(state, tolerating, snap.list())
    assert state.read(PRE_FILTER_STATE_KEY).tp_value_to_match_num == [{"zone1": 1, "zone2": 0}]
    # Ignore (default): the tainted node's domain counts.
    state = CycleState()
    pl.pre_filter(state, make_pod("p", labels={"foo": ""}, spread=[tsc(1, "zone", selector=exists("foo"))]),
                  snap.list())
    assert state.read(PRE_FILTER_STATE_KEY).tp_value_to_match_num == [{"zone1": 1, "zone2": 0}]


def test_match_label_keys_merge_into_selector():
    pods = [make_pod("a1", node="node-a", labels={"foo": "", "rev": "1"}),
            make_pod("a2", node="node-a", labels={"foo": "", "rev": "1"}),
            make_pod("x1", node="node-x", labels={"foo": "", "rev": "2"})]
    pod = make_pod("p", labels={"foo": "", "rev": "2"},
                   spread=[tsc(1, "zone", selector=exists("foo"), match_label_keys=["rev", "absent"])])
    pl, snap = plugin_for(pods, FOUR)
    state = CycleState()
    pl.pre_filter(state, pod, snap.list())
    assert state.read(PRE_FILTER_STATE_KEY).tp_value_to_match_num == [{"zone1": 0, "zone2": 1}]


# ---- Filter ---------------------------------------------------------------------------------------

FILTER_CASES = [
    ("no existing pods", make_pod("p", labels={"foo": ""}, spread=[tsc(1, "zone", selector=exists("foo"))]),
     [], FOUR, "a:S b:S x:S y:S"),
    ("incoming pod doesn't match itself", make_pod("p", labels={"foo": ""}, spread=[tsc(1, "zone", selector=exists("bar"))]),
     [], FOUR, "a:S b:S x:S y:S"),
    ("other namespaces don't count", make_pod("p", labels={"foo": ""}, spread=[tsc(1, "zone", selector=exists("foo"))]),
     [make_pod("a1", ns="ns1", node="node-a", labels={"foo": ""}), make_pod("b1", ns="ns2", node="node-a", labels={"foo": ""}),
      make_pod("x1", node="node-x", labels={"foo": ""}), make_pod("y1", node="node-y", labels={"foo": ""})],
     FOUR, "a:S b:S x:U y:U"),
    ("3/3 all fit", make_pod("p", labels={"foo": ""}, spread=[tsc(1, "zone", selector=exists("foo"))]),
     foo_pods("a2 b1 y3"), FOUR, "a:S b:S x:S y:S"),
    ("node-b lacks zone label", make_pod("p", labels={"foo": ""}, spread=[tsc(1, "zone", selector=exists("foo"))]),
     foo_pods("a1 b1 x1 y1"),
     [zn("node-a", "zone1"), make_node("node-b", {"zon": "zone1", "node": "node-b"}), zn("node-x", "zone2"),
      zn("node-y", "zone2")], "a:S b:X x:U y:U"),
    ("no node has rack", make_pod("p", labels={"foo": ""}, spread=[tsc(1, "rack", selector=exists("foo"))]),
     [], [zn("node-a", "zone1"), zn("node-x", "zone2")], "a:X x:X"),
    ("2/1/0/3 only node-x", make_pod("p", labels={"foo": ""}, spread=[tsc(1, "node", selector=exists("foo"))]),
     foo_pods("a2 b1 y3"), FOUR, "a:U b:U x:S y:U"),
    ("2/1/0/3 maxSkew 2", make_pod("p", labels={"foo": ""}, spread=[tsc(2, "node", selector=exists("foo"))]),
     foo_pods("a2 b1 y3"), FOUR, "a:U b:S x:S y:U"),
    ("2/1/0/3 pod doesn't match itself", make_pod("p", labels={"bar": ""}, spread=[tsc(1, "node", selector=exists("foo"))]),
     foo_pods("a2 b1 y3"), FOUR, "a:U b:S x:S y:U"),
    ("node affinity: 2/~1~/~0~/3, node-a fits",
     make_pod("p", labels={"foo": ""}, affinity=node_affinity_in("node", "node-a", "node-y"),
              spread=[tsc(1, "node", selector=exists("foo"))]),
     foo_pods("a2 b1 y3"), FOUR, "a:S b:S x:S y:U"),
    ("terminating pods excluded", make_pod("p", labels={"foo": ""}, spread=[tsc(1, "node", selector=exists("foo"))]),
     [make_pod("pa", node="node-a", labels={"foo": ""}, terminating=True),
      make_pod("pb", node="node-b", labels={"foo": ""})],
     [make_node("node-a", {"node": "node-a"}), make_node("node-b", {"node": "node-b"})], "a:S b:U"),
    ("two constraints [3/3, 2/1/0/3]", make_pod("p", labels={"foo": ""}, spread=[
        tsc(1, "zone", selector=exists("foo")), tsc(1, "node", selector=exists("foo"))]),
     foo_pods("a2 b1 y3"), FOUR, "a:U b:U x:S y:U"),
    ("two constraints [3/4, 2/1/0/4]: nothing fits", make_pod("p", labels={"foo": ""}, spread=[
        tsc(1, "zone", selector=exists("foo")), tsc(1, "node", selector=exists("foo"))]),
     foo_pods("a2 b1 y4"), FOUR, "a:U b:U x:U y:U"),
    ("two constraints with different selectors", make_pod("p", labels={"foo": "", "bar": ""}, spread=[
        tsc(1, "zone", selector=exists("foo")), tsc(1, "node", selector=exists("bar"))]),
     foo_pods("a1") + foo_pods("b1", "bar"), [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-y", "zone2")],
     "a:U b:U y:S"),
    ("minDomains 3 > 2 domains: global minimum 0",
     make_pod("p", labels={"foo": ""}, spread=[tsc(2, "zone", selector=exists("foo"), min_domains=3)]),
     foo_pods("a1 b1 x1"), FOUR, "a:U b:U x:S y:S"),
    ("minDomains 2 satisfied: global minimum is real",
     make_pod("p", labels={"foo": ""}, spread=[tsc(2, "zone", selector=exists("foo"), min_domains=2)]),
     foo_pods("a1 b1 x1"), FOUR, "a:S b:S x:S y:S"),
    ("empty topology value is a domain of its own",
     make_pod("p", labels={"foo": ""}, spread=[tsc(1, "zone", selector=exists("foo"))]),
     foo_pods("a1"), [zn("node-a", "zone1"), zn("node-b", "")], "a:U b:S"),
    ("nodeTaintsPolicy Honor: untolerated tainted domain excluded from minimum",
     make_pod("p", labels={"foo": ""}, spread=[tsc(1, "zone", selector=exists("foo"), node_taints_policy="Honor")]),
     foo_pods("a1"), [zn("node-a", "zone1"), make_node("node-b", {"zone": "zone2", "node": "node-b"},
                                                      [Taint("k", "", "NoSchedule")])], "a:S b:S"),
    ("nodeTaintsPolicy Ignore: tainted domain keeps the minimum at 0",
     make_pod("p", labels={"foo": ""}, spread=[tsc(1, "zone", selector=exists("foo"))]),
     foo_pods("a1"), [zn("node-a", "zone1"), make_node("node-b", {"zone": "zone2", "node": "node-b"},
                                                      [Taint("k", "", "NoSchedule")])], "a:U b:S"),
]


@pytest.mark.parametrize("name,pod,pods,nodes,want", FILTER_CASES, ids=[c[0] for c in FILTER_CASES])
def test_filter(name, pod, pods, nodes, want):
    assert run_filter(pod, pods, nodes) == code_map(want)


def test_filter_reasons():
    pod = make_pod("p", labels={"foo": ""}, spread=[tsc(1, "zone", selector=exists("foo"))])
    nodes = [zn("node-a", "zone1"), make_node("node-b", {}), zn("node-x", "zone2")]
    pl, snap = plugin_for(foo_pods("a1"), nodes)
    state = CycleState()
    pl.pre_filter(state, pod, snap.list())
    st_a = pl.filter(state, pod, snap.get("node-a"))
    st_b = pl.filter(state, pod, snap.get("node-b"))
    assert st_a.reasons == [ERR_REASON_CONSTRAINTS_NOT_MATCH] and st_a.code == U
    assert st_b.reasons == [ERR_REASON_NODE_LABEL_NOT_MATCH] and st_b.code == UU
    assert st_b.reasons == ["node(s) didn't match pod topology spread constraints (missing required label)"]


def test_add_remove_pod_and_clone():
    pod = make_pod("p", labels={"foo": ""}, spread=[tsc(1, "zone", selector=exists("foo"))])
    pl, snap = plugin_for(foo_pods("a1 x1"), FOUR)
    state = CycleState()
    pl.pre_filter(state, pod, snap.list())
    assert pl.filter(state, pod, snap.get("node-a")) is None
    cloned = state.clone()
    # A nominated pod on node-x (zone2): zone2=2 -> zone1 still fits, zone2 doesn't.
    nominated = PodInfo(make_pod("nom", labels={"foo": ""}))
    assert pl.add_pod(cloned, pod, nominated, snap.get("node-x")) is None
    assert pl.filter(cloned, pod, snap.get("node-a")) is None
    assert pl.filter(cloned, pod, snap.get("node-y")).code == U
    # The original state is untouched.
    assert pl.filter(state, pod, snap.get("node-y")) is None
    # Other namespace / non-matching pods are ignored.
    pl.add_pod(state, pod, PodInfo(make_pod("o", ns="other", labels={"foo": ""})), snap.get("node-x"))
    pl.add_pod(state, pod, PodInfo(make_pod("o2", labels={"bar": ""})), snap.get("node-x"))
    assert pl.filter(state, pod, snap.get("node-y")) is None
    # Removing zone1's pod (preemption dry run): zone1=0, zone2=1 -> zone2 (skew 2) rejected.
    victim = snap.get("node-a").pods[0]
    pl.remove_pod(state, pod, victim, snap.get("node-a"))
    assert pl.filter(state, pod, snap.get("node-x")).code == U
    assert pl.filter(state, pod, snap.get("node-a")) is None


# ---- System default constraints ------------------------------------------------------------------

def test_default_constraints_list_do_not_schedule_with_service():
    args = {"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": "node", "whenUnsatisfiable": "DoNotSchedule"}]}
    svc = WorkloadSelector("Service", "svc", selector=match_labels(foo=""))
    pod = make_pod("p", labels={"foo": ""})
    got = run_filter(pod, foo_pods("a2 b1 y3"), FOUR, args=args, cluster=FakeCluster(workloads=[svc]))
    assert got == code_map("a:U b:U x:S y:U")
    # Without a Service selecting the pod, no default constraints apply.
    pl, snap = plugin_for(foo_pods("a2 b1 y3"), FOUR, args)
    _, st = pl.pre_filter(CycleState(), pod, snap.list())
    assert st.code == Code.SKIP
    # A Service in another namespace doesn't select the pod either.
    other = WorkloadSelector("Service", "svc", namespace="other", selector=match_labels(foo=""))
    pl, snap = plugin_for(foo_pods("a2"), FOUR, args, FakeCluster(workloads=[other]))
    assert pl.pre_filter(CycleState(), pod, snap.list())[1].code == Code.SKIP


def test_default_selector():
    pod = make_pod("p", labels={"app": "web", "tier": "fe"})
    svc1 = WorkloadSelector("Service", "a", selector=match_labels(app="web"))
    svc2 = WorkloadSelector("Service", "b", selector=match_labels(tier="fe"))
    nomatch = WorkloadSelector("Service", "c", selector=match_labels(app="db"))
    nil_sel = WorkloadSelector("Service", "d", selector=None)
    rs = WorkloadSelector("ReplicaSet", "rs", selector=exists("app"))
    sel = default_selector(pod, [svc1, svc2, nomatch, nil_sel, rs])
    assert sel == Selector.from_set({"app": "web", "tier": "fe"})
    # A ReplicaSet counts only when it controls the pod.
    assert default_selector(pod, [rs]).empty()
    pod.owner_references = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "controller": True}]
    sel = default_selector(pod, [svc1, rs])
    assert sel.matches({"app": "web"}) and not sel.matches({"app": "db"}) and not sel.matches({"tier": "fe"})


def test_system_defaults_args():
    pl = PodTopologySpread(None, FakeHandle())
    assert pl.system_defaulted
    assert [(c.topology_key, c.max_skew, c.when_unsatisfiable) for c in pl.default_constraints] == [
        (LABEL_HOSTNAME, 3, "ScheduleAnyway"), ("topology.kubernetes.io/zone", 5, "ScheduleAnyway")]


@pytest.mark.parametrize("args,fragment", [
    ({"defaultConstraints": [{"maxSkew": 1, "topologyKey": "z", "whenUnsatisfiable": "DoNotSchedule"}]},
     'defaultingType: Invalid value: "System": when .defaultConstraints are not empty'),
    ({"defaultingType": "Foo"}, "defaultingType: Unsupported value"),
    ({"defaultingType": "List", "defaultConstraints": [{"maxSkew": 0, "topologyKey": "z",
                                                        "whenUnsatisfiable": "DoNotSchedule"}]},
     "defaultConstraints[0].maxSkew: Invalid value: 0"),
    ({"defaultingType": "List", "defaultConstraints": [{"maxSkew": 1, "topologyKey": "z",
                                                        "whenUnsatisfiable": "Maybe"}]},
     "defaultConstraints[0].whenUnsatisfiable: Unsupported value"),
    ({"defaultingType": "List", "defaultConstraints": [{"maxSkew": 1, "topologyKey": "z", "whenUnsatisfiable":
                                                        "DoNotSchedule", "labelSelector": {}}]},
     "defaultConstraints[0].labelSelector: Forbidden"),
    ({"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": "z", "whenUnsatisfiable": "DoNotSchedule"},
        {"maxSkew": 2, "topologyKey": "z", "whenUnsatisfiable": "DoNotSchedule"}]},
     "Duplicate value"),
    ({"defaultingType": "List", "defaultConstraints": [{"maxSkew": 1, "topologyKey": "",
                                                        "whenUnsatisfiable": "DoNotSchedule"}]},
     "defaultConstraints[0].topologyKey: Required value"),
])
def test_invalid_args(args, fragment):
    with pytest.raises(PluginArgsError) as e:
        PodTopologySpread(args, FakeHandle())
    assert fragment in str(e.value) and str(e.value).startswith("PodTopologySpread: ")


# ---- Scoring --------------------------------------------------------------------------------------

def hn(name, **extra):
    return make_node(name, {LABEL_HOSTNAME: name, **extra})


def run_score(pod, pods, nodes, failed=(), args=None, cluster=None):
    snap = FakeSnapshot(pods, list(nodes) + list(failed))
    pl = PodTopologySpread(args, FakeHandle(snap, cluster))
    state = CycleState()
    filtered = [snap.get(n.name) for n in nodes]
    st = pl.pre_score(state, pod, filtered)
    assert st is None, st
    scores = []
    for ni in filtered:
        s, st = pl.score(state, pod, ni)
        assert st is None
        scores.append(NodeScore(ni.name, s))
    pl.normalize_score(state, pod, scores)
    return {ns.name: ns.score for ns in scores}


def host_foo_pods(spec):
    return foo_pods(spec)


SCORE_CASES = [
    ("no existing pods", [tsc(1, LABEL_HOSTNAME, "ScheduleAnyway", exists("foo"))], "",
     [hn("node-a"), hn("node-b")], [], {"node-a": 100, "node-b": 100}),
    ("only one candidate", [tsc(1, LABEL_HOSTNAME, "ScheduleAnyway", exists("foo"))], "a2 b1",
     [hn("node-a")], [hn("node-b")], {"node-a": 100}),
    ("same number everywhere", [tsc(1, LABEL_HOSTNAME, "ScheduleAnyway", exists("foo"))], "a1 b1",
     [hn("node-a"), hn("node-b")], [], {"node-a": 100, "node-b": 100}),
    ("2/1/0/3", [tsc(1, LABEL_HOSTNAME, "ScheduleAnyway", exists("foo"))], "a2 b1 d3",
     [hn("node-a"), hn("node-b"), hn("node-c"), hn("node-d")], [],
     {"node-a": 20, "node-b": 60, "node-c": 100, "node-d": 0}),
    ("null selector", [tsc(1, LABEL_HOSTNAME, "ScheduleAnyway", None)], "a2 b1 d3",
     [hn("node-a"), hn("node-b"), hn("node-c"), hn("node-d")], [],
     {"node-a": 100, "node-b": 100, "node-c": 100, "node-d": 100}),
    ("2/1/0/3 maxSkew 2", [tsc(2, LABEL_HOSTNAME, "ScheduleAnyway", exists("foo"))], "a2 b1 d3",
     [hn("node-a"), hn("node-b"), hn("node-c"), hn("node-d")], [],
     {"node-a": 33, "node-b": 66, "node-c": 100, "node-d": 16}),
    ("4/3/2/1 maxSkew 3", [tsc(3, LABEL_HOSTNAME, "ScheduleAnyway", exists("foo"))], "a4 b3 c2 d1",
     [hn("node-a"), hn("node-b"), hn("node-c"), hn("node-d")], [],
     {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100}),
    ("4/2/1/~3~", [tsc(1, LABEL_HOSTNAME, "ScheduleAnyway", exists("foo"))], "a4 b2 x1 y3",
     [hn("node-a"), hn("node-b"), hn("node-x")], [hn("node-y")], {"node-a": 33, "node-b": 83, "node-x": 100}),
    ("4/?2?/1/~3~ node without the key is ignored", [tsc(1, LABEL_HOSTNAME, "ScheduleAnyway", exists("foo"))],
     "a4 b2 x1 y3", [hn("node-a"), make_node("node-b", {"n": "node-b"}), hn("node-x")], [hn("node-y")],
     {"node-a": 16, "node-b": 0, "node-x": 100}),
    ("zone 4/2/1/~3~", [tsc(1, "zone", "ScheduleAnyway", exists("foo"))], "a4 b2 x1 y3",
     [hn("node-a", zone="zone1"), hn("node-b", zone="zone1"), hn("node-x", zone="zone2")],
     [hn("node-y", zone="zone2")], {"node-a": 75, "node-b": 75, "node-x": 100}),
]


@pytest.mark.parametrize("name,constraints,spec,nodes,failed,want", SCORE_CASES, ids=[c[0] for c in SCORE_CASES])
def test_score(name, constraints, spec, nodes, failed, want):
    pod = make_pod("p", labels={"foo": ""}, spread=constraints)
    assert run_score(pod, host_foo_pods(spec), nodes, failed) == want


def test_score_system_default_with_service():
    svc = WorkloadSelector("Service", "svc", selector=match_labels(foo=""))
    nodes = [hn("node-a"), hn("node-b"), hn("node-c"), hn("node-d")]  # no zone labels at all
    got = run_score(make_pod("p", labels={"foo": ""}), foo_pods("a4 b3 c2 d1"), nodes,
                    cluster=FakeCluster(workloads=[svc]))
    assert got == {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100}


def test_pre_score_skips_without_service_or_soft_constraints():
    nodes = [hn("node-a")]
    snap = FakeSnapshot([], nodes)
    pl = PodTopologySpread(None, FakeHandle(snap))
    assert pl.pre_score(CycleState(), make_pod("p", labels={"foo": ""}), snap.list()).code == Code.SKIP
    hard_only = make_pod("p", labels={"foo": ""}, spread=[tsc(1, LABEL_HOSTNAME, selector=exists("foo"))])
    assert pl.pre_score(CycleState(), hard_only, snap.list()).code == Code.SKIP


def test_score_list_defaulting_requires_all_topologies():
    # Non-system defaults: a node missing the zone key is ignored (score 0).
    args = {"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"}]}
    svc = WorkloadSelector("Service", "svc", selector=match_labels(foo=""))
    nodes = [hn("node-a", zone="z1"), hn("node-b")]
    got = run_score(make_pod("p", labels={"foo": ""}), foo_pods("a1"), nodes, args=args,
                    cluster=FakeCluster(workloads=[svc]))
    assert got == {"node-a": 100, "node-b": 0}


# ---- Queueing hints ---------------------------------------------------------------------------------

def test_events_and_hints():
    pl = PodTopologySpread(None, FakeHandle())
    evs = pl.events_to_register()
    assert [e.event.resource for e in evs] == ["Pod", "Node"]
    pod = make_pod("p", labels={"foo": ""}, spread=[tsc(1, "zone", selector=exists("foo"))])
    assigned = make_pod("q", node="n1", labels={"foo": ""})
    unassigned = make_pod("q", labels={"foo": ""})
    other_ns = make_pod("q", ns="x", node="n1", labels={"foo": ""})
    hint = pl.is_schedulable_after_pod_change
    assert hint(pod, None, assigned) == QueueingHint.QUEUE
    assert hint(pod, None, unassigned) == QueueingHint.SKIP
    assert hint(pod, None, other_ns) == QueueingHint.SKIP
    assert hint(pod, None, make_pod("q", node="n1", labels={"bar": ""})) == QueueingHint.SKIP
    assert hint(pod, assigned, None) == QueueingHint.QUEUE
    relabelled = make_pod("q", node="n1", labels={"bar": ""})
    assert hint(pod, assigned, relabelled) == QueueingHint.QUEUE
    assert hint(pod, assigned, make_pod("q", node="n1", labels={"foo": "", "x": "y"})) == QueueingHint.SKIP
    nhint = pl.is_schedulable_after_node_change
    assert nhint(pod, None, make_node("n", {"zone": "z"})) == QueueingHint.QUEUE
    assert nhint(pod, None, make_node("n", {})) == QueueingHint.SKIP
    assert nhint(pod, make_node("n", {"zone": "a"}), make_node("n", {"zone": "b"})) == QueueingHint.QUEUE
    assert nhint(pod, make_node("n", {"zone": "a"}), make_node("n", {"zone": "a", "x": "1"})) == QueueingHint.SKIP
    assert nhint(pod, make_node("n", {"zone": "a"}), None) == QueueingHint.QUEUE
