"""PriorityQueue behaviour (upstream scheduling_queue.go, v1.35: queueing hints GA,
SchedulerPopFromBackoffQ on)."""

from __future__ import annotations

import pickle

import pytest
from queue_fakes import (
    NODE_ADD,
    NODE_LABEL,
    NODE_TAINT,
    POD_DELETE,
    POD_GATES,
    FakeClock,
    HintPlugin,
    Recorder,
    SchedulingGatesPlugin,
    fail,
    make_queue,
    mkpod,
)

from scheduler_core.api.types import Affinity, LabelSelector, PodAffinity, PodAffinityTerm
from scheduler_core.backend.queue import NominatingInfo, NominatingMode
from scheduler_core.framework import events as fe
from scheduler_core.framework.types import PodInfo, QueueingHint


def pop_names(q):
    out = []
    while True:
        p = q.pop()
        if p is None:
            return out
        out.append(p.pod.name)


# --- ordering -------------------------------------------------------------------------------

def test_pop_order_priority_then_arrival_with_equal_virtual_timestamps():
    q = make_queue()
    for name, prio in [("a", 0), ("b", 10), ("c", 0), ("d", 10), ("e", 5), ("f", 0)]:
        q.add(mkpod(name, prio))
    assert pop_names(q) == ["b", "d", "e", "a", "c", "f"]


def test_equal_priority_pods_created_together_pop_in_creation_order():
    # All at virtual t=0; a plain Go heap over equal keys would give 0, 7, 6, ... (see the
    # goheap tests). Upstream's wall-clock timestamps differ, so creation order wins.
    q = make_queue()
    names = [f"p{i}" for i in range(8)]
    for n in names:
        q.add(mkpod(n))
    assert pop_names(q) == names


def test_requeued_pod_goes_behind_pods_added_earlier_at_same_instant():
    clock = FakeClock()
    q = make_queue(clock, hints=[(NODE_ADD, HintPlugin("X"))])
    q.add(mkpod("a"))
    p = q.pop()
    q.add(mkpod("b"))
    fail(q, p, "X")  # same instant, later event: a's new timestamp is "later" than b's
    clock.t = 5
    q.move_all_to_active_or_backoff_queue(NODE_ADD)
    q.add(mkpod("c"))
    assert pop_names(q) == ["b", "a", "c"]


def test_pop_counts_attempts_and_cycles_and_is_non_blocking():
    q = make_queue()
    assert q.pop() is None
    q.add(mkpod("a"))
    q.add(mkpod("b"))
    p = q.pop()
    assert (p.pod.name, p.attempts, q.scheduling_cycle) == ("a", 1, 1)
    p2 = q.pop()
    assert (p2.pod.name, q.scheduling_cycle) == ("b", 2)
    assert q.pop() is None and q.scheduling_cycle == 2
    assert {x.name for x in q.in_flight_pods()} == {"a", "b"}


def test_pop_clears_rejection_bookkeeping():
    q = make_queue(hints=[(NODE_ADD, HintPlugin("X"))])
    q.add(mkpod("a"))
    p = q.pop()
    fail(q, p, "X", pending=("Y",))
    q.activate([p.pod])
    p = q.pop()
    assert p.unschedulable_plugins == set() and p.pending_plugins == set() and p.gating_plugin == ""


def test_update_in_active_q_reorders():
    q = make_queue()
    a, b = mkpod("a", 1), mkpod("b", 2)
    q.add(a)
    q.add(b)
    a2 = mkpod("a", 5)
    q.update(a, a2)
    assert pop_names(q) == ["a", "b"]


# --- unschedulable pool, hints ---------------------------------------------------------------

