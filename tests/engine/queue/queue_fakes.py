"""Shared fakes for the scheduling-queue tests (module-level so queues holding them pickle)."""

from __future__ import annotations

from scheduler_core.api.types import Pod
from scheduler_core.backend.queue import PriorityQueue
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import ActionType, ClusterEvent, EventResource, QueueingHint


class FakeClock:
    def __init__(self, t: float = 0.0) -> None:
        self.t = t

    def now(self) -> float:
        return self.t


def priority_less(a, b) -> bool:
    """PrioritySort: higher priority first, then earlier timestamp."""
    pa, pb = a.pod.priority, b.pod.priority
    return pa > pb or (pa == pb and a.timestamp < b.timestamp)


class HintPlugin:
    """A plugin whose queueing hint answers from a table: event label -> QUEUE/SKIP."""

    def __init__(self, name: str, answer: int = QueueingHint.QUEUE) -> None:
        self.name = name
        self.answer = answer
        self.calls: list[tuple] = []

    def hint(self, pod, old, new):
        self.calls.append((pod.key, old, new))
        return self.answer


class SchedulingGatesPlugin:
    """Like upstream SchedulingGates: gated while spec.schedulingGates is non-empty."""

    name = "SchedulingGates"

    def __init__(self) -> None:
        self.pre_enqueue_calls = 0

    def pre_enqueue(self, pod: Pod):
        self.pre_enqueue_calls += 1
        if pod.scheduling_gates:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                          f"waiting for scheduling gates: {pod.scheduling_gates}", plugin=self.name)
        return None

    def hint(self, pod, old, new):
        if new is not None and new.uid == pod.uid and not new.scheduling_gates:
            return QueueingHint.QUEUE
        return QueueingHint.SKIP


NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD)
NODE_TAINT = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_TAINT)
NODE_LABEL = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL)
POD_DELETE = ClusterEvent(EventResource.POD, ActionType.DELETE)
POD_GATES = ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)


def mkpod(name: str, priority: int = 0, ns: str = "default", **kw) -> Pod:
    return Pod(name=name, namespace=ns, uid=f"uid-{ns}-{name}", priority=priority, **kw)


class Recorder:
    def __init__(self) -> None:
        self.moves: list[tuple] = []

    def __call__(self, key, frm, to, reason, label) -> None:
        self.moves.append((key, frm, to, reason, label))


def make_queue(clock=None, plugins=None, hints=None, gates=None, recorder=None, **kw) -> PriorityQueue:
    """hints: list of (event, plugin) pairs; plugin.hint is registered (None plugin hint => always Queue)."""
    clock = clock or FakeClock()
    hint_entries = []
    for ev, pl in hints or []:
        hint_entries.append((ev, pl.name, getattr(pl, "hint", None)))
    pre = {"default-scheduler": list(gates or [])}
    return PriorityQueue(
        priority_less, clock,
        queueing_hint_map={"default-scheduler": hint_entries},
        pre_enqueue_plugins=pre,
        on_move=recorder,
        **kw,
    )


def fail(q: PriorityQueue, pinfo, *plugins: str, pending: tuple[str, ...] = ()) -> str | None:
    """Mark an attempt as rejected by `plugins` and hand it back to the queue."""
    pinfo.unschedulable_plugins = set(plugins)
    pinfo.pending_plugins = set(pending)
    return q.add_unschedulable_if_not_present(pinfo, q.scheduling_cycle)
