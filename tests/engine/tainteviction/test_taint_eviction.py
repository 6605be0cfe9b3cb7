"""NoExecute taint eviction controller: upstream pkg/controller/tainteviction semantics on a virtual clock.

Cases port taint_eviction_test.go (TestCreatePod, TestUpdatePod, TestCreateNode, TestUpdateNode,
TestUpdateNodeWithMultipleTaints, TestUpdateNodeWithMultiplePods, TestGetMinTolerationTime,
TestEventualConsistency, TestPodDeletionEvent) plus the conformance cases v28-v30.
"""

from __future__ import annotations

import pickle

import pytest

from scheduler_core.api.types import Node, Pod, Taint, Toleration
from scheduler_core.controllers import (
    DELETED_BY,
    TaintEvictionController,
    add_default_toleration_seconds,
    get_matching_tolerations,
    get_min_toleration_time,
    get_no_execute_taints,
)

NE = "NoExecute"


def taint(i: int, effect: str = NE, time_added: float | None = None) -> Taint:
    return Taint(key=f"testTaint{i}", value=f"test{i}", effect=effect, time_added=time_added)


def tol(i: int, seconds: int | None = None, *, forever: bool = False) -> Toleration:
    """Equal toleration for taint(i); `forever` means no tolerationSeconds."""
    return Toleration(key=f"testTaint{i}", operator="Equal", value=f"test{i}", effect=NE,
                      toleration_seconds=None if forever else seconds)


def pod(name: str, node: str = "node1", tolerations: list[Toleration] | None = None, ns: str = "default") -> Pod:
    return Pod(name=name, namespace=ns, node_name=node, tolerations=list(tolerations or []))


def node(name: str = "node1", taints: list[Taint] | None = None) -> Node:
    return Node(name=name, taints=list(taints or []))


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict]] = []

    def __call__(self, kind: str, **fields) -> None:
        self.events.append((kind, fields))

    def k8s(self) -> list[str]:
        return [f["message"] for k, f in self.events if k == "k8s_event"]

    def kinds(self) -> list[str]:
        return [k for k, _ in self.events]


def run_until(tc: TaintEvictionController, end: float) -> dict[str, float]:
    """Drive the clock like the simulation loop: fire at each next_fire_time up to `end`."""
    fired: dict[str, float] = {}
    while True:
        t = tc.next_fire_time()
        if t is None or t > end:
            return fired
        for ev in tc.fire_due(t):
            assert ev.pod not in fired
            fired[ev.pod] = t


def make() -> tuple[TaintEvictionController, Recorder]:
    rec = Recorder()
    return TaintEvictionController(rec), rec


# ---------------------------------------------------------------------------------------------
# helpers


def test_get_no_execute_taints_filters_other_effects():
    taints = [Taint("one", "one", NE), Taint("two", "two", "NoSchedule"), Taint("three", "", "PreferNoSchedule")]
    assert [t.key for t in get_no_execute_taints(taints)] == ["one"]


@pytest.mark.parametrize(
    "seconds, expected",
    [
        ([], 0.0),  # upstream: empty list -> 0
        ([None], None),  # no seconds: forever
        ([1, 2], 1.0),
        ([1, None], 1.0),
        ([None, 1], 1.0),
        ([None, None], None),
        ([30, -5], 0.0),  # negative -> 0
        ([0, 60], 0.0),
        ([60, 45, 100], 45.0),
    ],
)
def test_get_min_toleration_time(seconds, expected):
    tols = [Toleration(key="k", operator="Exists", toleration_seconds=s) for s in seconds]
    assert get_min_toleration_time(tols) == expected


def test_get_matching_tolerations_uses_first_match_per_taint():
    taints = [taint(1), taint(2)]
    first = Toleration(operator="Exists")  # matches everything, forever
    second = tol(1, 5)
    ok, used = get_matching_tolerations(taints, [first, second])
    assert ok and used == [first, first]
    ok, used = get_matching_tolerations(taints, [tol(1, 5)])
    assert not ok and used == []
    assert get_matching_tolerations([], []) == (True, [])
    assert get_matching_tolerations([taint(1)], []) == (False, [])