def test_rejected_pod_waits_for_an_event_its_plugin_registered():
    fit = HintPlugin("NodeResourcesFit")
    rec = Recorder()
    clock = FakeClock()
    q = make_queue(clock, hints=[(NODE_ADD, fit)], recorder=rec)
    q.add(mkpod("a"))
    p = q.pop()
    fail(q, p, "NodeResourcesFit")
    assert q.unschedulable_pods.get(p.pod) is p
    q.move_all_to_active_or_backoff_queue(NODE_LABEL, None, None)  # not registered: nothing
    assert q.unschedulable_pods.get(p.pod) is p and fit.calls == []
    clock.t = 0.5
    q.move_all_to_active_or_backoff_queue(NODE_ADD, None, "node")
    assert q.backoff_q.has(p)  # still backing off (expiry 1)
    assert rec.moves[-1] == ("default/a", "unschedulable", "backoffQ", "NodeAdd", "NodeAdd")
    assert q.pop() is p  # activeQ empty: popped straight from backoffQ
    assert rec.moves[-1] == ("default/a", "backoffQ", "none", "PopFromBackoffQ", None)


def test_skip_hint_keeps_pod_unschedulable():
    fit = HintPlugin("NodeResourcesFit", QueueingHint.SKIP)
    q = make_queue(hints=[(NODE_ADD, fit)])
    q.add(mkpod("a"))
    p = q.pop()
    fail(q, p, "NodeResourcesFit")
    q.move_all_to_active_or_backoff_queue(NODE_ADD, None, "n")
    assert q.unschedulable_pods.get(p.pod) is p
    assert fit.calls == [("default/a", None, "n")]


def test_hint_only_asked_of_rejecting_plugins():
    fit, taint = HintPlugin("NodeResourcesFit"), HintPlugin("TaintToleration")
    q = make_queue(hints=[(NODE_TAINT, taint), (NODE_ADD, fit), (NODE_ADD, taint)])
    q.add(mkpod("a"))
    p = q.pop()
    fail(q, p, "NodeResourcesFit")
    q.move_all_to_active_or_backoff_queue(NODE_TAINT, None, None)
    assert taint.calls == [] and q.unschedulable_pods.get(p.pod) is p


def test_registered_update_event_covers_specific_update_not_reverse():
    from scheduler_core.framework.types import ActionType, ClusterEvent, EventResource

    pl = HintPlugin("NodeAffinity")
    q = make_queue(hints=[(ClusterEvent(EventResource.NODE, ActionType.UPDATE), pl)])
    q.add(mkpod("a"))
    p = q.pop()
    fail(q, p, "NodeAffinity")
    q.move_all_to_active_or_backoff_queue(NODE_LABEL)
    assert q.backoff_q.has(p)
    pl2 = HintPlugin("NodeAffinity")
    q2 = make_queue(hints=[(NODE_LABEL, pl2)])
    q2.add(mkpod("a"))
    p2 = q2.pop()
    fail(q2, p2, "NodeAffinity")
    q2.move_all_to_active_or_backoff_queue(ClusterEvent(EventResource.NODE, ActionType.UPDATE))
    assert q2.unschedulable_pods.get(p2.pod) is p2


def test_pending_plugin_queue_means_active_q_immediately():
    pl = HintPlugin("DynamicResources")
    q = make_queue(hints=[(NODE_ADD, pl)])
    q.add(mkpod("a"))
    p = q.pop()
    fail(q, p, pending=("DynamicResources",))
    q.move_all_to_active_or_backoff_queue(NODE_ADD)
    assert q.active_q.has(p)


def test_after_backoff_goes_to_active_q_when_backoff_already_over():
    clock = FakeClock()
    q = make_queue(clock, hints=[(NODE_ADD, HintPlugin("X"))])
    q.add(mkpod("a"))
    p = q.pop()
    fail(q, p, "X")
    clock.t = 2.0
    q.move_all_to_active_or_backoff_queue(NODE_ADD)
    assert q.active_q.has(p)


def test_precheck_filters_pods():
    q = make_queue(hints=[(POD_DELETE, HintPlugin("X"))])
    for n, prio in [("lo", 1), ("hi", 9)]:
        q.add(mkpod(n, prio))
    for p in [q.pop(), q.pop()]:
        fail(q, p, "X")
    q.move_all_to_active_or_backoff_queue(fe.EVENT_ASSIGNED_POD_DELETE, mkpod("v"), None, lambda pod: pod.priority <= 5)
    assert [x.name for x in q.pods_in_backoff_q()] == ["lo"]


