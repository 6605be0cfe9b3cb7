"""The per-cycle snapshot of the cache (upstream backend/cache/snapshot.go).

Plugins read this frozen view for a whole scheduling cycle; the cache keeps changing underneath
(assume, bind, deletions) and `Cache.update_snapshot` copies over only what changed.
"""

from __future__ import annotations

from scheduler_core.backend.cache.affinity_counts import AffinityTermCounts
from scheduler_core.backend.cache.node_arrays import MIN_NODES, NodeArrays, RowLog
from scheduler_core.backend.cache.spread_counts import SpreadCounts
from scheduler_core.framework.types import NodeInfo


def node_traits(ni: NodeInfo) -> tuple[int, int, int]:
    """(has taints, is cordoned, holds images) of one NodeInfo, as 0/1 counts."""
    node = ni.node
    if node is None:
        return 0, 0, int(bool(ni.image_states))
    return int(bool(node.taints)), int(bool(node.unschedulable)), int(bool(ni.image_states))


class Snapshot:
    __slots__ = ("node_info_map", "node_info_list", "have_pods_with_affinity",
                 "have_pods_with_required_anti_affinity", "generation", "index",
                 "num_tainted", "num_unschedulable", "num_with_images", "arrays", "row_log",
                 "spread_counts", "affinity_counts")

    def __init__(self) -> None:
        self.node_info_map: dict[str, NodeInfo] = {}
        self.node_info_list: list[NodeInfo] = []
        self.have_pods_with_affinity: list[NodeInfo] = []
        self.have_pods_with_required_anti_affinity: list[NodeInfo] = []
        self.generation = 0
        self.index: dict[str, int] = {}  # node name -> position in node_info_list
        # How many nodes of the snapshot have taints, are cordoned, hold images: plugins whose
        # per-node work is nil on nodes without these answer for every node at once when none has.
        self.num_tainted = 0
        self.num_unschedulable = 0
        self.num_with_images = 0
        # The nodes as NumPy columns (node_arrays.py), built on first use by the fast path,
        # rows rewritten for changed nodes, dropped when nodes are added or removed.
        self.arrays: NodeArrays | None = None
        # The slots of node_info_list replaced in place since it was built (a new log with a new
        # list): the fast path's kept row values read what changed from it (RowValues).
        self.row_log = RowLog()
        # Matching-pod counts per spreading selector, kept in step by Cache.update_snapshot.
        self.spread_counts = SpreadCounts()
        # Existing pods' inter-pod affinity terms per topology pair, kept in step the same way.
        self.affinity_counts = AffinityTermCounts()

    def node_arrays(self) -> NodeArrays | None:
        """The columns of every node (built now if needed), or None when the snapshot is too
        small for vector work to pay or some value is too large for it to be exact."""
        if len(self.node_info_list) < MIN_NODES:
            return None
        if self.arrays is None:
            self.arrays = NodeArrays(self.node_info_list)
        return self.arrays if self.arrays.exact else None

    def recount(self) -> None:
        """Recompute the trait counts over all nodes (after nodes were added or removed)."""
        t = u = i = 0
        for ni in self.node_info_list:
            a, b, c = node_traits(ni)
            t += a
            u += b
            i += c
        self.num_tainted, self.num_unschedulable, self.num_with_images = t, u, i

    def adjust(self, old: NodeInfo | None, new: NodeInfo) -> None:
        """Update the trait counts for one node whose NodeInfo was replaced."""
        if old is not None:
            a, b, c = node_traits(old)
            self.num_tainted -= a
            self.num_unschedulable -= b
            self.num_with_images -= c
        a, b, c = node_traits(new)
        self.num_tainted += a
        self.num_unschedulable += b
        self.num_with_images += c

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