def test_toleration_value_must_match_for_equal():
    ok, _ = get_matching_tolerations([taint(1)], [Toleration(key="testTaint1", operator="Equal", value="x",
                                                             effect=NE)])
    assert not ok


# ---------------------------------------------------------------------------------------------
# toleration-time rules, through a node with pods


@pytest.mark.parametrize(
    "tolerations, expected",
    [
        ([], 0.0),  # untolerated -> now
        ([tol(1, 30)], 30.0),
        ([tol(1, forever=True)], None),  # no seconds -> never
        ([tol(1, -10)], 0.0),  # negative -> immediate
        ([tol(1, 0)], 0.0),
        ([tol(2, forever=True)], 0.0),  # toleration for another taint: untolerated
        ([Toleration(key="testTaint1", operator="Exists", effect="NoSchedule", toleration_seconds=5)], 0.0),
        ([Toleration(operator="Exists", toleration_seconds=45)], 45.0),  # empty key+effect: matches all
        ([tol(1, forever=True), tol(1, 10)], None),  # first matching toleration wins
        ([tol(1, 10), tol(1, forever=True)], 10.0),
    ],
)
def test_single_taint_rules(tolerations, expected):
    tc, _ = make()
    p = pod("p", tolerations=tolerations)
    tc.node_updated(None, node(taints=[taint(1)]), [p], now=0.0)
    fired = run_until(tc, 10_000)
    assert fired.get(p.key) == expected


def test_several_taints_all_must_be_tolerated_and_min_wins():
    tc, _ = make()
    n = node(taints=[taint(1), taint(2), taint(3, effect="NoSchedule")])
    pods = [
        pod("a60-b20", tolerations=[tol(1, 60), tol(2, 20)]),
        pod("only-1", tolerations=[tol(1, 100)]),
        pod("a-forever-b10", tolerations=[tol(1, forever=True), tol(2, 10)]),
        pod("both-forever", tolerations=[tol(1, forever=True), tol(2, forever=True)]),
    ]
    tc.node_updated(None, n, pods, now=0.0)
    assert run_until(tc, 10_000) == {"default/only-1": 0.0, "default/a-forever-b10": 10.0,
                                     "default/a60-b20": 20.0}


def test_noschedule_taints_are_ignored():
    tc, rec = make()
    p = pod("p")
    tc.node_updated(None, node(taints=[Taint("c", "3", "NoSchedule"), Taint("d", "", "PreferNoSchedule")]), [p], 0.0)
    tc.pod_updated(p, node(taints=[Taint("c", "3", "NoSchedule")]), 1.0)
    assert tc.next_fire_time() is None and rec.events == []
    assert tc.tainted_nodes() == {}


def test_untainted_node_and_unbound_pod_untouched():
    tc, rec = make()
    tc.node_updated(None, node(), [pod("p")], 0.0)
    tc.pod_updated(pod("q", node=""), None, 0.0)
    tc.pod_updated(pod("r", node="node1"), node(), 0.0)
    assert tc.next_fire_time() is None and rec.events == []


# ---------------------------------------------------------------------------------------------
# timing


def test_taint_added_while_pod_running_fires_at_t_plus_seconds():
    tc, _ = make()
    p = pod("p", tolerations=[tol(1, 30)])
    tc.node_updated(None, node(), [p], 0.0)
    tc.node_updated(node(), node(taints=[taint(1, time_added=7.0)]), [p], 7.0)
    assert tc.next_fire_time() == 37.0
    assert tc.fire_due(36.999) == []
    assert [e.pod for e in tc.fire_due(37.0)] == [p.key]


def test_delay_counts_from_processing_not_taint_time_added():
    tc, _ = make()
    p = pod("p", tolerations=[tol(1, 30)])
    # The taint says it was added at t=0, but the controller learns about the pod at t=12.
    tc.pod_updated(p, node(taints=[taint(1, time_added=0.0)]), 12.0)
    assert tc.next_fire_time() == 42.0


