"""The backoff queue (upstream `backend/queue/backoff_queue.go`).

A pod that failed waits out a backoff that doubles with each failed attempt (initial * 2^(n-1),
capped at the maximum) before it may be retried, so a pod that keeps failing does not starve the
others. Two heaps: pods rejected by plugins (ordered by backoff expiry, then — with the
SchedulerPopFromBackoffQ gate, beta and on in v1.35 — like activeQ within the same 1-second
window) and pods that failed with an error (ordered by expiry only), whose backoff counts errors
rather than rejections. With the gate, expiries are truncated to whole seconds ("ordering
windows") and a pod still counts as backing off during its expiry's own window.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from scheduler_core.backend.heap import Heap
from scheduler_core.framework.types import QueuedPodInfo

# Width of an ordering window in the backoff queue (also the flush period), seconds.
BACKOFF_Q_ORDERING_WINDOW = 1.0

# Go's zero time.Time: "no backoff at all"; earlier than any real time.
ZERO_TIME = float("-inf")

_NS = 1_000_000_000
_EPS = 1e-9


def pod_info_key(pinfo: QueuedPodInfo) -> str:
    """namespace/name, the key every queue structure uses (upstream podInfoKeyFunc)."""
    return pinfo.pod_info.pod.key


def seconds_to_ns(s: float) -> int:
    return int(round(s * _NS))


def calculate_backoff_duration_ns(count: int, initial_ns: int, max_ns: int) -> int:
    """initial << (count-1), or max once that would exceed max. The comparison is done by shifting
    max right (as upstream does), so no intermediate value overflows however large count gets."""
    if count <= 0:
        return 0
    shift = count - 1
    if initial_ns > (max_ns >> shift):
        return max_ns
    return initial_ns << shift


class BackoffQueue:
    """podBackoffQ + podErrorBackoffQ, seen from outside as one queue."""

    def __init__(
        self,
        clock: object,
        initial_backoff_seconds: float,
        max_backoff_seconds: float,
        active_q_less: Callable[[QueuedPodInfo, QueuedPodInfo], bool],
        pop_from_backoff_q_enabled: bool = True,
    ) -> None:
        self.clock = clock
        self.initial_ns = seconds_to_ns(initial_backoff_seconds)
        self.max_ns = seconds_to_ns(max_backoff_seconds)
        self.active_q_less = active_q_less
        self.pop_enabled = pop_from_backoff_q_enabled
        less = self.less_backoff_completed_with_priority if pop_from_backoff_q_enabled else self.less_backoff_completed
        self.pod_backoff_q: Heap[QueuedPodInfo] = Heap(pod_info_key, less)
        self.pod_error_backoff_q: Heap[QueuedPodInfo] = Heap(pod_info_key, self.less_backoff_completed)

    # --- timing -------------------------------------------------------------------------------
    def align_to_window(self, t: float) -> float:
        """Truncate to the ordering window (whole seconds) when PopFromBackoffQ is enabled."""
        if not self.pop_enabled:
            return t
        return math.floor(t + _EPS)

    def calculate_backoff_duration(self, count: int) -> float:
        """Backoff in seconds for the count-th consecutive failure."""
        return calculate_backoff_duration_ns(count, self.initial_ns, self.max_ns) / _NS

    def get_backoff_time(self, pinfo: QueuedPodInfo) -> float:
        """When the pod's backoff completes (cached on the pod until it is re-queued after its next
        attempt). Errors count instead of rejections when the last attempt ended in an error; a pod
        never rejected, or a zero max backoff, gets no backoff (ZERO_TIME)."""
        if self.max_ns == 0:
            return ZERO_TIME
        count = pinfo.unschedulable_count
        if pinfo.consecutive_errors_count > 0:
            count = pinfo.consecutive_errors_count
        if count == 0:
            return ZERO_TIME
        if pinfo.backoff_expiration is None:
            pinfo.backoff_expiration = self.align_to_window(pinfo.timestamp + self.calculate_backoff_duration(count))
        return pinfo.backoff_expiration

    def is_pod_backing_off(self, pinfo: QueuedPodInfo) -> bool:
        """True while the backoff has not completed; with ordering windows, the whole window the
        expiry falls in still counts as backing off."""
        return not (self.get_backoff_time(pinfo) < self.align_to_window(self.clock.now()))

    # --- orderings ---------------------------------------------------------------------------
    def less_backoff_completed_with_priority(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        bo1 = self.get_backoff_time(a)
        bo2 = self.get_backoff_time(b)
        if bo1 != bo2:
            return bo1 < bo2
        return self.active_q_less(a, b)

    def less_backoff_completed(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        return self.get_backoff_time(a) < self.get_backoff_time(b)

    # --- operations ----------------------------------------------------------------------------
    def _pop_all_completed(self, heap: Heap[QueuedPodInfo]) -> list[QueuedPodInfo]:
        out = []
        while True:
            pinfo = heap.peek()
            if pinfo is None or self.is_pod_backing_off(pinfo):
                break
            heap.pop()
            out.append(pinfo)
        return out

    def pop_all_backoff_completed(self) -> list[QueuedPodInfo]:
        """Every pod whose backoff completed: podBackoffQ's first, then podErrorBackoffQ's."""
        return self._pop_all_completed(self.pod_backoff_q) + self._pop_all_completed(self.pod_error_backoff_q)

    def add(self, pinfo: QueuedPodInfo, event: str = "") -> None:
        """Into the error heap when no plugin rejected the pod (it failed with an error), else the
        regular one; a pod found in the other heap is left there (upstream logs an error)."""
        if not pinfo.unschedulable_plugins and not pinfo.pending_plugins:
            self.pod_error_backoff_q.add_or_update(pinfo)
            if self.pod_backoff_q.delete(pinfo):
                return
            return
        self.pod_backoff_q.add_or_update(pinfo)
        self.pod_error_backoff_q.delete(pinfo)

    def update(self, new_pod: object, old_key: str) -> QueuedPodInfo | None:
        for heap in (self.pod_backoff_q, self.pod_error_backoff_q):
            pinfo = heap.get_by_key(old_key)
            if pinfo is not None:
                pinfo.pod_info.update(new_pod)
                heap.add_or_update(pinfo)
                return pinfo
        return None

    def delete(self, pinfo: QueuedPodInfo) -> bool:
        if self.pod_backoff_q.delete(pinfo):
            return True
        return self.pod_error_backoff_q.delete(pinfo)

    def delete_by_key(self, key: str) -> bool:
        if self.pod_backoff_q.delete_by_key(key):
            return True
        return self.pod_error_backoff_q.delete_by_key(key)

    def pop_backoff(self) -> QueuedPodInfo | None:
        """Pop podBackoffQ's head (never the error heap's), regardless of its backoff."""
        return self.pod_backoff_q.pop()

    def get_by_key(self, key: str) -> QueuedPodInfo | None:
        p = self.pod_backoff_q.get_by_key(key)
        if p is not None:
            return p
        return self.pod_error_backoff_q.get_by_key(key)

    def has(self, pinfo: QueuedPodInfo) -> bool:
        return self.pod_backoff_q.has(pinfo) or self.pod_error_backoff_q.has(pinfo)

    def has_key(self, key: str) -> bool:
        return self.pod_backoff_q.has_key(key) or self.pod_error_backoff_q.has_key(key)

    def list(self) -> list[QueuedPodInfo]:
        return self.pod_backoff_q.list() + self.pod_error_backoff_q.list()

    def __len__(self) -> int:
        return len(self.pod_backoff_q) + len(self.pod_error_backoff_q)

    def len_backoff(self) -> int:
        return len(self.pod_backoff_q)

    def earliest_backoff_time(self) -> float | None:
        """The smallest backoff expiry among queued pods (each heap's head), None when empty."""
        heads = [h.peek() for h in (self.pod_backoff_q, self.pod_error_backoff_q)]
        times = [self.get_backoff_time(p) for p in heads if p is not None]
        return min(times) if times else None
