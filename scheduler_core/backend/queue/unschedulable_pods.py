"""The unschedulable pool (upstream `backend/queue/unschedulable_pods.go`).

Pods that were tried and rejected, or that a PreEnqueue plugin gates, wait here until a cluster
event their rejecting plugins care about arrives (or the 5-minute leftover flush). Upstream keeps a
Go map, whose iteration order is random; this keeps insertion order, which is one of the orders
upstream could produce and makes runs reproducible.
"""

from __future__ import annotations

from collections.abc import Iterator

from scheduler_core.api.types import Pod
from scheduler_core.framework.types import QueuedPodInfo


class UnschedulablePods:
    __slots__ = ("pod_info_map",)

    def __init__(self) -> None:
        self.pod_info_map: dict[str, QueuedPodInfo] = {}

    def add_or_update(self, pinfo: QueuedPodInfo, event: str = "") -> None:
        self.pod_info_map[pinfo.pod.key] = pinfo

    def delete(self, pod: Pod, gated: bool = False) -> None:
        self.pod_info_map.pop(pod.key, None)

    def get(self, pod: Pod) -> QueuedPodInfo | None:
        return self.pod_info_map.get(pod.key)

    def get_by_key(self, key: str) -> QueuedPodInfo | None:
        return self.pod_info_map.get(key)

    def clear(self) -> None:
        self.pod_info_map = {}

    def values(self) -> list[QueuedPodInfo]:
        return list(self.pod_info_map.values())

    def __len__(self) -> int:
        return len(self.pod_info_map)

    def __iter__(self) -> Iterator[QueuedPodInfo]:
        return iter(list(self.pod_info_map.values()))

    def __getstate__(self) -> dict:
        return {"pod_info_map": self.pod_info_map}

    def __setstate__(self, state: dict) -> None:
        self.pod_info_map = state["pod_info_map"]