def test_pod_bound_later_onto_tainted_node():
    tc, _ = make()
    n = node(taints=[taint(1)])
    tc.node_updated(None, n, [], 0.0)
    early = pod("untolerating")
    tc.pod_updated(early, None, 5.0)  # taints known from node_updated
    late = pod("tolerating", tolerations=[tol(1, 30)])
    tc.pod_updated(late, n, 8.0)
    assert run_until(tc, 1000) == {early.key: 5.0, late.key: 38.0}


def test_reprocessing_does_not_reset_the_timer():
    tc, rec = make()
    p = pod("p", tolerations=[tol(1, 30)])
    n = node(taints=[taint(1)])
    tc.node_updated(None, n, [p], 0.0)
    before = list(rec.events)
    tc.pod_updated(p, n, 0.0)  # same instant
    tc.pod_updated(p, n, 10.0)
    tc.node_updated(n, node(taints=[taint(1), taint(9, effect="NoSchedule")]), [p], 15.0)  # NoExecute unchanged
    assert rec.events == before
    assert run_until(tc, 1000) == {p.key: 30.0}


def test_node_update_without_noexecute_change_is_ignored():
    # Upstream NodeUpdated drops updates whose NoExecute taints are unchanged, so a toleration change
    # that was never reported through pod_updated goes unnoticed.
    tc, rec = make()
    n = node(taints=[taint(1)])
    tc.node_updated(None, n, [pod("forever", tolerations=[tol(1, forever=True)]),
                              pod("timed", tolerations=[tol(1, 30)])], 0.0)
    n2 = node(taints=[taint(1), taint(5, effect="NoSchedule")])
    tc.node_updated(n, n2, [pod("forever"), pod("timed", tolerations=[tol(1, forever=True)])], 5.0)
    assert rec.k8s() == []
    assert run_until(tc, 1000) == {"default/timed": 30.0}


def test_lengthening_toleration_does_not_work():
    tc, _ = make()
    n = node(taints=[taint(1)])
    p = pod("p", tolerations=[tol(1, 1)])
    tc.pod_updated(p, n, 0.0)
    tc.pod_updated(pod("p", tolerations=[tol(1, 100)]), n, 0.5)
    assert run_until(tc, 1000) == {p.key: 1.0}


def test_shortening_toleration_keeps_the_original_timer():
    # Upstream keeps existing work created before "now" even if the new bound is earlier.
    tc, rec = make()
    n = node(taints=[taint(1)])
    tc.pod_updated(pod("p", tolerations=[tol(1, 100)]), n, 0.0)
    tc.pod_updated(pod("p", tolerations=[tol(1, 5)]), n, 1.0)
    assert "Cancelling deletion of Pod default/p" not in rec.k8s()
    assert run_until(tc, 1000) == {"default/p": 100.0}


def test_adding_second_finite_taint_keeps_timer():
    # "Pod with multiple tolerations are evicted when first one runs out" + keep-existing rule.
    tc, _ = make()
    p = pod("p", tolerations=[tol(1, 1), tol(2, 100)])
    tc.node_updated(node(), node(taints=[taint(1), taint(2)]), [p], 0.0)
    assert run_until(tc, 1000) == {p.key: 1.0}

    tc, _ = make()
    p = pod("p", tolerations=[tol(1, 50), tol(2, 10)])
    tc.node_updated(node(), node(taints=[taint(1)]), [p], 0.0)
    tc.node_updated(node(taints=[taint(1)]), node(taints=[taint(1), taint(2)]), [p], 5.0)
    assert run_until(tc, 1000) == {p.key: 50.0}


def test_removing_toleration_evicts_now_and_cancels_timer():
    tc, rec = make()
    n = node(taints=[taint(1)])
    tc.pod_updated(pod("p", tolerations=[tol(1, 100)]), n, 0.0)
    tc.pod_updated(pod("p"), n, 3.0)
    assert rec.k8s() == ["Cancelling deletion of Pod default/p"]
    assert run_until(tc, 1000) == {"default/p": 3.0}
    assert rec.k8s() == ["Cancelling deletion of Pod default/p", "Marking for deletion Pod default/p"]