def test_backoff_q_orders_same_window_by_priority():
    clock = FakeClock()
    q = make_queue(clock, hints=[(NODE_ADD, HintPlugin("X"))])
    q.add(mkpod("low", 1))
    q.add(mkpod("high", 9))
    ph = q.pop()
    pl = q.pop()
    clock.t = 0.2
    fail(q, pl, "X")  # low fails first
    clock.t = 0.7
    fail(q, ph, "X")
    q.move_all_to_active_or_backoff_queue(NODE_ADD)
    # Same window (expiry 1): priority decides, not failure time.
    assert pop_names(q) == ["high", "low"]


# --- in-flight events -------------------------------------------------------------------------

def test_event_while_in_flight_requeues_on_failure():
    """A preemptor's victims are deleted while it is in flight: when it comes back rejected,
    the recorded AssignedPodDelete makes it go to backoffQ instead of waiting."""
    fit = HintPlugin("NodeResourcesFit")
    q = make_queue(hints=[(POD_DELETE, fit)])
    q.add(mkpod("preemptor", 100))
    p = q.pop()
    victim = mkpod("victim", 0, node_name="n1")
    q.move_all_to_active_or_backoff_queue(fe.EVENT_ASSIGNED_POD_DELETE, victim, None)
    fail(q, p, "NodeResourcesFit")
    assert q.backoff_q.has(p)
    assert fit.calls == [("default/preemptor", victim, None)]
    assert q.pop() is p
    assert q.active_q.in_flight_events[0].__class__.__name__ == "InFlightPod"


def test_event_before_pop_is_not_replayed():
    fit = HintPlugin("NodeResourcesFit")
    q = make_queue(hints=[(POD_DELETE, fit)])
    q.add(mkpod("a"))
    q.move_all_to_active_or_backoff_queue(fe.EVENT_ASSIGNED_POD_DELETE, mkpod("v"), None)
    p = q.pop()
    fail(q, p, "NodeResourcesFit")
    assert q.unschedulable_pods.get(p.pod) is p


def test_in_flight_event_skipped_by_hint_leaves_pod_unschedulable():
    fit = HintPlugin("NodeResourcesFit", QueueingHint.SKIP)
    q = make_queue(hints=[(POD_DELETE, fit)])
    q.add(mkpod("a"))
    p = q.pop()
    q.move_all_to_active_or_backoff_queue(fe.EVENT_ASSIGNED_POD_DELETE, mkpod("v"), None)
    fail(q, p, "NodeResourcesFit")
    assert q.unschedulable_pods.get(p.pod) is p


def test_in_flight_event_for_pending_plugin_goes_to_active_q_despite_backoff():
    pending = HintPlugin("DynamicResources")
    unsched = HintPlugin("NodeResourcesFit")
    q = make_queue(hints=[(NODE_ADD, unsched), (NODE_TAINT, pending)])
    q.add(mkpod("a"))
    p = q.pop()
    q.move_all_to_active_or_backoff_queue(NODE_ADD)
    q.move_all_to_active_or_backoff_queue(NODE_TAINT)
    fail(q, p, "NodeResourcesFit", pending=("DynamicResources",))
    assert q.active_q.has(p)  # Pending plugin said Queue: skip the backoff


def test_in_flight_event_for_unschedulable_plugin_only_backs_off_with_pending_present():
    pending = HintPlugin("DynamicResources", QueueingHint.SKIP)
    unsched = HintPlugin("NodeResourcesFit")
    q = make_queue(hints=[(NODE_ADD, unsched), (NODE_ADD, pending)])
    q.add(mkpod("a"))
    p = q.pop()
    q.move_all_to_active_or_backoff_queue(NODE_ADD)
    fail(q, p, "NodeResourcesFit", pending=("DynamicResources",))
    assert q.backoff_q.has(p)


