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
    they are kept as they are and written into the map only when someone reads it (a failed
    pod's message, preemption, an inspector), since a pod that found its nodes reads only how
    many nodes were rejected, and a nodeSelector pod on a large cluster rejects most of them."""

    __slots__ = ("_map", "_chunks", "_chunked", "absent_nodes_status")

    def __init__(self, node_to_status: dict[str, Status] | None = None,
                 absent_nodes_status: Status | None = None) -> None:
        self._map: dict[str, Status] = node_to_status if node_to_status is not None else {}
        # Chunks not written into the map yet: (nodes, whether each is rejected, statuses).
        self._chunks: list[tuple[list[NodeInfo], list[bool], list[Status | None]]] = []
        self._chunked = 0  # how many rejected nodes those chunks hold
        self.absent_nodes_status = absent_nodes_status or Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    @property
    def node_to_status(self) -> dict[str, Status]:
        if self._chunks:
            self._write_chunks()
        return self._map

    def add_chunk(self, nodes: list[NodeInfo], rejected: list[bool], statuses: list[Status | None],
                  count: int) -> None:
        """Set the status of each node of `nodes` marked in `rejected` (`count` of them) to its
        entry in `statuses`: as `set` on each, in order, for nodes not in the map yet (the
        walk visits a node once; a map already holding entries takes them at once)."""
        if self._map:
            self._chunks.append((nodes, rejected, statuses))
            self._write_chunks()
            return
        self._chunks.append((nodes, rejected, statuses))
        self._chunked += count

    def _write_chunks(self) -> None:
        m = self._map
        for nodes, rejected, statuses in self._chunks:
            m.update(zip(map(_name, compress(nodes, rejected)), compress(statuses, rejected), strict=True))
        self._chunks = []
        self._chunked = 0

    def status_counts(self) -> Counter[Status]:
        """How many nodes hold each distinct Status (explicit entries only), counted without
        writing pending chunks into the map: a pod rejected everywhere shares a few statuses
        among thousands of nodes, and its message needs only these counts."""
        counts: Counter[Status] = Counter(self._map.values())
        for _nodes, rejected, statuses in self._chunks:
            counts.update(compress(statuses, rejected))
        return counts

    def get(self, node_name: str) -> Status:
        return self.node_to_status.get(node_name, self.absent_nodes_status)

    def set(self, node_name: str, status: Status) -> None:
        if self._chunks:
            self._write_chunks()
        self._map[node_name] = status

    def __len__(self) -> int:
        return len(self._map) + self._chunked

    def __getstate__(self) -> tuple[dict[str, Status], Status]:
        return self.node_to_status, self.absent_nodes_status

    def __setstate__(self, state: tuple[dict[str, Status], Status]) -> None:
        self._map, self.absent_nodes_status = state
        self._chunks = []
        self._chunked = 0

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