def test_multiple_taints_sequence_from_upstream():
    # TestUpdateNodeWithMultipleTaints: none -> forever -> forever+60s -> forever.
    tc, _ = make()
    p = pod("pod1", tolerations=[
        Toleration(key="testTaint1", operator="Exists", effect=NE),
        Toleration(key="testTaint2", operator="Exists", effect=NE, toleration_seconds=60),
    ])
    untainted, single, double = node(), node(taints=[taint(1)]), node(taints=[taint(1), taint(2)])
    tc.node_updated(None, untainted, [p], 0.0)
    assert tc.pending_for(p.key) is None
    tc.node_updated(untainted, single, [p], 1.0)
    assert tc.pending_for(p.key) is None
    tc.node_updated(single, double, [p], 2.0)
    w = tc.pending_for(p.key)
    assert w is not None and w.fire_at == 62.0 and w.created_at == 2.0
    tc.node_updated(double, single, [p], 3.0)
    assert tc.pending_for(p.key) is None
    assert run_until(tc, 1000) == {}


def test_multiple_pods_different_times():
    # TestUpdateNodeWithMultiplePods
    tc, _ = make()
    pods = [pod("pod1"), pod("pod2", tolerations=[tol(1, 1)]), pod("pod3", tolerations=[tol(1, forever=True)])]
    tc.node_updated(node(), node(taints=[taint(1)]), pods, 0.0)
    assert run_until(tc, 1000) == {"default/pod1": 0.0, "default/pod2": 1.0}

    tc, _ = make()
    tc.node_updated(node(), node(taints=[taint(1), taint(2)]), pods, 0.0)
    assert run_until(tc, 1000) == {"default/pod1": 0.0, "default/pod2": 0.0, "default/pod3": 0.0}


# ---------------------------------------------------------------------------------------------
# cancellation


def test_taint_removal_cancels_with_events():
    tc, rec = make()
    p1, p2 = pod("p1", tolerations=[tol(1, 30)]), pod("p2", tolerations=[tol(1, forever=True)])
    tainted = node(taints=[taint(1)])
    tc.node_updated(None, tainted, [p1, p2], 0.0)
    tc.node_updated(tainted, node(), [p1, p2], 10.0)
    assert tc.next_fire_time() is None
    assert ("eviction_cancelled", {"pod": "default/p1", "node": "node1"}) in rec.events
    assert rec.k8s() == ["Cancelling deletion of Pod default/p1"]  # p2 had nothing pending
    assert run_until(tc, 1000) == {}


def test_taint_becoming_tolerated_forever_cancels():
    tc, rec = make()
    p = pod("p", tolerations=[tol(1, 30), Toleration(key="other", operator="Exists")])
    tc.node_updated(None, node(taints=[taint(1)]), [p], 0.0)
    # Node's taint replaced by one the pod tolerates forever.
    tc.node_updated(node(taints=[taint(1)]), node(taints=[Taint("other", "", NE)]), [p], 4.0)
    assert tc.pending_for(p.key) is None
    assert rec.k8s() == ["Cancelling deletion of Pod default/p"]


def test_immediate_eviction_cannot_be_cancelled_by_taint_removal():
    # Upstream starts an immediate deletion at once (no timer); removing the taint cannot stop it.
    tc, rec = make()
    p = pod("p")
    tc.node_updated(None, node(taints=[taint(1)]), [p], 0.0)
    tc.node_updated(node(taints=[taint(1)]), node(), [p], 0.0)
    assert "Cancelling deletion of Pod default/p" not in rec.k8s()
    assert [e.pod for e in tc.fire_due(0.0)] == [p.key]


def test_immediate_eviction_not_duplicated_by_reprocessing():
    tc, rec = make()
    p = pod("p")
    n = node(taints=[taint(1)])
    tc.node_updated(None, n, [p], 0.0)
    tc.pod_updated(p, n, 0.0)
    tc.node_updated(n, node(taints=[taint(1), taint(2)]), [p], 0.0)
    assert [e.pod for e in tc.fire_due(0.0)] == [p.key]
    assert rec.kinds().count("eviction_scheduled") == 1
    assert rec.k8s() == ["Marking for deletion Pod default/p"]