def test_uninteresting_events_not_recorded_and_list_pruned_on_done():
    q = make_queue(hints=[(POD_DELETE, HintPlugin("X"))])
    q.add(mkpod("a"))
    q.add(mkpod("b"))
    pa = q.pop()
    q.move_all_to_active_or_backoff_queue(NODE_ADD)  # nobody registered NodeAdd
    assert len(q.active_q.in_flight_events) == 1
    q.move_all_to_active_or_backoff_queue(fe.EVENT_ASSIGNED_POD_DELETE, mkpod("v"), None)
    pb = q.pop()
    q.move_all_to_active_or_backoff_queue(fe.EVENT_ASSIGNED_POD_DELETE, mkpod("w"), None)
    assert len(q.active_q.in_flight_events) == 4  # a, ev, b, ev
    q.done(pa.pod.uid)
    # a's marker and the event only a could see are gone; b and its event remain.
    assert len(q.active_q.in_flight_events) == 2
    q.done(pb.pod.uid)
    assert q.active_q.in_flight_events == [] and q.active_q.in_flight_pods == {}


def test_in_flight_pod_update_recorded_not_applied():
    gates = SchedulingGatesPlugin()
    lbl = HintPlugin("InterPodAffinity")
    from scheduler_core.framework.types import ActionType, ClusterEvent, EventResource

    q = make_queue(hints=[(ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_LABEL), lbl)], gates=[gates])
    a = mkpod("a", labels={"x": "1"})
    q.add(a)
    p = q.pop()
    a2 = mkpod("a", labels={"x": "2"})
    q.update(a, a2)
    assert len(q.active_q.in_flight_events) == 2
    fail(q, p, "InterPodAffinity")
    assert q.backoff_q.has(p)
    assert lbl.calls == [("default/a", a, a2)]


def test_error_failure_goes_to_backoff_without_events():
    q = make_queue()
    q.add(mkpod("a"))
    p = q.pop()
    fail(q, p)
    assert q.backoff_q.pod_error_backoff_q.has(p)


def test_add_unschedulable_rejects_duplicates_but_still_done():
    q = make_queue()
    q.add(mkpod("a"))
    p = q.pop()
    q.add(mkpod("a"))  # same key re-added while in flight (would not happen upstream)
    err = q.add_unschedulable_if_not_present(p, q.scheduling_cycle)
    assert err is not None and "active queue" in err
    assert q.active_q.in_flight_pods == {}


# --- moveRequestCycle (queueing hints disabled: pre-1.34 behaviour) -------------------------

def test_move_request_cycle_without_hints():
    q = make_queue(hints=[(NODE_ADD, HintPlugin("X"))], queueing_hints_enabled=False)
    q.add(mkpod("a"))
    q.add(mkpod("b"))
    pa = q.pop()
    cycle_a = q.scheduling_cycle
    q.move_all_to_active_or_backoff_queue(NODE_ADD)  # move request during a's cycle
    assert q.move_request_cycle == cycle_a
    pa.unschedulable_plugins = {"X"}
    q.add_unschedulable_if_not_present(pa, cycle_a)
    assert q.backoff_q.has(pa)
    pb = q.pop()  # popped from backoffQ? activeQ still has b first
    assert pb.pod.name == "b"
    cycle_b = q.scheduling_cycle
    pb.unschedulable_plugins = {"X"}
    q.add_unschedulable_if_not_present(pb, cycle_b)
    assert q.unschedulable_pods.get(pb.pod) is pb  # no move request since b's cycle began
    assert q.active_q.in_flight_pods == {}


def test_move_request_cycle_updated_even_with_hints():
    q = make_queue(hints=[(NODE_ADD, HintPlugin("X"))])
    assert q.move_request_cycle == -1
    q.add(mkpod("a"))
    q.pop()
    q.move_all_to_active_or_backoff_queue(NODE_ADD)
    assert q.move_request_cycle == 1


# --- gated pods ------------------------------------------------------------------------------

