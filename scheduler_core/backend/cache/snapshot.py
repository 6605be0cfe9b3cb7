"""The per-cycle snapshot of the cache (upstream backend/cache/snapshot.go).

Plugins read this frozen view for a whole scheduling cycle; the cache keeps changing underneath
(assume, bind, deletions) and `Cache.update_snapshot` copies over only what changed.
"""

from __future__ import annotations

from scheduler_core.framework.types import NodeInfo


class Snapshot:
    __slots__ = ("node_info_map", "node_info_list", "have_pods_with_affinity",
                 "have_pods_with_required_anti_affinity", "generation", "index")

    def __init__(self) -> None:
        self.node_info_map: dict[str, NodeInfo] = {}
        self.node_info_list: list[NodeInfo] = []
        self.have_pods_with_affinity: list[NodeInfo] = []
        self.have_pods_with_required_anti_affinity: list[NodeInfo] = []
        self.generation = 0
        self.index: dict[str, int] = {}  # node name -> position in node_info_list

    # SharedLister / NodeInfoLister
    def list(self) -> list[NodeInfo]:
        return self.node_info_list

    def have_pods_with_affinity_list(self) -> list[NodeInfo]:
        return self.have_pods_with_affinity

    def have_pods_with_required_anti_affinity_list(self) -> list[NodeInfo]:
        return self.have_pods_with_required_anti_affinity

    def get(self, node_name: str) -> NodeInfo | None:
        return self.node_info_map.get(node_name)

    def num_nodes(self) -> int:
        return len(self.node_info_list)