def test_pod_deleted_cancels_pending_timed_eviction():
    tc, rec = make()
    p = pod("p", tolerations=[tol(1, 30)])
    tc.pod_updated(p, node(taints=[taint(1)]), 0.0)
    tc.pod_deleted(p.key)
    assert tc.next_fire_time() is None
    assert rec.k8s() == ["Cancelling deletion of Pod default/p"]
    tc.pod_deleted(p.key)  # idempotent
    tc.pod_deleted("default/unknown")
    assert rec.k8s() == ["Cancelling deletion of Pod default/p"]


def test_pod_deleted_drops_immediate_eviction_silently():
    tc, rec = make()
    p = pod("p")
    tc.pod_updated(p, node(taints=[taint(1)]), 0.0)
    tc.pod_deleted(p.key)
    assert tc.fire_due(0.0) == []
    assert rec.k8s() == []


def test_node_deletion_forgets_taints_but_keeps_pending_evictions():
    tc, rec = make()
    p = pod("p", tolerations=[tol(1, 30)])
    n = node(taints=[taint(1)])
    tc.node_updated(None, n, [p], 0.0)
    assert "node1" in tc.tainted_nodes()
    tc.node_updated(n, None, [p], 5.0)
    assert tc.tainted_nodes() == {}
    assert rec.k8s() == []
    # A pod update now finds no tainted node: nothing new is scheduled.
    tc.pod_updated(pod("q"), None, 6.0)
    assert run_until(tc, 1000) == {p.key: 30.0}


def test_node_added_with_taints_processes_existing_pods():
    # TestCreateNode
    tc, _ = make()
    tc.node_updated(None, node(), [pod("pod1")], 0.0)
    assert tc.next_fire_time() is None
    tc, _ = make()
    tc.node_updated(None, node(taints=[taint(1)]), [pod("pod1")], 0.0)
    assert run_until(tc, 10) == {"default/pod1": 0.0}
    tc, _ = make()
    tc.node_updated(None, node(taints=[taint(1)]), [pod("pod1", tolerations=[tol(1, forever=True)])], 0.0)
    assert tc.next_fire_time() is None


def test_time_added_change_reprocesses():
    # NoExecute taints compared including TimeAdded, like upstream's semantic DeepEqual.
    tc, rec = make()
    p = pod("p", tolerations=[tol(1, 30)])
    old = node(taints=[taint(1, time_added=0.0)])
    tc.node_updated(None, old, [p], 0.0)
    tc.pod_deleted(p.key)
    rec.events.clear()
    tc.node_updated(old, node(taints=[taint(1, time_added=3.0)]), [p], 3.0)
    assert tc.pending_for(p.key).fire_at == 33.0


def test_eventual_consistency_pod_arrives_after_node_update():
    # TestEventualConsistency: the node update did not know pod2 yet; its own update evicts it.
    tc, _ = make()
    pod1 = pod("pod1")
    tainted = node(taints=[taint(1)])
    tc.node_updated(node(), tainted, [pod1], 0.0)
    tc.pod_updated(pod("pod2", tolerations=[tol(1, 100)]), None, 0.2)
    tc.pod_updated(pod("pod3"), None, 0.3)
    assert run_until(tc, 1000) == {"default/pod1": 0.0, "default/pod3": 0.3, "default/pod2": 100.2}


# ---------------------------------------------------------------------------------------------
# ordering, events, checkpointing


def test_fire_due_orders_by_time_then_queue_order():
    tc, _ = make()
    n = node(taints=[taint(1)])
    names = ["zeta", "alpha", "mid"]
    tc.node_updated(None, n, [pod(x, tolerations=[tol(1, 10)]) for x in names], 0.0)
    tc.pod_updated(pod("early", tolerations=[tol(1, 5)]), n, 0.0)
    tc.pod_updated(pod("late-queued-same-time", tolerations=[tol(1, 4)]), n, 6.0)
    out = tc.fire_due(100.0)
    assert [e.name for e in out] == ["early", "zeta", "alpha", "mid", "late-queued-same-time"]
    assert [e.fire_at for e in out] == [5.0, 10.0, 10.0, 10.0, 10.0]