def test_gated_pod_parks_and_is_released_by_gate_removal():
    gates = SchedulingGatesPlugin()
    rec = Recorder()
    q = make_queue(hints=[(POD_GATES, gates)], gates=[gates], recorder=rec)
    g = mkpod("g", 100, scheduling_gates=["example.com/wait"])
    q.add(g)
    q.add(mkpod("x", 0))
    assert rec.moves[0] == ("default/g", "none", "gated", "UnschedulablePodAdd", None)
    assert pop_names(q) == ["x"]
    info = q.unschedulable_pods.get(g)
    assert info.gating_plugin == "SchedulingGates" and info.unschedulable_plugins == {"SchedulingGates"}
    assert info.gating_plugin_events == [POD_GATES]
    # Unrelated events do not touch gated pods, not even wildcard ones (PreEnqueue not rerun).
    calls = gates.pre_enqueue_calls
    q.move_all_to_active_or_backoff_queue(fe.EVENT_UNSCHEDULABLE_TIMEOUT)
    q.move_all_to_active_or_backoff_queue(NODE_ADD)
    assert q.unschedulable_pods.get(g) is info and gates.pre_enqueue_calls == calls
    g2 = mkpod("g", 100)
    q.update(g, g2)
    assert q.active_q.has(info) and info.gating_plugin == ""
    assert rec.moves[-1][1:] == ("gated", "activeQ", "UnschedulablePodUpdatePodSchedulingGatesEliminated",
                                 "UnschedulablePodUpdatePodSchedulingGatesEliminated")
    p = q.pop()
    assert p.pod.name == "g" and p.attempts == 1


def test_gated_pod_update_keeping_gates_stays_gated():
    gates = SchedulingGatesPlugin()
    q = make_queue(hints=[(POD_GATES, gates)], gates=[gates])
    g = mkpod("g", scheduling_gates=["a", "b"])
    q.add(g)
    q.update(g, mkpod("g", scheduling_gates=["a"]))
    assert q.unschedulable_pods.get(g).gated
    assert q.pop() is None


def test_gated_pods_do_not_arm_the_leftover_timer():
    gates = SchedulingGatesPlugin()
    q = make_queue(hints=[(POD_GATES, gates)], gates=[gates])
    q.add(mkpod("g", scheduling_gates=["a"]))
    assert q.next_wakeup(0.0) is None


# --- activate / delete -----------------------------------------------------------------------

def test_activate_from_unschedulable_and_backoff():
    clock = FakeClock()
    rec = Recorder()
    q = make_queue(clock, hints=[(NODE_ADD, HintPlugin("X"))], recorder=rec)
    q.add(mkpod("a"))
    q.add(mkpod("b"))
    pa, pb = q.pop(), q.pop()
    fail(q, pa, "X")
    fail(q, pb)  # error -> backoffQ
    q.activate([pa.pod, pb.pod, mkpod("unknown")])
    assert q.active_q.has(pa) and q.active_q.has(pb)
    assert ("default/a", "unschedulable", "activeQ", "ForceActivate", "ForceActivate") in rec.moves
    assert ("default/b", "backoffQ", "activeQ", "ForceActivate", "ForceActivate") in rec.moves


def test_activate_in_flight_pod_requeues_it_when_it_fails():
    q = make_queue(hints=[(NODE_ADD, HintPlugin("X"))])
    q.add(mkpod("a"))
    q.add(mkpod("other"))
    p = q.pop()
    q.pop()
    q.activate([p.pod])
    fail(q, p, "X")
    assert q.backoff_q.has(p)
    # The wildcard ForceActivate carries the pod: it does not requeue another in-flight pod.


def test_force_activate_for_another_pod_is_skipped():
    q = make_queue(hints=[(NODE_ADD, HintPlugin("X"))])
    q.add(mkpod("a"))
    q.add(mkpod("b"))
    pa, pb = q.pop(), q.pop()
    q.activate([pa.pod])
    fail(q, pb, "X")
    assert q.unschedulable_pods.get(pb.pod) is pb


