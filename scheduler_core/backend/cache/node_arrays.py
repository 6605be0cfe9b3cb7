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

from collections.abc import Callable
from itertools import compress
from operator import and_, eq, is_, not_
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


# Rows set_row rewrote, logged for the kept columns (kept_columns.py); past this many entries the
# older half is dropped (a column that had not caught up with it is computed again in full).
CHANGE_LOG_LIMIT = 4096


class NodeArrays:
    """The COLUMNS as int64 arrays, one element per node: views of one column-major matrix, so
    rewriting a changed node's row is a single assignment (once per cycle) while every column
    stays contiguous for the vector expressions.

    `nodes` is the node list the rows describe (the snapshot's list, whose slots update_snapshot
    replaces in place; None for arrays restored from a checkpoint that did not keep it);
    `changed` logs the rows set_row rewrote (a RowLog);
    `kept` holds the kept columns computed over these rows (kept_columns.py)."""

    __slots__ = (*COLUMNS, "cols", "exact", "nodes", "changed", "kept")

    def __init__(self, nodes: list[NodeInfo]) -> None:
        import numpy as np

        rows = [_row(ni) for ni in nodes]
        width = len(COLUMNS)
        cols = np.zeros((len(rows), width), dtype=np.int64, order="F")
        self.exact = True
        if rows:
            # The bounds checked on the matrix (C) rather than per row in Python: ~7 ms at
            # 15,000 nodes. A value beyond int64 cannot be stored: not exact either.
            try:
                cols[:] = rows
            except OverflowError:
                self.exact = False
            else:
                self.exact = bool(cols.min() >= 0 and cols.max() < SAFE)
            if not self.exact:
                cols.fill(0)
        self._columns(cols)
        self._start_log(nodes)

    def _columns(self, cols: Any) -> None:
        self.cols = cols
        for k, name in enumerate(COLUMNS):
            setattr(self, name, cols[:, k])

    def _start_log(self, nodes: list[NodeInfo] | None) -> None:
        self.nodes = nodes
        self.changed = RowLog()
        self.kept: dict[Any, Any] = {}

    def __reduce__(self) -> tuple[Any, tuple[Any, bool, list[NodeInfo] | None]]:
        # The columns are views of `cols`: pickle the matrix alone, so a restored checkpoint's
        # columns are views of the restored matrix again (set_row must reach them). The node
        # list is the snapshot's (pickled once with it); kept columns are computed again.
        return _restore, (self.cols, self.exact, self.nodes)

    def set_row(self, i: int, ni: NodeInfo) -> None:
        """Row i now describes `ni` (a changed node at the same position)."""
        row = _row(ni)
        if min(row) < 0 or max(row) >= SAFE:
            self.exact = False
            return
        self.cols[i] = row
        self.changed.add(i)


def _restore(cols: Any, exact: bool, nodes: list[NodeInfo] | None = None) -> NodeArrays:
    a = NodeArrays.__new__(NodeArrays)
    a.exact = exact
    a._columns(cols)
    a._start_log(nodes)
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


class RowLog:
    """The positions of a node list whose slots were replaced, in order: what
    `Cache.update_snapshot` logs for the snapshot's list (`Snapshot.row_log`, a new log with a
    new list). `rows[0]` is entry number `base`; past CHANGE_LOG_LIMIT entries the older half
    is dropped (a reader that had not caught up with it compares its rows instead)."""

    __slots__ = ("rows", "base")

    def __init__(self) -> None:
        self.rows: list[int] = []
        self.base = 0

    def add(self, i: int) -> None:
        rows = self.rows
        rows.append(i)
        if len(rows) > CHANGE_LOG_LIMIT:
            drop = len(rows) // 2
            del rows[:drop]
            self.base += drop

    def end(self) -> int:
        """The number of the next entry."""
        return self.base + len(self.rows)

    def since(self, pos: int) -> list[int] | None:
        """The positions logged from entry `pos` on, or None when some were dropped."""
        if pos < self.base:
            return None
        return self.rows[pos - self.base:]


class RowRuns:
    """The rows of the nodes being scored as runs of the snapshot's node list, for snapshots
    too small for node arrays: `runs` are (lo, hi) ranges of `all_nodes` (the snapshot's list
    itself, whose slots update_snapshot replaces in place), in the order of `nodes`. What the
    fast path writes under NODE_ROWS_KEY for the Score phase when it has no arrays; a scorer can
    then keep its scores per row (resource_allocation.RowScores) and take each run as a slice.
    `log` is the snapshot's RowLog of `all_nodes` (None: unknown, kept values are compared)."""

    __slots__ = ("all_nodes", "runs", "nodes", "log")

    def __init__(self, all_nodes: list[NodeInfo], runs: list[tuple[int, int]], nodes: list[NodeInfo],
                 log: RowLog | None = None) -> None:
        self.all_nodes = all_nodes
        self.runs = runs
        self.nodes = nodes
        self.log = log

    def clone(self) -> RowRuns:
        return self


def row_runs(pieces: list[Any], num_all: int) -> list[tuple[int, int]]:
    """joined_rows' pieces as (lo, hi) ranges that do not wrap, in walk order."""
    runs: list[tuple[int, int]] = []
    for p in pieces:
        if type(p) is tuple:
            lo, count = p
            hi = lo + count
            if hi <= num_all:
                runs.append((lo, hi))
            else:
                runs.append((lo, num_all))
                runs.append((0, hi - num_all))
        elif p:
            for r in p:
                if runs and runs[-1][1] == r:
                    runs[-1] = (runs[-1][0], r + 1)
                else:
                    runs.append((r, r + 1))
    return [r for r in runs if r[0] < r[1]]




