"""When the informer reports a bound pod: after the scheduler's next Pop (upstream's
asynchronous binding cycle).

Upstream runs the binding cycle in a goroutine (schedule_one.go: ScheduleOne starts
bindingCycle with `go`) and goes straight back to Pop. The "pod assigned" update that the
Bind API call causes reaches the scheduler through the pod informer (eventhandlers.go:
updatePodInCache → addPod to the cache and the AssignedPodAdd move), which takes a watch
round-trip; popping the next pod takes none. So with one scheduler at parallelism 1 the next
pod is already in flight when the update arrives: if that pod then fails, the update is one of
its in-flight events and its queueing hints may requeue it (v1.35), or it counts as a move
request received during its cycle (v1.30: moveRequestCycle). Pods the update moves queue
behind the pod already popped. When nothing is left to pop, the scheduler is idle in Pop and
the update arrives then.

The engine keeps the updates of finished bindings here and delivers them, in binding order,
right after the next successful Pop (or when Pop finds nothing).
"""

from __future__ import annotations

from typing import Any, Protocol

from scheduler_core.api.types import Pod


class Scheduler(Protocol):
    """The scheduler the held-back events are delivered to: its delete handler
    (eventhandlers.py) and its API server, whose update delivery reaches the scheduler and the
    controllers that watch pods (apiserver/server.py)."""

    cluster: Any
    client: Any

    def on_pod_delete(self, pod: Pod) -> None: ...


class PendingBindUpdates:
    """Informer events caused by the scheduler's own goroutines and not delivered yet: the
    pod-assigned updates of finished bindings (the pod's unassigned version is kept) and,
    with SchedulerAsyncPreemption, the Delete events of preemption victims."""

    __slots__ = ("_events",)

    def __init__(self) -> None:
        self._events: list[tuple[str, Pod]] = []

    def add(self, old: Pod) -> None:
        self._events.append(("update", old))

    def add_delete(self, pod: Pod) -> None:
        self._events.append(("delete", pod))

    def pending(self) -> bool:
        return bool(self._events)

    def deliver(self, sched: Scheduler) -> None:
        """Run the handlers in the order the API changes happened. An update is delivered as old
        version → the API's current one; a pod deleted in the meantime gets none (its Delete
        event follows or was handled already). A held-back Delete goes to the scheduler only:
        the controllers heard it when the pod was deleted."""
        while self._events:
            kind, pod = self._events.pop(0)
            if kind == "delete":
                sched.on_pod_delete(pod)
                continue
            cur = sched.cluster.pods.get(pod.key)
            if cur is None or not cur.node_name:
                continue
            sched.client.deliver_pod_update(pod, cur)