def test_delete_everywhere():
    q = make_queue(hints=[(NODE_ADD, HintPlugin("X"))])
    for n in "abc":
        q.add(mkpod(n))
    pa, pb = q.pop(), q.pop()
    fail(q, pa, "X")
    fail(q, pb)
    for n in "abc":
        q.delete(mkpod(n))
    assert q.active_len() == 0 and q.backoff_len() == 0 and len(q.unschedulable_pods) == 0


def test_update_of_unknown_pod_adds_it():
    q = make_queue()
    q.update(mkpod("a"), mkpod("a", 3))
    assert pop_names(q) == ["a"]


# --- timers ------------------------------------------------------------------------------------

def test_backoff_flush_timing():
    clock = FakeClock()
    rec = Recorder()
    q = make_queue(clock, hints=[(NODE_ADD, HintPlugin("X"))], recorder=rec)
    q.add(mkpod("a"))
    q.add(mkpod("blocker"))
    p = q.pop()
    fail(q, p, "X")  # t=0, expiry window 1
    q.move_all_to_active_or_backoff_queue(NODE_ADD)
    assert q.backoff_q.has(p)
    assert q.next_wakeup(0.0) == 2.0  # first tick after window 1
    clock.t = 1.0
    q.flush_backoff_q_completed()
    assert q.backoff_q.has(p)
    clock.t = 2.0
    q.run_due_timers(2.0)
    assert q.active_q.has(p)
    assert rec.moves[-1] == ("default/a", "backoffQ", "activeQ", "BackoffComplete", None)
    assert q.next_wakeup(2.0) is None


def test_backoff_wakeup_on_later_ticks():
    clock = FakeClock(3.4)
    q = make_queue(clock, hints=[(NODE_ADD, HintPlugin("X"))])
    q.add(mkpod("a"))
    q.add(mkpod("blocker"))
    p = q.pop()
    p.unschedulable_count = 2  # third failure next: 4 s
    fail(q, p, "X")
    q.move_all_to_active_or_backoff_queue(NODE_ADD)
    assert q.backoff_q.get_backoff_time(p) == 7.0  # floor(3.4 + 4)
    assert q.next_backoff_wakeup(3.4) == 8.0


def test_unschedulable_leftover_flush_after_five_minutes_on_30s_ticks():
    clock = FakeClock()
    rec = Recorder()
    q = make_queue(clock, hints=[(NODE_ADD, HintPlugin("X"))], recorder=rec)
    q.add(mkpod("a"))
    p = q.pop()
    clock.t = 12.0
    fail(q, p, "X")
    # Moved at the first 30-s tick more than 300 s after t=12: 330 (318 is no tick).
    assert q.next_wakeup(12.0) == 330.0
    clock.t = 300.0
    q.flush_unschedulable_pods_leftover()
    assert q.unschedulable_pods.get(p.pod) is p
    clock.t = 330.0
    q.run_due_timers(330.0)
    assert q.active_q.has(p)
    assert rec.moves[-1] == ("default/a", "unschedulable", "activeQ", "UnschedulableTimeout", "UnschedulableTimeout")


def test_leftover_exactly_300s_is_not_enough():
    clock = FakeClock()
    q = make_queue(clock, hints=[(NODE_ADD, HintPlugin("X"))])
    q.add(mkpod("a"))
    p = q.pop()
    fail(q, p, "X")  # t=0
    assert q.next_leftover_wakeup(0.0) == 330.0
    clock.t = 300.0
    q.flush_unschedulable_pods_leftover()
    assert q.unschedulable_pods.get(p.pod) is p


def test_zero_max_backoff_goes_straight_to_active_q():
    clock = FakeClock()
    q = make_queue(clock, hints=[(NODE_ADD, HintPlugin("X"))], pod_max_backoff_seconds=0)
    q.add(mkpod("a"))
    pa = q.pop()
    fail(q, pa)  # error, but max backoff 0: not backing off
    assert q.active_q.has(pa)