class RowValues:
    """Per-node values kept per row of a snapshot's node list `all_nodes`, with the NodeInfo
    object and generation each was computed from: for values that depend only on the node's
    NodeInfo and something the owner keys them by (a pod's request), e.g. a resource score.

    A NodeInfo changes only through its own methods, which take a new generation, and
    update_snapshot puts a new NodeInfo in a changed node's slot: a kept value is right while
    its row holds the same object at the same generation. A cycle changes about one node and
    pods of a workload share their request, so a cycle takes its values as list slices instead
    of computing a few hundred again. Only for snapshots below MIN_NODES (fastpath writes
    RowRuns only there): three lists of one slot per node.

    With the snapshot's RowLog (rows.log), the slots replaced since the last take are read from
    the log instead of comparing every run's objects and generations (the snapshot's NodeInfos
    are never changed in place: the cache copies before it changes one it shares): `known`
    flags the rows whose value is right, and a run's unknown rows are found by a C search."""

    __slots__ = ("all_nodes", "src", "gens", "values", "known", "log", "seen")

    def __init__(self, all_nodes: list[NodeInfo]) -> None:
        n = len(all_nodes)
        self.all_nodes = all_nodes
        self.src: list[NodeInfo | None] = [None] * n
        self.gens: list[int] = [0] * n
        self.values: list[Any] = [None] * n
        self.known = bytearray(n)  # 1: the value of this row is right (read with `log`)
        self.log: RowLog | None = None
        self.seen = 0  # log entries already applied to `known`

    def fits(self, rows: RowRuns) -> bool:
        """Whether these rows index the node list this was built for (same list, same size)."""
        return self.all_nodes is rows.all_nodes and len(self.src) == len(rows.all_nodes)

    def take(self, rows: RowRuns, compute: Callable[[list[NodeInfo]], list[Any]]) -> list[Any]:
        """The values of rows.nodes in order, `compute` called (once, in row order) for the
        rows whose NodeInfo changed since their value was kept."""
        log = rows.log
        changed = log.since(self.seen) if log is not None and log is self.log else None
        if changed is None:
            stale = self._compare(rows)
            self.known = bytearray(len(self.values))  # rows outside these runs: unknown
            self.log = log
        else:
            known = self.known
            for r in changed:
                known[r] = 0
            stale = []
            for lo, hi in rows.runs:
                p = known.find(0, lo, hi)
                while p != -1:
                    stale.append(p)
                    p = known.find(0, p + 1, hi)
            if len(rows.runs) > 1:
                stale = sorted(set(stale))  # runs may overlap or come out of row order
        if log is not None:
            self.seen = log.end()
        all_nodes, src, gens, values = self.all_nodes, self.src, self.gens, self.values
        if stale:
            todo = [all_nodes[k] for k in stale]
            for k, ni, v in zip(stale, todo, compute(todo), strict=True):
                src[k] = ni
                gens[k] = ni.generation
                values[k] = v
        if log is not None:
            known = self.known
            if changed is None:
                for lo, hi in rows.runs:
                    known[lo:hi] = b"\x01" * (hi - lo)
            else:
                for k in stale:  # every other row of these runs was known already
                    known[k] = 1
        runs = rows.runs
        if len(runs) == 1:
            lo, hi = runs[0]
            return values[lo:hi]
        out: list[Any] = []
        for lo, hi in runs:
            out += values[lo:hi]
        return out

    def _compare(self, rows: RowRuns) -> list[int]:
        """The rows of these runs whose NodeInfo is not the object, at the generation, their
        value was computed from (in row order within each run)."""
        all_nodes, src, gens = self.all_nodes, self.src, self.gens
        stale: list[int] = []
        for lo, hi in rows.runs:
            seg = all_nodes[lo:hi]
            now = [ni.generation for ni in seg]
            # List comparisons in C: the same objects (NodeInfo has no __eq__: identity) at the
            # same generations as when the values were kept. A run that differs is halved until
            # the parts that differ are short (a few nodes change between two uses), so finding
            # them costs list comparisons, not a pass over the run.
            parts = [(lo, hi)]
            while parts:
                a, b = parts.pop()
                if src[a:b] == seg[a - lo:b - lo] and gens[a:b] == now[a - lo:b - lo]:
                    continue
                if b - a > 32:
                    m = (a + b) // 2
                    parts.append((m, b))
                    parts.append((a, m))  # popped first: stale rows stay in row order
                    continue
                stale.extend(compress(range(a, b), map(not_, map(and_, map(is_, src[a:b], seg[a - lo:b - lo]),
                                                                  map(eq, gens[a:b], now[a - lo:b - lo])))))
        return stale


KEPT_REQUESTS = 8  # distinct pod requests a plugin keeps RowValues for at a time


def take_kept(kept: dict[Any, RowValues], key: Any, rows: RowRuns,
              compute: Callable[[list[NodeInfo]], list[Any]]) -> list[Any]:
    """`RowValues.take` from the RowValues a plugin keeps under `key` (its pod request) in
    `kept`: made anew when there is none for these rows' node list, and `kept` emptied once it
    holds KEPT_REQUESTS of them (workloads share a few requests; a run of distinct ones must
    not grow it)."""
    values = kept.get(key)
    if values is None or not values.fits(rows):
        if len(kept) >= KEPT_REQUESTS:
            kept.clear()
        values = kept[key] = RowValues(rows.all_nodes)
    return values.take(rows, compute)
