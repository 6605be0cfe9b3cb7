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

# Below this many nodes the arrays are not used. The vectors would pay from a few hundred nodes
# now that the rows are kept up to date in place and the filter walk hands its rows to the Score
# phase (~15% less CPU at 500 nodes), but importing NumPy adds ~9.5 MiB to the process, more than
# a run of 500 nodes uses for its own data: small runs keep the per-node loops and their memory.
MIN_NODES = 1000
SAFE = 1 << 52  # node values and pod requests below this: their sums convert to float exactly
NODE_ROWS_KEY = "fastpath/node-rows"  # CycleState key of the NodeRows being scored
# CycleState key of the NodeRows of the nodes the fast path's filter walk found feasible.
FEASIBLE_ROWS_KEY = "fastpath/feasible-rows"


COLUMNS = ("alloc_cpu", "alloc_mem", "req_cpu", "req_mem", "nz_cpu", "nz_mem",
           "alloc_eph", "req_eph", "pods", "allowed_pods")


def _row(ni: NodeInfo) -> tuple[int, ...]:
    a = ni.allocatable
    r = ni.requested
    nz = ni.non_zero_requested
    return (a.milli_cpu, a.memory, r.milli_cpu, r.memory, nz.milli_cpu, nz.memory,
            a.ephemeral_storage, r.ephemeral_storage, len(ni.pods), a.allowed_pod_number)


class NodeArrays:
    """The COLUMNS as int64 arrays, one element per node: views of one column-major matrix, so
    rewriting a changed node's row is a single assignment (once per cycle) while every column
    stays contiguous for the vector expressions."""

    __slots__ = (*COLUMNS, "cols", "exact")

    def __init__(self, nodes: list[NodeInfo]) -> None:
        import numpy as np

        rows = [_row(ni) for ni in nodes]
        self.exact = all(0 <= min(row) and max(row) < SAFE for row in rows)
        width = len(COLUMNS)
        cols = np.zeros((len(rows), width), dtype=np.int64, order="F")
        if self.exact and rows:
            cols[:] = rows
        self._columns(cols)

    def _columns(self, cols: Any) -> None:
        self.cols = cols
        for k, name in enumerate(COLUMNS):
            setattr(self, name, cols[:, k])

    def __reduce__(self) -> tuple[Any, tuple[Any, bool]]:
        # The columns are views of `cols`: pickle the matrix alone, so a restored checkpoint's
        # columns are views of the restored matrix again (set_row must reach them).
        return _restore, (self.cols, self.exact)

    def set_row(self, i: int, ni: NodeInfo) -> None:
        """Row i now describes `ni` (a changed node at the same position)."""
        row = _row(ni)
        if min(row) < 0 or max(row) >= SAFE:
            self.exact = False
            return
        self.cols[i] = row


def _restore(cols: Any, exact: bool) -> NodeArrays:
    a = NodeArrays.__new__(NodeArrays)
    a.exact = exact
    a._columns(cols)
    return a


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


def joined_rows(pieces: list[Any], num_all: int) -> Any:
    """The row numbers of the feasible nodes the filter walk collected, in walk order, from
    `pieces`: (first row, count) runs of the rotated node list (wrapping past the end) and lists
    of single rows. One run that does not wrap stays a slice (columns indexed by a slice are
    views, no gather); anything else is one index array."""
    import numpy as np

    if len(pieces) == 1 and type(pieces[0]) is tuple:
        lo, count = pieces[0]
        if lo + count <= num_all:
            return slice(lo, lo + count)
    parts = []
    for p in pieces:
        if type(p) is tuple:
            lo, count = p
            hi = lo + count
            if hi <= num_all:
                parts.append(np.arange(lo, hi, dtype=np.intp))
            else:
                parts.append(np.arange(lo, num_all, dtype=np.intp))
                parts.append(np.arange(0, hi - num_all, dtype=np.intp))
        elif p:
            parts.append(np.array(p, dtype=np.intp))
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.intp)
