"""Per-node filter verdicts of one scheduling attempt (upstream framework.NodeToStatus).

Nodes never evaluated (cut off by numFeasibleNodesToFind, or excluded by a PreFilterResult) are
"absent": they share `absent_nodes_status`, UnschedulableAndUnresolvable by default.
"""

from __future__ import annotations

from collections.abc import ItemsView

from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import NodeInfo


class NodeToStatus:
    __slots__ = ("node_to_status", "absent_nodes_status")

    def __init__(self, node_to_status: dict[str, Status] | None = None,
                 absent_nodes_status: Status | None = None) -> None:
        self.node_to_status: dict[str, Status] = node_to_status if node_to_status is not None else {}
        self.absent_nodes_status = absent_nodes_status or Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    def get(self, node_name: str) -> Status:
        return self.node_to_status.get(node_name, self.absent_nodes_status)

    def set(self, node_name: str, status: Status) -> None:
        self.node_to_status[node_name] = status

    def __len__(self) -> int:
        return len(self.node_to_status)

    def items(self) -> ItemsView[str, Status]:
        """Explicit entries in insertion order (upstream iterates a Go map: any order)."""
        return self.node_to_status.items()

    def nodes_for_status_code(self, all_nodes: list[NodeInfo], code: Code) -> list[NodeInfo]:
        """NodeInfos whose verdict has `code`. `all_nodes` is the snapshot's list in node-tree
        order; the result keeps that order."""
        if self.absent_nodes_status.code == code:
            if not self.node_to_status:
                return list(all_nodes)
            return [n for n in all_nodes if self.get(n.name).code == code]
        by_name = {n.name: n for n in all_nodes}
        return [by_name[name] for name, st in self.node_to_status.items()
                if st.code == code and name in by_name]
