"""The unschedulable pool (upstream `backend/queue/unschedulable_pods.go`).

Pods that were tried and rejected, or that a PreEnqueue plugin gates, wait here until a cluster
event their rejecting plugins care about arrives (or the 5-minute leftover flush). Upstream keeps a
Go map, whose iteration order is random; this keeps insertion order, which is one of the orders
upstream could produce and makes runs reproducible.

The pool also answers "which waiting pod is the oldest the leftover flush could move?" (the
queue asks on every simulation step to know when the next flush is due). Upstream's ticker needs
no such answer; here scanning the whole pool each step made a run quadratic in its pending pods.
So the pool keeps a min-heap of (timestamp, order, key, pod info) for the pods the flush may move
(not gated, or gated by a plugin that listens to UnschedulableTimeout), lazily invalidated:
an entry counts only while its pod info is still the one stored under its key, with the same
timestamp, and still movable. Whoever changes a stored pod's gate in place calls `refresh`
(add_or_update does it); a timestamp changed in place (they only grow on the virtual clock) is
noticed when its entry reaches the top and re-filed there.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator

from scheduler_core.api.types import Pod
from scheduler_core.framework import events as fe
from scheduler_core.framework.types import QueuedPodInfo

# Rebuild the heap when stale entries outnumber live pods by this factor (plus a floor), so a
# long run that re-files the same pods does not grow it without bound.
_COMPACT_FACTOR = 2
_COMPACT_FLOOR = 64


def leftover_movable(pinfo: QueuedPodInfo) -> bool:
    """Whether the leftover flush may move this pod: any pod not gated, and a gated one only if
    its gating plugin registered for the UnschedulableTimeout event."""
    if not pinfo.gated:
        return True
    return fe.match_any_cluster_event(fe.EVENT_UNSCHEDULABLE_TIMEOUT, pinfo.gating_plugin_events)


class UnschedulablePods:
    __slots__ = ("pod_info_map", "_heap", "_filed", "_order")

    def __init__(self) -> None:
        self.pod_info_map: dict[str, QueuedPodInfo] = {}
        self._reset_index()

    # ------------------------------------------------------------------------------------------
    # the oldest-movable index
    def _reset_index(self) -> None:
        # (timestamp, order, key, pinfo); order breaks ties so pod infos are never compared.
        self._heap: list[tuple[float, int, str, QueuedPodInfo]] = []
        # key -> (pinfo, timestamp) of the live heap entry, so re-adding an unchanged pod
        # files nothing new.
        self._filed: dict[str, tuple[QueuedPodInfo, float]] = {}
        self._order = 0

    def _file(self, key: str, pinfo: QueuedPodInfo) -> None:
        """Make sure the heap holds a live entry for this stored pod if the flush may move it."""
        ts = pinfo.timestamp
        filed = self._filed.get(key)
        if filed is not None and filed[0] is pinfo and filed[1] == ts:
            return
        if not leftover_movable(pinfo):
            self._filed.pop(key, None)
            return
        self._order += 1
        heapq.heappush(self._heap, (ts, self._order, key, pinfo))
        self._filed[key] = (pinfo, ts)
        if len(self._heap) > _COMPACT_FACTOR * len(self.pod_info_map) + _COMPACT_FLOOR:
            self._rebuild()

    def _rebuild(self) -> None:
        self._reset_index()
        for key, pinfo in self.pod_info_map.items():
            self._file(key, pinfo)

    def refresh(self, pinfo: QueuedPodInfo) -> None:
        """A stored pod's gate (or gating plugin) changed in place: file or unfile it."""
        key = pinfo.pod.key
        if self.pod_info_map.get(key) is not pinfo:
            return
        filed = self._filed.get(key)
        if filed is not None and filed[0] is pinfo and not leftover_movable(pinfo):
            del self._filed[key]
            return
        self._file(key, pinfo)

    def oldest_movable_timestamp(self) -> float | None:
        """The smallest timestamp among stored pods the leftover flush may move (None if none).
        Amortised O(log n): stale entries are dropped as they surface."""
        while self._heap:  # (re-filing may rebuild the heap: always read it afresh)
            heap = self._heap
            ts, _, key, pinfo = heap[0]
            filed = self._filed.get(key)
            if (self.pod_info_map.get(key) is pinfo and filed is not None and filed[0] is pinfo
                    and filed[1] == ts):
                if pinfo.timestamp == ts and leftover_movable(pinfo):
                    return ts
                heapq.heappop(heap)
                del self._filed[key]
                self._file(key, pinfo)  # re-filed at its current timestamp, if still movable
                continue
            heapq.heappop(heap)
        return None

    # ------------------------------------------------------------------------------------------
    # the map
    def add_or_update(self, pinfo: QueuedPodInfo, event: str = "") -> None:
        key = pinfo.pod.key
        self.pod_info_map[key] = pinfo
        self._file(key, pinfo)

    def delete(self, pod: Pod, gated: bool = False) -> None:
        key = pod.key
        if self.pod_info_map.pop(key, None) is not None:
            self._filed.pop(key, None)

    def get(self, pod: Pod) -> QueuedPodInfo | None:
        return self.pod_info_map.get(pod.key)

    def get_by_key(self, key: str) -> QueuedPodInfo | None:
        return self.pod_info_map.get(key)

    def clear(self) -> None:
        self.pod_info_map = {}
        self._reset_index()

    def values(self) -> list[QueuedPodInfo]:
        return list(self.pod_info_map.values())

    def __len__(self) -> int:
        return len(self.pod_info_map)

    def __iter__(self) -> Iterator[QueuedPodInfo]:
        return iter(list(self.pod_info_map.values()))

    # A checkpoint holds the map only (its format is unchanged); the index is rebuilt from it.
    def __getstate__(self) -> dict:
        return {"pod_info_map": self.pod_info_map}

    def __setstate__(self, state: dict) -> None:
        self.pod_info_map = state["pod_info_map"]
        self._rebuild()
