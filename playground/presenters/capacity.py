"""The capacity answer's per-node table, shaped for the page: a 5,000-node cluster would make a
5,000-row table (hundreds of kilobytes for a phone), so the page lists the first PER_NODE_ROWS
nodes and says how many more took copies; the command line and --json list them all."""

from __future__ import annotations

from dataclasses import dataclass

from scheduler_core.questions.capacity import CapacityResult

PER_NODE_ROWS = 100


@dataclass(frozen=True)
class PerNode:
    rows: list[tuple[str, int]]  # (node, copies), in node name order
    more: int  # nodes with copies not listed
    nodes: int  # nodes with copies in all


def per_node_table(answer: CapacityResult, limit: int = PER_NODE_ROWS) -> PerNode:
    items = list(answer.per_node.items())
    return PerNode(rows=items[:limit], more=max(0, len(items) - limit), nodes=len(items))