def test_wakeup_not_repeated_for_tick_just_flushed():
    # Without hints, a move request sends a failed pod to backoffQ even with no backoff left.
    clock = FakeClock()
    q = make_queue(clock, hints=[(NODE_ADD, HintPlugin("X"))], pod_max_backoff_seconds=0,
                   queueing_hints_enabled=False)
    q.add(mkpod("a"))
    pa = q.pop()
    clock.t = 2.0
    q.move_all_to_active_or_backoff_queue(NODE_ADD)
    q.flush_backoff_q_completed()
    pa.unschedulable_plugins = {"X"}
    q.add_unschedulable_if_not_present(pa, q.scheduling_cycle)
    assert q.backoff_q.has(pa)
    assert q.next_backoff_wakeup(2.0) == 3.0  # the 2.0 tick already ran
    assert q.next_backoff_wakeup(2.5) == 3.0


# --- assigned pod events (legacy pre-filter) ---------------------------------------------------

def test_assigned_pod_added_only_moves_pods_with_matching_affinity():
    ipa = HintPlugin("InterPodAffinity")
    q = make_queue(hints=[(fe.EVENT_ASSIGNED_POD_ADD, ipa)])
    term = PodAffinityTerm(label_selector=LabelSelector(match_labels={"app": "db"}), topology_key="zone")
    wants_db = mkpod("wants-db", affinity=Affinity(pod_affinity=PodAffinity(required=[term])))
    other = mkpod("other")
    q.add(wants_db)
    q.add(other)
    for p in [q.pop(), q.pop()]:
        fail(q, p, "InterPodAffinity")
    q.assigned_pod_added(mkpod("db-0", labels={"app": "db"}, node_name="n1"))
    assert [x.name for x in q.pods_in_backoff_q()] == ["wants-db"]


# --- nominator ---------------------------------------------------------------------------------

def test_nominator_order_and_lookup():
    q = make_queue()
    pods = [mkpod(n, 10) for n in "abc"]
    for p in pods:
        q.add(p)
    infos = {}
    for _ in range(3):
        x = q.pop()
        infos[x.pod.name] = x
    for n in "abc":
        q.add_nominated_pod(infos[n].pod_info, NominatingInfo("n1", NominatingMode.OVERRIDE))
    assert [pi.pod.name for pi in q.nominated_pods_for_node("n1")] == ["a", "b", "c"]
    q.delete_nominated_pod_if_exists(pods[1])
    q.add_nominated_pod(infos["b"].pod_info, NominatingInfo("n1", NominatingMode.OVERRIDE))
    assert [pi.pod.name for pi in q.nominated_pods_for_node("n1")] == ["a", "c", "b"]
    # In flight (in no queue): a metadata-only pod stands in, priority 0 and no requests.
    stub = q.nominated_pods_for_node("n1")[0]
    assert stub.pod.name == "a" and stub.pod.priority == 0 and stub.pod.containers == []
    # Back in the pool: the real PodInfo.
    fail(q, infos["a"], "X")
    assert q.nominated_pods_for_node("n1")[0] is infos["a"].pod_info
    # Re-nominating elsewhere moves it.
    q.add_nominated_pod(infos["c"].pod_info, NominatingInfo("n2", NominatingMode.OVERRIDE))
    assert [pi.pod.name for pi in q.nominated_pods_for_node("n1")] == ["a", "b"]
    assert [pi.pod.name for pi in q.nominated_pods_for_node("n2")] == ["c"]
    assert q.nominated_pods_for_node("n3") == []


