"""The active queue and in-flight bookkeeping (upstream `backend/queue/active_queue.go`).

activeQ is a heap in QueueSort order holding the pods ready to be tried. A popped pod is
"in flight" until `done`: every cluster event the queue receives meanwhile is recorded, so that if
the attempt fails the pod can be requeued at once when one of those events may have resolved the
rejection (e.g. a preemptor's victims deleted while the preemptor was still being processed),
instead of waiting in the unschedulable pool for an event that already happened.
"""

from __future__ import annotations

from collections.abc import Callable

from scheduler_core.backend.heap import Heap
from scheduler_core.backend.queue.backoff_queue import BackoffQueue, pod_info_key
from scheduler_core.framework.types import NO_PLUGINS, ClusterEvent, QueuedPodInfo


def pod_uid(pod: object) -> str:
    """A pod's identity for in-flight/nominator tracking: its UID, or namespace/name if unset."""
    return getattr(pod, "uid", "") or pod.key  # type: ignore[attr-defined]


class InFlightPod:
    """Marker of a popped pod in the in-flight list; events after it concern it."""

    __slots__ = ("uid", "pod")

    def __init__(self, uid: str, pod: object) -> None:
        self.uid = uid
        self.pod = pod


class InFlightEvent:
    """A cluster event received while some pod was in flight (upstream clusterEvent)."""

    __slots__ = ("event", "old_obj", "new_obj")

    def __init__(self, event: ClusterEvent, old_obj: object, new_obj: object) -> None:
        self.event = event
        self.old_obj = old_obj
        self.new_obj = new_obj

    def __repr__(self) -> str:
        return f"InFlightEvent({self.event})"


class ActiveQueue:
    def __init__(
        self,
        less: Callable[[QueuedPodInfo, QueuedPodInfo], bool],
        queueing_hints_enabled: bool = True,
        backoff_q_popper: BackoffQueue | None = None,
    ) -> None:
        self.queue: Heap[QueuedPodInfo] = Heap(pod_info_key, less)
        self.in_flight_pods: dict[str, InFlightPod] = {}
        # Pod markers and events in arrival order (upstream's inFlightEvents list).
        self.in_flight_events: list[InFlightPod | InFlightEvent] = []
        self.sched_cycle = 0
        self.hints_enabled = queueing_hints_enabled
        self.backoff_q_popper = backoff_q_popper

    # --- unlocked (under-lock upstream) operations ---------------------------------------------
    def add(self, pinfo: QueuedPodInfo, event: str = "") -> None:
        self.queue.add_or_update(pinfo)

    def update(self, new_pod: object, old_key: str) -> QueuedPodInfo | None:
        pinfo = self.queue.get_by_key(old_key)
        if pinfo is None:
            return None
        pinfo.pod_info.update(new_pod)
        self.queue.add_or_update(pinfo)
        return pinfo

    def get_by_key(self, key: str) -> QueuedPodInfo | None:
        return self.queue.get_by_key(key)

    def has(self, pinfo: QueuedPodInfo) -> bool:
        return self.queue.has(pinfo)

    def has_key(self, key: str) -> bool:
        return self.queue.has_key(key)

    def delete(self, pinfo: QueuedPodInfo) -> bool:
        return self.queue.delete(pinfo)

    # --- pop / done ------------------------------------------------------------------------------
    def pop(self) -> tuple[QueuedPodInfo | None, str]:
        """Non-blocking Pop: the activeQ head, or — when activeQ is empty and PopFromBackoffQ is
        on — podBackoffQ's head. Returns (pod, "activeQ"|"backoffQ") or (None, "")."""
        while True:
            src = "activeQ"
            pinfo = self.queue.pop()
            if pinfo is None:
                if self.backoff_q_popper is None or self.backoff_q_popper.len_backoff() == 0:
                    return None, ""
                pinfo = self.backoff_q_popper.pop_backoff()
                src = "backoffQ"
                if pinfo is None:
                    return None, ""
            pinfo.attempts += 1
            if self.hints_enabled:
                uid = pod_uid(pinfo.pod)
                if uid in self.in_flight_pods:
                    # Tracked twice: upstream discards this copy and pops the next one.
                    continue
                marker = InFlightPod(uid, pinfo.pod)
                self.in_flight_pods[uid] = marker
                self.in_flight_events.append(marker)
            self.sched_cycle += 1
            pinfo.unschedulable_plugins = NO_PLUGINS
            pinfo.pending_plugins = NO_PLUGINS
            pinfo.gating_plugin = ""
            pinfo.gating_plugin_events = ()
            return pinfo, src

    def done(self, uid: str) -> None:
        marker = self.in_flight_pods.pop(uid, None)
        if marker is None:
            return
        evs = self.in_flight_events
        for i, e in enumerate(evs):
            if e is marker:
                del evs[i]
                break
        # Events before the first remaining in-flight pod concern nobody any more.
        drop = 0
        for e in evs:
            if isinstance(e, InFlightPod):
                break
            drop += 1
        if drop:
            del evs[:drop]

    # --- in-flight events ---------------------------------------------------------------------------
    def cluster_events_for_pod(self, pinfo: QueuedPodInfo) -> list[InFlightEvent] | None:
        """Events received since the pod was popped; None if it is not in flight (a bug upstream)."""
        marker = self.in_flight_pods.get(pod_uid(pinfo.pod))
        if marker is None:
            return None
        out: list[InFlightEvent] = []
        seen = False
        for e in self.in_flight_events:
            if e is marker:
                seen = True
                continue
            if seen and isinstance(e, InFlightEvent):
                out.append(e)
        return out

    def add_events_if_pod_in_flight(self, old_pod: object, new_pod: object, events: list[ClusterEvent]) -> bool:
        if pod_uid(new_pod) not in self.in_flight_pods:
            return False
        for ev in events:
            self.in_flight_events.append(InFlightEvent(ev, old_pod, new_pod))
        return True

    def add_event_if_any_in_flight(self, old_obj: object, new_obj: object, event: ClusterEvent) -> bool:
        if not self.in_flight_pods:
            return False
        self.in_flight_events.append(InFlightEvent(event, old_obj, new_obj))
        return True

    def list_in_flight_pods(self) -> list[object]:
        return [m.pod for m in self.in_flight_pods.values()]

    def __len__(self) -> int:
        return len(self.queue)
