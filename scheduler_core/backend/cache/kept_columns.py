"""Values computed over every row of the node arrays, kept per key (a plugin and a pod's
request) and brought up to date for the rows `NodeArrays.set_row` rewrote since: the
counterpart of node_arrays.RowValues for snapshots with node arrays.

A NumPy expression over the few hundred rows a cycle scores costs about the same per operation
whatever the number of rows, and LeastAllocated, BalancedAllocation and NodeResourcesFit's
quick test take 10-25 operations each: at 15,000 nodes ~0.1 ms a cycle, a sixth of the loop.
Their values depend only on a node's row and the pod's request, the pods of a workload share
their request, and a cycle rewrites about one row. So each (plugin, request) keeps its values
for all rows, computed once by the plugin's vector expression; the rows logged since are
computed again by the plugin's per-node code (which the vector expressions equal bit for bit:
noderesources/vector.py), and a cycle takes its rows with one gather.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scheduler_core.backend.cache.node_arrays import NodeArrays
from scheduler_core.framework.types import NodeInfo

# Kept columns per NodeArrays, emptied when full (a run of distinct requests): room for three
# resource columns for each of a dump's handful of request shapes plus the nodeSelectors.
KEPT_COLUMNS = 32


class KeptColumn:
    """One key's values for every row, up to date with the change log up to entry `seen`."""

    __slots__ = ("values", "seen")

    def __init__(self, values: Any, seen: int) -> None:
        self.values = values
        self.seen = seen


def take_column(arrays: NodeArrays, key: Any, idx: Any, compute_all: Callable[[], Any],
                compute_nodes: Callable[[list[NodeInfo]], list[Any]]) -> Any | None:
    """The values at rows `idx` (an index array or a slice) of the column kept under `key`:
    made by `compute_all()` (a NumPy array, one value per row) when there is none, else brought
    up to date by `compute_nodes` (the same values for a list of NodeInfos, in order) for the
    rows changed since. None when the arrays do not know their node list (restored from an
    older checkpoint): the caller computes the values itself."""
    nodes = arrays.nodes
    if nodes is None or len(nodes) != len(arrays.cols):
        return None
    changed = arrays.changed
    end = changed.end()
    kept = arrays.kept.get(key)
    since = changed.since(kept.seen) if kept is not None else None
    if since is None:  # none kept, or some of its changes dropped from the log
        if kept is None and len(arrays.kept) >= KEPT_COLUMNS:
            arrays.kept.clear()
        kept = arrays.kept[key] = KeptColumn(compute_all(), end)
    elif since:
        rows = sorted(set(since))
        kept.values[rows] = compute_nodes([nodes[r] for r in rows])
        kept.seen = end
    return kept.values[idx]