def test_next_fire_time_and_partial_fire():
    tc, _ = make()
    n = node(taints=[taint(1)])
    assert tc.next_fire_time() is None
    tc.pod_updated(pod("a", tolerations=[tol(1, 20)]), n, 0.0)
    tc.pod_updated(pod("b", tolerations=[tol(1, 10)]), n, 0.0)
    assert tc.next_fire_time() == 10.0
    assert [e.name for e in tc.fire_due(15.0)] == ["b"]
    assert tc.next_fire_time() == 20.0
    tc.pod_deleted("default/a")
    assert tc.next_fire_time() is None
    assert tc.fire_due(1e9) == []


def test_event_texts_and_fields():
    tc, rec = make()
    n = node(taints=[taint(1), Taint("plain", "", NE)])
    p = Pod(name="web-1", namespace="shop", node_name="node1",
            tolerations=[tol(1, 30), Toleration(key="plain", operator="Exists", effect=NE, toleration_seconds=40)])
    tc.node_updated(None, n, [p], 2.0)
    assert rec.events == [("eviction_scheduled", {"pod": "shop/web-1", "node": "node1", "at": 32.0,
                                                  "taints": ["testTaint1=test1:NoExecute", "plain:NoExecute"]})]
    rec.events.clear()
    tc.node_updated(n, node(), [p], 3.0)
    assert rec.events == [
        ("eviction_cancelled", {"pod": "shop/web-1", "node": "node1"}),
        ("k8s_event", {"eventType": "Normal", "reason": "TaintManagerEviction", "object": "shop/web-1",
                       "message": "Cancelling deletion of Pod shop/web-1"}),
    ]
    rec.events.clear()
    tc.node_updated(node(), n, [p], 4.0)
    (ev,) = tc.fire_due(34.0)
    assert rec.events[-1] == ("k8s_event", {"eventType": "Normal", "reason": "TaintManagerEviction",
                                            "object": "shop/web-1", "message": "Marking for deletion Pod shop/web-1"})
    assert (ev.pod, ev.namespace, ev.name, ev.node, ev.fire_at, ev.created_at) == \
        ("shop/web-1", "shop", "web-1", "node1", 34.0, 4.0)
    assert ev.deleted_by == DELETED_BY == "TaintManagerEviction"
    assert ev.message == "Marking for deletion Pod shop/web-1"
    assert ev.event_type == "Normal" and ev.event_reason == "TaintManagerEviction"


def test_works_without_callback():
    tc = TaintEvictionController()
    tc.node_updated(None, node(taints=[taint(1)]), [pod("p")], 0.0)
    assert [e.name for e in tc.fire_due(0.0)] == ["p"]


def test_pickle_roundtrip_drops_and_reattaches_callback():
    tc, rec = make()
    n = node(taints=[taint(1)])
    tc.pod_updated(pod("a", tolerations=[tol(1, 20)]), n, 0.0)
    tc.pod_updated(pod("b", tolerations=[tol(1, 10)]), n, 0.0)
    clone = pickle.loads(pickle.dumps(tc))
    assert clone.next_fire_time() == 10.0
    assert [w.pod for w in clone.pending()] == ["default/b", "default/a"]
    assert [e.name for e in clone.fire_due(10.0)] == ["b"]  # no callback: no crash
    rec2 = Recorder()
    clone.set_event_callback(rec2)
    clone.pod_deleted("default/a")
    assert rec2.k8s() == ["Cancelling deletion of Pod default/a"]
    # The original is unaffected.
    assert tc.next_fire_time() == 10.0
    assert tc.tainted_nodes() == clone.tainted_nodes()


# ---------------------------------------------------------------------------------------------
# DefaultTolerationSeconds (opt-in)


def test_not_ready_and_unreachable_are_ordinary_taints_by_default():
    tc, _ = make()
    p = pod("p")
    tc.node_updated(None, node(taints=[Taint("node.kubernetes.io/unreachable", "", NE)]), [p], 0.0)
    assert run_until(tc, 1000) == {p.key: 0.0}


