"""Per-node filter verdicts of one scheduling attempt (upstream framework.NodeToStatus).

Nodes never evaluated (cut off by numFeasibleNodesToFind, or excluded by a PreFilterResult) are
"absent": they share `absent_nodes_status`, UnschedulableAndUnresolvable by default.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import ItemsView
from itertools import compress
from operator import attrgetter

from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import NodeInfo

_name = attrgetter("name")


class NodeToStatus:
    """`node_to_status` maps node names to their statuses in the order the filter walk set
    them. The fast filter walk hands over whole chunks of rejected nodes at once (`add_chunk`):
    they are kept as they are and written into the map only when someone reads it node by node
    (an inspector, preemption's dry run over the nodes it may help), since a pod that found its
    nodes reads only how many nodes were rejected, and a pod rejected everywhere reads only how
    many nodes hold each distinct status (its FailedScheduling message, and whether preemption
    has a node to try): a nodeSelector pod on a large cluster rejects most nodes with a few
    statuses shared among thousands of them.

    Those counts (`status_counts`) are kept as the statuses arrive: the walk counts each
    chunk's distinct statuses once, and a single `set` moves one node's count. Kept counts are
    dropped when a status is changed in a way they cannot follow, and counted again on the
    next read."""

    __slots__ = ("_map", "_chunks", "_chunked", "_counts", "absent_nodes_status")

    def __init__(self, node_to_status: dict[str, Status] | None = None,
                 absent_nodes_status: Status | None = None) -> None:
        self._map: dict[str, Status] = node_to_status if node_to_status is not None else {}
        # Chunks not written into the map yet: (nodes, their statuses, None for a node that
        # passed). A Status is always true, so the statuses select the rejected nodes.
        self._chunks: list[tuple[list[NodeInfo], list[Status | None]]] = []
        self._chunked = 0  # how many rejected nodes those chunks hold
        # How many nodes hold each distinct Status (explicit entries), or None: count again.
        self._counts: dict[Status, int] | None = None if self._map else {}
        self.absent_nodes_status = absent_nodes_status or Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    @property
    def node_to_status(self) -> dict[str, Status]:
        """The explicit entries as a dict, in walk order. A caller may change the dict (the
        kept counts are dropped: they can no longer be trusted)."""
        if self._chunks:
            self._write_chunks()
        self._counts = None
        return self._map

    def add_chunk(self, nodes: list[NodeInfo], statuses: list[Status | None], count: int,
                  counts: dict[Status, int] | None = None) -> None:
        """Set the status of each node of `nodes` whose entry in `statuses` is not None (`count`
        of them) to that entry: as `set` on each, in order, for nodes not in the map yet (the
        walk visits a node once; a map already holding entries takes them at once). `counts`,
        when the caller has them, are how many nodes hold each distinct Status (they keep
        status_counts without a pass over the chunk)."""
        self._chunks.append((nodes, statuses))
        if self._map:
            self._write_chunks()
            self._counts = None
            return
        self._chunked += count
        kept = self._counts
        if kept is None:
            return
        if counts is None:
            self._counts = None
            return
        for st, n in counts.items():
            kept[st] = kept.get(st, 0) + n

    def _write_chunks(self) -> None:
        m = self._map
        for nodes, statuses in self._chunks:
            m.update(zip(map(_name, compress(nodes, statuses)), filter(None, statuses), strict=True))
        self._chunks = []
        self._chunked = 0

    def status_counts(self) -> Counter[Status]:
        """How many nodes hold each distinct Status (explicit entries only), without writing
        pending chunks into the map; a new Counter the caller may keep."""
        if self._counts is None:
            counts: Counter[Status] = Counter(self._map.values())
            for _nodes, statuses in self._chunks:
                counts.update(filter(None, statuses))
            self._counts = dict(counts)
            return counts
        return Counter(self._counts)

    def get(self, node_name: str) -> Status:
        """The node's status, the absent one when it has none. No node is named "" (a name is
        required): asking for "" (a pod nominated nowhere) writes no pending chunk."""
        if not node_name:
            return self._map.get(node_name, self.absent_nodes_status)
        if self._chunks:
            self._write_chunks()
        return self._map.get(node_name, self.absent_nodes_status)

    def set(self, node_name: str, status: Status) -> None:
        if self._chunks:
            self._write_chunks()
        m = self._map
        kept = self._counts
        if kept is not None:
            old = m.get(node_name)
            if old is not None:
                left = kept[old] - 1
                if left:
                    kept[old] = left
                else:
                    del kept[old]
            kept[status] = kept.get(status, 0) + 1
        m[node_name] = status

    def __len__(self) -> int:
        return len(self._map) + self._chunked

    def __getstate__(self) -> tuple[dict[str, Status], Status]:
        return self.node_to_status, self.absent_nodes_status

    def __setstate__(self, state: tuple[dict[str, Status], Status]) -> None:
        self._map, self.absent_nodes_status = state
        self._chunks = []
        self._chunked = 0
        self._counts = None

    def items(self) -> ItemsView[str, Status]:
        """Explicit entries in insertion order (upstream iterates a Go map: any order)."""
        return self.node_to_status.items()

    def nodes_for_status_code(self, all_nodes: list[NodeInfo], code: Code) -> list[NodeInfo]:
        """NodeInfos whose verdict has `code`. `all_nodes` is the snapshot's list in node-tree
        order; the result keeps that order."""
        if self.absent_nodes_status.code != code and all(st.code != code for st in self.status_counts()):
            return []  # no node has it: the usual answer for a pod rejected everywhere alike
        if self.absent_nodes_status.code == code:
            if not len(self):
                return list(all_nodes)
            return [n for n in all_nodes if self.get(n.name).code == code]
        by_name = {n.name: n for n in all_nodes}
        return [by_name[name] for name, st in self.node_to_status.items()
                if st.code == code and name in by_name]