def test_nominator_noop_uses_status_and_update_keeps_memory_nomination():
    q = make_queue()
    p = mkpod("p", nominated_node_name="n9")
    q.add(p)  # UnscheduledPodAdd: registers the status' nomination
    assert [pi.pod.name for pi in q.nominated_pods_for_node("n9")] == ["p"]
    q.add_nominated_pod(PodInfo(mkpod("z")), None)  # no status, Noop: nothing
    assert q.nominator.nominated_pod_to_node.get("uid-default-z") is None
    # In-memory nomination without status survives an update that carries none either.
    x = mkpod("x")
    q.add_nominated_pod(PodInfo(x), NominatingInfo("n1", NominatingMode.OVERRIDE))
    q.update_nominated_pod(x, PodInfo(mkpod("x", labels={"a": "b"})))
    assert [pi.pod.name for pi in q.nominated_pods_for_node("n1")] == ["x"]
    # Deleting the pod from the queue drops its nomination.
    q.delete(p)
    assert q.nominated_pods_for_node("n9") == []


def test_nominator_pod_lister_refuses_bound_or_missing():
    live = {"default/a": mkpod("a"), "default/b": mkpod("b", node_name="n1")}
    q = make_queue(pod_lister=lambda ns, name: live.get(f"{ns}/{name}"))
    for n in "abc":
        q.add_nominated_pod(PodInfo(mkpod(n)), NominatingInfo("n1", NominatingMode.OVERRIDE))
    assert [pi.pod.name for pi in q.nominated_pods_for_node("n1")] == ["a"]


# --- UI summary, pickling ------------------------------------------------------------------------

def test_pending_pods_summary():
    clock = FakeClock()
    q = make_queue(clock, hints=[(NODE_ADD, HintPlugin("X"))])
    for n, prio in [("a", 1), ("b", 2), ("c", 3), ("d", 0)]:
        q.add(mkpod(n, prio))
    pc, pb = q.pop(), q.pop()
    fail(q, pc, "X")
    fail(q, pb, "X", pending=("Y",))
    q.move_all_to_active_or_backoff_queue(NODE_ADD)  # b: pending plugin Y not asked; X says queue
    s = q.pending_pods()
    assert [e["pod"] for e in s["activeQ"]] == ["default/a", "default/d"]
    assert [e["pod"] for e in s["backoffQ"]] == ["default/c", "default/b"]
    assert s["backoffQ"][0]["backoffExpiry"] == 1.0 and s["backoffQ"][0]["attempts"] == 1
    assert s["summary"] == "activeQ:2; backoffQ:2; unschedulablePods:0"


def test_pickle_roundtrip_drops_and_reattaches_callbacks():
    clock = FakeClock()
    rec = Recorder()
    q = make_queue(clock, hints=[(NODE_ADD, HintPlugin("X"))], recorder=lambda *a: rec(*a))
    for n, prio in [("a", 1), ("b", 2), ("c", 3)]:
        q.add(mkpod(n, prio))
    p = q.pop()
    clock.t = 0.5
    q.move_all_to_active_or_backoff_queue(NODE_ADD)
    fail(q, p, "X")
    blob = pickle.dumps(q)
    q2 = pickle.loads(blob)
    assert q2.on_move is None
    rec2 = Recorder()
    q2.attach_callbacks(on_move=rec2)
    assert pop_names(q2) == ["b", "a", "c"] == pop_names(q)
    assert rec2.moves and rec2.moves[0][2] == "none"


@pytest.mark.parametrize("hints_enabled", [True, False])
def test_an_event_with_nothing_to_move_keeps_only_the_bookkeeping(monkeypatch, hints_enabled):
    """With no unschedulable pod (every bound pod of a big start), a move request walks nothing
    but still records the move request cycle and, with hints, the event for pods in flight."""
    q = make_queue(hints=[(NODE_ADD, HintPlugin("X"))], queueing_hints_enabled=hints_enabled)
    q.add(mkpod("a"))
    q.pop()

    def walked(*args):
        raise AssertionError("the empty pool was walked")

    monkeypatch.setattr(q, "_move_pods_to_active_or_backoff_queue", walked)
    q.move_all_to_active_or_backoff_queue(NODE_ADD, None, "new")
    assert q.move_request_cycle == q.scheduling_cycle == 1
    events = [(e.event, e.new_obj) for e in q.active_q.in_flight_events if hasattr(e, "event")]
    assert events == ([(NODE_ADD, "new")] if hints_enabled else [])
