"""InterPodAffinity, table-driven from upstream's filtering_test.go / scoring_test.go semantics."""

from __future__ import annotations

import pytest

from scheduler_core.api.types import LabelSelector, LabelSelectorRequirement
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import PluginArgsError
from scheduler_core.framework.plugins.interpodaffinity import InterPodAffinity
from scheduler_core.framework.plugins.interpodaffinity.filtering import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
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
    pod_affinity,
    selector_in,
    term,
)

HOST = "kubernetes.io/hostname"
AFF = ("UU", ERR_REASON_AFFINITY_RULES_NOT_MATCH)
ANTI = ("U", ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
EXIST = ("U", ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
OK = None


def node(name, **labels):
    return make_node(name, {HOST: name, **labels})


NODES3 = [node("n1", region="r1", zone="z11"), node("n2", region="r1", zone="z12"), node("n3", region="r2", zone="z21")]


def run_filter(pod, pods, nodes, cluster=None):
    snap = FakeSnapshot(pods, nodes)
    pl = InterPodAffinity(None, FakeHandle(snap, cluster))
    state = CycleState()
    _, st = pl.pre_filter(state, pod, snap.list())
    if st is not None:
        assert st.code == Code.SKIP
        return "skip"
    out = {}
    for ni in snap.list():
        s = pl.filter(state, pod, ni)
        out[ni.name] = None if s is None else (
            {Code.UNSCHEDULABLE: "U", Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UU"}[s.code], s.message())
    return out


S1 = match_labels(security="S1")
S2 = match_labels(security="S2")

FILTER_CASES = [
    ("no affinity anywhere: PreFilter skips", make_pod("p", labels={"security": "S1"}),
     [make_pod("e", node="n1", labels={"security": "S1"})], NODES3, "skip"),
    ("required affinity satisfied in the same region",
     make_pod("p", affinity=pod_affinity(required=[term(S1, "region")])),
     [make_pod("e", node="n1", labels={"security": "S1"})], NODES3, {"n1": OK, "n2": OK, "n3": AFF}),
    ("required affinity with In operator on hostname",
     make_pod("p", affinity=pod_affinity(required=[term(selector_in("security", "S1", "value2"), HOST)])),
     [make_pod("e", node="n1", labels={"security": "S1"})], NODES3, {"n1": OK, "n2": AFF, "n3": AFF}),
    ("required affinity with NotIn operator",
     make_pod("p", affinity=pod_affinity(required=[term(LabelSelector(match_expressions=[
         LabelSelectorRequirement("security", "NotIn", ("S3",))]), HOST)])),
     [make_pod("e", node="n1", labels={"security": "S1"})], NODES3, {"n1": OK, "n2": AFF, "n3": AFF}),
    ("required affinity: matching pod in another namespace does not count",
     make_pod("p", affinity=pod_affinity(required=[term(S1, HOST)])),
     [make_pod("e", ns="other", node="n1", labels={"security": "S1"})], NODES3,
     {"n1": AFF, "n2": AFF, "n3": AFF}),
    ("required affinity: explicit namespaces list",
     make_pod("p", affinity=pod_affinity(required=[term(S1, HOST, namespaces=["other"])])),
     [make_pod("e", ns="other", node="n1", labels={"security": "S1"})], NODES3,
     {"n1": OK, "n2": AFF, "n3": AFF}),
    ("required affinity: namespaceSelector matches the namespace's labels",
     make_pod("p", affinity=pod_affinity(required=[term(S1, HOST, namespace_selector=match_labels(team="a"))])),
     [make_pod("e", ns="team-a", node="n1", labels={"security": "S1"}),
      make_pod("f", ns="team-b", node="n2", labels={"security": "S1"})], NODES3,
     {"n1": OK, "n2": AFF, "n3": AFF}),
    ("required affinity: empty namespaceSelector selects every namespace",
     make_pod("p", affinity=pod_affinity(required=[term(S1, HOST, namespace_selector=LabelSelector())])),
     [make_pod("e", ns="team-a", node="n1", labels={"security": "S1"}),
      make_pod("f", ns="team-b", node="n2", labels={"security": "S1"})], NODES3,
     {"n1": OK, "n2": OK, "n3": AFF}),
    ("all required affinity terms must match the same pod",
     make_pod("p", affinity=pod_affinity(required=[term(S1, "region"), term(exists("app"), "region")])),
     [make_pod("e", node="n1", labels={"security": "S1"}), make_pod("f", node="n2", labels={"app": "x"})], NODES3,
     {"n1": AFF, "n2": AFF, "n3": AFF}),
    ("first pod of a group: matches its own terms, nobody else does",
     make_pod("p", labels={"app": "grp"}, affinity=pod_affinity(required=[term(match_labels(app="grp"), "zone")])),
     [make_pod("e", node="n1", labels={"app": "other"})], NODES3 + [make_node("nokey", {})],
     {"n1": OK, "n2": OK, "n3": OK, "nokey": AFF}),
    ("first-pod exception not applied when a matching pod exists elsewhere",
     make_pod("p", labels={"app": "grp"}, affinity=pod_affinity(required=[term(match_labels(app="grp"), "zone")])),
     [make_pod("e", node="n1", labels={"app": "grp"})], NODES3, {"n1": OK, "n2": AFF, "n3": AFF}),
    ("first-pod exception needs the pod to match its own terms",
     make_pod("p", labels={"app": "x"}, affinity=pod_affinity(required=[term(match_labels(app="grp"), "zone")])),
     [], NODES3, {"n1": AFF, "n2": AFF, "n3": AFF}),
    ("nil label selector matches nothing",
     make_pod("p", labels={"app": "grp"}, affinity=pod_affinity(required=[term(None, "zone")])),
     [make_pod("e", node="n1", labels={"app": "grp"})], NODES3, {"n1": AFF, "n2": AFF, "n3": AFF}),
    ("incoming anti-affinity on hostname",
     make_pod("p", affinity=pod_affinity(anti_required=[term(S1, HOST)])),
     [make_pod("e", node="n1", labels={"security": "S1"})], NODES3, {"n1": ANTI, "n2": OK, "n3": OK}),
    ("incoming anti-affinity on region; node without the key is fine",
     make_pod("p", affinity=pod_affinity(anti_required=[term(S1, "region")])),
     [make_pod("e", node="n1", labels={"security": "S1"})], NODES3 + [make_node("nokey", {})],
     {"n1": ANTI, "n2": ANTI, "n3": OK, "nokey": OK}),
    ("terminating pods still count for anti-affinity",
     make_pod("p", affinity=pod_affinity(anti_required=[term(S1, HOST)])),
     [make_pod("e", node="n1", labels={"security": "S1"}, terminating=True)], NODES3,
     {"n1": ANTI, "n2": OK, "n3": OK}),
    ("existing pod's anti-affinity rejects the incoming pod",
     make_pod("p", labels={"security": "S1"}),
     [make_pod("e", node="n1", affinity=pod_affinity(anti_required=[term(S1, "region")]))], NODES3,
     {"n1": EXIST, "n2": EXIST, "n3": OK}),
    ("existing pod's anti-affinity scoped to its own namespace",
     make_pod("p", ns="other", labels={"security": "S1"}),
     [make_pod("e", node="n1", affinity=pod_affinity(anti_required=[term(S1, "region")]))], NODES3, "skip"),
    ("existing pod's anti-affinity with namespaceSelector against the incoming pod's namespace",
     make_pod("p", ns="team-a", labels={"security": "S1"}),
     [make_pod("e", node="n1", affinity=pod_affinity(anti_required=[
         term(S1, HOST, namespace_selector=match_labels(team="a"))]))], NODES3,
     {"n1": EXIST, "n2": OK, "n3": OK}),
    ("affinity checked before anti-affinity",
     make_pod("p", labels={"security": "S1"}, affinity=pod_affinity(required=[term(S2, "region")],
                                                                    anti_required=[term(S1, HOST)])),
     [make_pod("e", node="n1", labels={"security": "S2"}), make_pod("f", node="n2", labels={"security": "S1"})],
     NODES3, {"n1": OK, "n2": ANTI, "n3": AFF}),
]

NS_LABELS = {"team-a": {"team": "a"}, "team-b": {"team": "b"}}


@pytest.mark.parametrize("name,pod,pods,nodes,want", FILTER_CASES, ids=[c[0] for c in FILTER_CASES])
def test_filter(name, pod, pods, nodes, want):
    assert run_filter(pod, pods, nodes, FakeCluster(NS_LABELS)) == want


def test_reasons_verbatim():
    assert ERR_REASON_AFFINITY_RULES_NOT_MATCH == "node(s) didn't match pod affinity rules"
    assert ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH == "node(s) didn't match pod anti-affinity rules"
    assert ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH == "node(s) didn't satisfy existing pods anti-affinity rules"


def test_add_remove_pod_and_clone():
    web = match_labels(app="web")
    pod = make_pod("p", labels={"app": "web"}, affinity=pod_affinity(anti_required=[term(web, HOST)]))
    snap = FakeSnapshot([make_pod("e", node="n1", labels={"app": "web"})], NODES3)
    pl = InterPodAffinity(None, FakeHandle(snap, FakeCluster()))
    state = CycleState()
    assert pl.pre_filter(state, pod, snap.list())[1] is None
    assert pl.filter(state, pod, snap.get("n1")).code == Code.UNSCHEDULABLE
    cloned = state.clone()
    # Preemption dry run removes the matching pod on n1 from the clone only.
    victim = snap.get("n1").pods[0]
    assert pl.remove_pod(cloned, pod, victim, snap.get("n1")) is None
    assert pl.filter(cloned, pod, snap.get("n1")) is None
    assert pl.filter(state, pod, snap.get("n1")).code == Code.UNSCHEDULABLE
    # A nominated pod on n2 blocks n2; a pod whose anti-affinity hates the incoming one blocks too.
    pl.add_pod(cloned, pod, PodInfo(make_pod("nom", labels={"app": "web"})), snap.get("n2"))
    assert pl.filter(cloned, pod, snap.get("n2")).message() == ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH
    hater = make_pod("h", affinity=pod_affinity(anti_required=[term(web, "region")]))
    pl.add_pod(cloned, pod, PodInfo(hater), snap.get("n3"))
    assert pl.filter(cloned, pod, snap.get("n3")).message() == ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH
    # Removing it again drops the count back to zero.
    pl.remove_pod(cloned, pod, PodInfo(hater), snap.get("n3"))
    assert pl.filter(cloned, pod, snap.get("n3")) is None


def test_add_pod_satisfies_affinity():
    pod = make_pod("p", affinity=pod_affinity(required=[term(match_labels(app="db"), "zone")]))
    snap = FakeSnapshot([], NODES3)
    pl = InterPodAffinity(None, FakeHandle(snap, FakeCluster()))
    state = CycleState()
    pl.pre_filter(state, pod, snap.list())
    assert pl.filter(state, pod, snap.get("n2")).code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    pl.add_pod(state, pod, PodInfo(make_pod("db", labels={"app": "db"})), snap.get("n2"))
    assert pl.filter(state, pod, snap.get("n2")) is None
    assert pl.filter(state, pod, snap.get("n1")).code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE


# ---- Scoring ------------------------------------------------------------------------------------------

def run_score(pod, pods, nodes, args=None, cluster=None):
    snap = FakeSnapshot(pods, nodes)
    pl = InterPodAffinity(args, FakeHandle(snap, cluster or FakeCluster(NS_LABELS)))
    state = CycleState()
    st = pl.pre_score(state, pod, snap.list())
    if st is not None:
        assert st.code == Code.SKIP
        return "skip"
    scores = []
    for ni in snap.list():
        s, st = pl.score(state, pod, ni)
        assert st is None
        scores.append(NodeScore(ni.name, s))
    pl.normalize_score(state, pod, scores)
    return {ns.name: ns.score for ns in scores}


E_S1 = make_pod("e1", node="n1", labels={"security": "S1"})
E_S2 = make_pod("e2", node="n3", labels={"security": "S2"})

SCORE_CASES = [
    ("no affinity anywhere", make_pod("p"), [E_S1, E_S2], None, "skip"),
    ("preferred affinity on region", make_pod("p", affinity=pod_affinity(preferred=[(5, term(S1, "region"))])),
     [E_S1, E_S2], None, {"n1": 100, "n2": 100, "n3": 0}),
    ("preferred affinity plus anti-affinity on zone",
     make_pod("p", affinity=pod_affinity(preferred=[(5, term(S1, "region"))],
                                         anti_preferred=[(3, term(S1, "zone"))])),
     [E_S1, E_S2], None, {"n1": 40, "n2": 100, "n3": 0}),
    ("preferred anti-affinity only", make_pod("p", affinity=pod_affinity(anti_preferred=[(3, term(S2, "region"))])),
     [E_S1, E_S2], None, {"n1": 100, "n2": 100, "n3": 0}),
    ("preferred affinity matching nobody: all scores equal",
     make_pod("p", affinity=pod_affinity(preferred=[(5, term(match_labels(security="none"), "region"))])),
     [E_S1, E_S2], None, "skip"),
    ("existing pod's required affinity uses hardPodAffinityWeight",
     make_pod("p", labels={"app": "web"}),
     [make_pod("e3", node="n2", affinity=pod_affinity(required=[term(match_labels(app="web"), "zone")]))],
     None, {"n1": 0, "n2": 100, "n3": 0}),
    ("hardPodAffinityWeight 0 disables it",
     make_pod("p", labels={"app": "web"}),
     [make_pod("e3", node="n2", affinity=pod_affinity(required=[term(match_labels(app="web"), "zone")]))],
     {"hardPodAffinityWeight": 0}, "skip"),
    ("existing pod's preferred anti-affinity",
     make_pod("p", labels={"app": "web"}),
     [make_pod("e4", node="n3", affinity=pod_affinity(anti_preferred=[(10, term(match_labels(app="web"), "region"))]))],
     None, {"n1": 100, "n2": 100, "n3": 0}),
    ("existing pod's preferred affinity, ignored by arg",
     make_pod("p", labels={"app": "web"}),
     [make_pod("e4", node="n3", affinity=pod_affinity(preferred=[(10, term(match_labels(app="web"), "region"))]))],
     {"ignorePreferredTermsOfExistingPods": True}, "skip"),
    ("existing pod's preferred affinity",
     make_pod("p", labels={"app": "web"}),
     [make_pod("e4", node="n3", affinity=pod_affinity(preferred=[(10, term(match_labels(app="web"), "region"))]))],
     None, {"n1": 0, "n2": 0, "n3": 100}),
    ("both directions combine",
     make_pod("p", labels={"app": "web"}, affinity=pod_affinity(preferred=[(4, term(S1, HOST))])),
     [E_S1, make_pod("e4", node="n2", affinity=pod_affinity(preferred=[(6, term(match_labels(app="web"), HOST))]))],
     None, {"n1": 66, "n2": 100, "n3": 0}),
]


@pytest.mark.parametrize("name,pod,pods,args,want", SCORE_CASES, ids=[c[0] for c in SCORE_CASES])
def test_score(name, pod, pods, args, want):
    assert run_score(pod, pods, NODES3, args) == want


@pytest.mark.parametrize("args,fragment", [
    ({"hardPodAffinityWeight": 101}, "hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"),
    ({"hardPodAffinityWeight": -1}, "hardPodAffinityWeight: Invalid value: -1"),
])
def test_invalid_args(args, fragment):
    with pytest.raises(PluginArgsError) as e:
        InterPodAffinity(args, FakeHandle())
    assert fragment in str(e.value)


def test_default_args():
    pl = InterPodAffinity(None, FakeHandle())
    assert pl.hard_pod_affinity_weight == 1 and pl.ignore_preferred_terms_of_existing_pods is False


def test_hints():
    pl = InterPodAffinity(None, FakeHandle())
    evs = pl.events_to_register()
    assert [e.event.resource for e in evs] == ["Pod", "Node"]
    pod = make_pod("p", affinity=pod_affinity(required=[term(match_labels(app="db"), "zone")],
                                              anti_required=[term(match_labels(app="web"), HOST)]))
    h = pl.is_schedulable_after_pod_change
    assert h(pod, None, make_pod("db", node="n1", labels={"app": "db"})) == QueueingHint.QUEUE
    assert h(pod, None, make_pod("db", labels={"app": "db"})) == QueueingHint.SKIP  # unscheduled
    assert h(pod, None, make_pod("x", node="n1", labels={"app": "x"})) == QueueingHint.SKIP
    assert h(pod, make_pod("w", node="n1", labels={"app": "web"}), None) == QueueingHint.QUEUE
    assert h(pod, make_pod("x", node="n1", labels={"app": "x"}), None) == QueueingHint.SKIP
    assert h(pod, make_pod("w", node="n1", labels={"app": "web"}),
             make_pod("w", node="n1", labels={"app": "x"})) == QueueingHint.QUEUE
    n = pl.is_schedulable_after_node_change
    assert n(pod, None, make_node("a", {"zone": "z"})) == QueueingHint.QUEUE
    assert n(pod, None, make_node("a", {})) == QueueingHint.QUEUE  # anti-affinity: any new node
    aff_only = make_pod("p", affinity=pod_affinity(required=[term(match_labels(app="db"), "zone")]))
    assert n(aff_only, None, make_node("a", {})) == QueueingHint.SKIP
    assert n(aff_only, make_node("a", {}), make_node("a", {"zone": "z"})) == QueueingHint.QUEUE
    assert n(aff_only, make_node("a", {"zone": "z"}), make_node("a", {"zone": "z", "x": "1"})) == QueueingHint.SKIP