def test_default_toleration_seconds_opt_in():
    tc = TaintEvictionController(default_toleration_seconds=True)
    n = node(taints=[Taint("node.kubernetes.io/not-ready", "", NE)])
    plain = pod("plain")
    own = pod("own", tolerations=[Toleration(key="node.kubernetes.io/not-ready", operator="Exists", effect=NE,
                                             toleration_seconds=60)])
    tc.node_updated(None, n, [plain, own], 0.0)
    assert run_until(tc, 1000) == {"default/own": 60.0, "default/plain": 300.0}


def test_add_default_toleration_seconds():
    out = add_default_toleration_seconds([])
    assert [(t.key, t.operator, t.effect, t.toleration_seconds) for t in out] == [
        ("node.kubernetes.io/not-ready", "Exists", NE, 300),
        ("node.kubernetes.io/unreachable", "Exists", NE, 300),
    ]
    assert add_default_toleration_seconds([Toleration(operator="Exists")]) == [Toleration(operator="Exists")]
    mine = Toleration(key="node.kubernetes.io/unreachable", operator="Exists")
    assert [t.key for t in add_default_toleration_seconds([mine], 10, 20)] == \
        ["node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready"]
    # A NoSchedule-only toleration does not count.
    ns_only = Toleration(key="node.kubernetes.io/not-ready", operator="Exists", effect="NoSchedule")
    assert len(add_default_toleration_seconds([ns_only])) == 3


# ---------------------------------------------------------------------------------------------
# conformance cases (hand-built from ../shared/conformance/cases/v28-v30)


def test_conformance_v28_basic():
    tc, _ = make()
    drain = node("drain-me", [Taint("maintenance", "", NE)])
    pods = [
        pod("no-toleration", "drain-me"),
        pod("tolerates-30s", "drain-me", [Toleration(key="maintenance", operator="Exists", effect=NE,
                                                     toleration_seconds=30)]),
        pod("tolerates-forever", "drain-me", [Toleration(key="maintenance", operator="Exists", effect=NE)]),
    ]
    tc.node_updated(None, drain, pods, 0.0)
    tc.node_updated(None, node("safe"), [pod("elsewhere", "safe")], 0.0)
    for p in pods:  # the loop also reports the pods' creation at t=0: must not change anything
        tc.pod_updated(p, drain, 0.0)
    assert run_until(tc, 3600) == {"default/no-toleration": 0.0, "default/tolerates-30s": 30.0}


def test_conformance_v29_min_time():
    tc, _ = make()
    multi = node("multi", [Taint("a", "1", NE), Taint("b", "2", NE), Taint("c", "3", "NoSchedule")])
    pods = [
        pod("a60-b20", "multi", [Toleration("a", "Equal", "1", NE, 60), Toleration("b", "Equal", "2", NE, 20)]),
        pod("only-a", "multi", [Toleration("a", "Exists", "", NE, 100)]),
        pod("match-all-45", "multi", [Toleration("", "Exists", "", "", 45)]),
        pod("a-forever-b10", "multi", [Toleration("a", "Exists", "", NE), Toleration("b", "Exists", "", NE, 10)]),
        pod("both-forever", "multi", [Toleration("a", "Exists"), Toleration("b", "Exists")]),
    ]
    for p in pods:
        tc.pod_updated(p, multi, 0.0)
    tc.node_updated(None, multi, pods, 0.0)
    assert run_until(tc, 3600) == {"default/a60-b20": 20.0, "default/only-a": 0.0,
                                   "default/match-all-45": 45.0, "default/a-forever-b10": 10.0}


def test_conformance_v30_timed_eviction():
    tc, _ = make()
    solo = node("solo", [Taint("upgrade", "true", NE)])
    old = pod("old", "solo", [Toleration("upgrade", "Equal", "true", NE, 10)])
    tc.node_updated(None, solo, [old], 0.0)
    assert tc.next_fire_time() == 10.0
    (ev,) = tc.fire_due(10.0)
    assert ev.pod == "default/old"
    # The pending pod tolerating forever binds afterwards and stays.
    new = pod("new", "solo", [Toleration("upgrade", "Exists", "", NE)])
    tc.pod_updated(new, solo, 10.0)
    assert tc.next_fire_time() is None
