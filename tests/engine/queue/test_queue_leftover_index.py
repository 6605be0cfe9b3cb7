"""The leftover flush's next due time comes from an index kept by the unschedulable pool, not a
scan of every waiting pod on each step (issue #43: with 15,000 unschedulable pods a why-pending
run spent most of its time there). The answers must stay exactly those of the scan."""

from __future__ import annotations

import math
import pickle
import random

from queue_fakes import (
    NODE_ADD,
    POD_GATES,
    FakeClock,
    HintPlugin,
    SchedulingGatesPlugin,
    fail,
    make_queue,
    mkpod,
)

from scheduler_core.backend.queue.scheduling_queue import UNSCHEDULABLE_LEFTOVER_FLUSH_PERIOD
from scheduler_core.framework import events as fe
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import QueueingHint


class CountingMap(dict):
    """The pool's map, counting the pod infos anyone walks through."""

    scanned = 0

    def values(self):
        for v in super().values():
            self.scanned += 1
            yield v

    def items(self):
        for kv in super().items():
            self.scanned += 1
            yield kv

    def __iter__(self):
        for k in super().__iter__():
            self.scanned += 1
            yield k


class HoldGate:
    """A PreEnqueue plugin gating pods labelled hold=yes; it registers for UnschedulableTimeout,
    so the leftover flush may move the pods it gates (unlike SchedulingGates)."""

    name = "HoldGate"

    def pre_enqueue(self, pod):
        if pod.labels.get("hold") == "yes":
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "held", plugin=self.name)
        return None

    def hint(self, pod, old, new):
        return QueueingHint.QUEUE if new is not None and new.labels.get("hold") != "yes" else QueueingHint.SKIP


def scanned_oldest(q) -> float | None:
    """The reference: every pool pod the flush could move, scanned (the former implementation)."""
    oldest = None
    for p in list(dict.values(q.unschedulable_pods.pod_info_map)):
        if p.gated and not fe.match_any_cluster_event(fe.EVENT_UNSCHEDULABLE_TIMEOUT, p.gating_plugin_events):
            continue
        if oldest is None or p.timestamp < oldest:
            oldest = p.timestamp
    return oldest


def reference_wakeup(q, now: float) -> float | None:
    oldest = scanned_oldest(q)
    if oldest is None:
        return None
    period = UNSCHEDULABLE_LEFTOVER_FLUSH_PERIOD
    x = (oldest + q.pod_max_in_unschedulable_pods_duration - q.start_time) / period
    t = q.start_time + max(0, math.floor(x + 1e-9) + 1) * period
    return max(t, q._next_tick(q.start_time, period, now, q._last_leftover_flush))


def test_a_wakeup_does_not_walk_the_unschedulable_pool():
    clock = FakeClock()
    q = make_queue(clock, hints=[(NODE_ADD, HintPlugin("X"))])
    n = 2000
    for i in range(n):
        q.add(mkpod(f"p{i}"))
    for i in range(n):
        clock.t = i * 0.01
        fail(q, q.pop(), "X")
    assert len(q.unschedulable_pods) == n
    counting = CountingMap(q.unschedulable_pods.pod_info_map)
    q.unschedulable_pods.pod_info_map = counting
    answers = {q.next_leftover_wakeup(clock.t) for _ in range(50)}
    assert answers == {330.0}
    # The scan visited all 2,000 pods per call (100,000 here); the index visits none.
    assert counting.scanned == 0


def test_the_index_answers_as_the_scan_through_every_kind_of_change():
    rng = random.Random(43)
    clock = FakeClock()
    sgates, hold = SchedulingGatesPlugin(), HoldGate()
    x = HintPlugin("X", answer=QueueingHint.SKIP)
    q = make_queue(
        clock,
        hints=[(NODE_ADD, x), (POD_GATES, sgates), (fe.EVENT_UNSCHEDULABLE_TIMEOUT, hold),
               (fe.EVENT_UNSCHEDULED_POD_UPDATE, hold)],
        gates=[sgates, hold],
    )
    pods: dict[str, object] = {}
    checked = 0
    for step in range(3000):
        clock.t += rng.choice((0.0, 0.5, 3.0, 20.0))
        op = rng.random()
        name = f"p{rng.randrange(60)}"
        if op < 0.25:
            labels = {"hold": "yes"} if rng.random() < 0.3 else {}
            gates = ["g"] if rng.random() < 0.2 else []
            pod = mkpod(name, labels=labels, scheduling_gates=gates)
            old = pods.get(name)
            if old is None:
                q.add(pod)
            else:
                q.update(old, pod)
            pods[name] = pod
        elif op < 0.55:
            p = q.pop()
            if p is not None:
                fail(q, p, "X")
        elif op < 0.65 and name in pods:
            q.delete(pods.pop(name))
        elif op < 0.75:
            q.move_all_to_active_or_backoff_queue(NODE_ADD)
        elif op < 0.9:
            q.run_due_timers(clock.t)
        elif op < 0.95:
            q.flush_unschedulable_pods_leftover()
        else:
            q = pickle.loads(pickle.dumps(q))  # a checkpoint rebuilds the index
            q.attach_callbacks(clock=clock)
        assert q.unschedulable_pods.oldest_movable_timestamp() == scanned_oldest(q), step
        assert q.next_leftover_wakeup(clock.t) == reference_wakeup(q, clock.t), step
        checked += scanned_oldest(q) is not None
    assert checked > 500  # the pool was non-empty for much of the run


def test_a_gate_that_changes_in_place_is_refiled():
    """A pod waiting gated by SchedulingGates (the flush ignores it) whose gates go while the
    HoldGate still holds it: still in the pool, now movable by the flush."""
    clock = FakeClock()
    sgates, hold = SchedulingGatesPlugin(), HoldGate()
    q = make_queue(clock, hints=[(POD_GATES, sgates), (fe.EVENT_UNSCHEDULABLE_TIMEOUT, hold)],
                   gates=[sgates, hold])
    pod = mkpod("a", labels={"hold": "yes"}, scheduling_gates=["g"])
    q.add(pod)
    assert q.unschedulable_pods.get(pod).gating_plugin == "SchedulingGates"
    assert q.next_leftover_wakeup(0.0) is None
    clock.t = 5.0
    q.update(pod, mkpod("a", labels={"hold": "yes"}))
    assert q.unschedulable_pods.get(pod).gating_plugin == "HoldGate"
    assert q.next_leftover_wakeup(5.0) == reference_wakeup(q, 5.0) == 330.0
