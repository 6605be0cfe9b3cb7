"""The snapshot's nodes as columns: one NumPy row per node, in node-tree order (the order of
`Snapshot.node_info_list`), for the fast path's vector scoring.

Only the numbers NodeResourcesFit's filter and the resource scores read are kept: allocatable
and requested cpu/memory/ephemeral-storage, the non-zero requested cpu/memory, pod count and
allowed pods. `Cache.update_snapshot` rewrites the rows of the nodes that
changed (usually one per cycle) and drops the arrays when nodes are added or removed; they are
rebuilt on the next use. NumPy is imported only here, on first use, so small runs never pay for
it. `exact` is False when some value is too large for the vector arithmetic to be exact
(float conversion of sums needs values < 2**52, and `* 100` must stay inside int64): callers then take the
per-node path.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.framework.types import NodeInfo

# Below this many nodes the per-node loops are as fast as setting up vector work.
MIN_NODES = 1000
SAFE = 1 << 52  # node values and pod requests below this: their sums convert to float exactly
NODE_ROWS_KEY = "fastpath/node-rows"  # CycleState key of the NodeRows being scored


COLUMNS = ("alloc_cpu", "alloc_mem", "req_cpu", "req_mem", "nz_cpu", "nz_mem",
           "alloc_eph", "req_eph", "pods", "allowed_pods")


def _row(ni: NodeInfo) -> tuple[int, ...]:
    a = ni.allocatable
    r = ni.requested
    nz = ni.non_zero_requested
    return (a.milli_cpu, a.memory, r.milli_cpu, r.memory, nz.milli_cpu, nz.memory,
            a.ephemeral_storage, r.ephemeral_storage, len(ni.pods), a.allowed_pod_number)


class NodeArrays:
    """The COLUMNS as int64 arrays, one element per node."""

    __slots__ = (*COLUMNS, "exact")

    def __init__(self, nodes: list[NodeInfo]) -> None:
        import numpy as np

        rows = [_row(ni) for ni in nodes]
        self.exact = all(0 <= v < SAFE for row in rows for v in row)
        width = len(COLUMNS)
        if self.exact:
            cols = np.array(rows, dtype=np.int64).reshape(len(rows), width)
        else:
            cols = np.zeros((len(rows), width), dtype=np.int64)
        for k, name in enumerate(COLUMNS):
            setattr(self, name, np.ascontiguousarray(cols[:, k]))

    def set_row(self, i: int, ni: NodeInfo) -> None:
        """Row i now describes `ni` (a changed node at the same position)."""
        row = _row(ni)
        if not all(0 <= v < SAFE for v in row):
            self.exact = False
            return
        for name, v in zip(COLUMNS, row, strict=True):
            getattr(self, name)[i] = v


class NodeRows:
    """The columns plus the rows (an index array or a slice) of the nodes being filtered or
    scored, in their order: what the fast path writes into the CycleState (under NODE_ROWS_KEY)
    for one batch of Filter plugins or the Score phase. `nodes` is the very list those rows
    describe when filtering: a plugin handed another list (a subset left by an earlier plugin)
    must not use the rows. The plain walk never writes it, so plugins go node by node there."""

    __slots__ = ("arrays", "idx", "nodes")

    def __init__(self, arrays: NodeArrays, idx: Any, nodes: list[NodeInfo] | None = None) -> None:
        self.arrays = arrays
        self.idx = idx
        self.nodes = nodes

    def clone(self) -> NodeRows:
        return self


def rotated_rows(num_all: int, start: int, pos: int, count: int) -> Any:
    """The row numbers of fastpath._rotated_slice(nodes, start, pos, count): a slice, or two
    ranges joined when the window wraps around the end."""
    import numpy as np

    lo = (start + pos) % num_all
    hi = lo + count
    if hi <= num_all:
        return slice(lo, hi)
    return np.concatenate((np.arange(lo, num_all, dtype=np.intp), np.arange(0, hi - num_all, dtype=np.intp)))


def rows_of(arrays: NodeArrays, nodes: list[NodeInfo], index: dict[str, int]) -> Any:
    """The row numbers of `nodes` (NodeInfos of the same snapshot), as an index array."""
    import numpy as np

    return np.fromiter(map(index.__getitem__, [ni.name for ni in nodes]), dtype=np.intp, count=len(nodes))
