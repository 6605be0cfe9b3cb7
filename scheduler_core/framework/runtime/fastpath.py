"""The speed paths of one scheduling attempt, in one place, giving exactly what the plain walk
in schedule_one.py gives (and the same events, when someone listens).

- `pass_filters`: find_nodes_that_pass_filters a chunk of nodes at a time, each Filter plugin
  over the whole chunk (`filter_nodes`), instead of node after node. Taken when no pod is
  nominated anywhere (no second filter pass with nominated pods). A recorder's per-node
  verdicts follow from each node's status (filter_record.FilterRecord), so listening costs
  one list entry per node.
- `prioritize_and_select`: prioritize_nodes + select_host computing only the weighted totals and
  the heap root, when no extender adds scores and opportunistic batching keeps no sorted list
  for this pod; the score breakdown, when someone listens, is columns of the same lists.

tests/engine/perf/test_fastpath_equivalence.py holds both against the plain walk.
"""

from __future__ import annotations

from itertools import compress, repeat
from operator import is_not, not_
from typing import Any

from scheduler_core.api.types import Pod
from scheduler_core.backend.cache.node_arrays import (
    FEASIBLE_ROWS_KEY,
    MIN_NODES,
    NODE_ROWS_KEY,
    NodeRows,
    RowRuns,
    joined_rows,
    rotated_rows,
    row_runs,
    rows_of,
)
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.fit_error import Diagnosis, SchedulingError
from scheduler_core.framework.runtime.batch import OpportunisticBatch
from scheduler_core.framework.runtime.filter_record import FilterRecord
from scheduler_core.framework.runtime.framework import Framework
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import NodeInfo
from scheduler_core.util.goheap import max_heap_init_root

_REJECTED_CODES = frozenset((Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING))

# Fewer nodes than this to score: the per-node loops beat setting up the vector work.
MIN_ROWS = 64


def filters_apply(has_nominated_pods: bool) -> bool:
    """Whether `pass_filters` may replace the plain filter walk."""
    return not has_nominated_pods


def select_applies(extenders: list[Any], batch: OpportunisticBatch | None, signature: tuple | None) -> bool:
    """Whether `prioritize_and_select` may replace prioritize_nodes + select_host: nothing needs
    the sorted scores (an unsignable pod leaves no batch behind)."""
    return not extenders and (batch is None or signature is None)


def pass_filters(fwk: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis,
                 nodes: list[NodeInfo], start: int, to_find: int,
                 record: FilterRecord | None = None) -> list[NodeInfo]:
    """find_nodes_that_pass_filters' walk, a chunk of nodes at a time through
    fwk.run_filter_plugins_batch. A chunk
    is never longer than the nodes the walk still needs if all of them pass, so exactly the
    nodes the one-by-one walk evaluates are evaluated (beyond the first Error, at most the rest
    of its chunk: the cycle fails then anyway, and `record` stops at the Error as the walk does)."""
    num_all = len(nodes)
    feasible: list[NodeInfo] = []
    pos = 0
    error: Status | None = None
    node_to_status = diagnosis.node_to_status
    snap = fwk.snapshot
    arrays = snap.node_arrays() if nodes is snap.node_info_list else None
    # With node rows, the feasible nodes' row numbers as the walk finds them (joined_rows), so
    # the Score phase indexes the columns without looking each node up by name.
    # Without arrays (small snapshots) the same rows as runs of the node list (RowRuns).
    runs_only = arrays is None and nodes is snap.node_info_list and num_all < MIN_NODES
    pieces: list[Any] | None = [] if arrays is not None or runs_only else None
    while pos < num_all and error is None:
        need = min(to_find + 1 - len(feasible), num_all - pos)
        chunk = _rotated_slice(nodes, start, pos, need)
        if arrays is not None and need >= MIN_ROWS:
            # NodeResourcesFit tests these rows as vectors (vector.py) while the chunk is whole.
            state.write(NODE_ROWS_KEY, NodeRows(arrays, rotated_rows(num_all, start, pos, need), chunk))
            try:
                sts = fwk.run_filter_plugins_batch(state, pod, chunk)
            finally:
                state.delete(NODE_ROWS_KEY)
        elif runs_only and need >= MIN_ROWS:
            # NodeResourcesFit takes its quick test's answers from the rows it kept (RowValues).
            state.write(NODE_ROWS_KEY, RowRuns(nodes, row_runs([((start + pos) % num_all, need)], num_all), chunk,
                                               snap.row_log))
            try:
                sts = fwk.run_filter_plugins_batch(state, pod, chunk)
            finally:
                state.delete(NODE_ROWS_KEY)
        else:
            sts = fwk.run_filter_plugins_batch(state, pod, chunk)
        lo = (start + pos) % num_all
        pos += need
        if sts.count(None) == len(sts):
            if len(feasible) + len(chunk) > to_find:
                keep = to_find - len(feasible)
                feasible.extend(chunk[:keep])
                if pieces is not None:
                    pieces.append((lo, keep))
                if record is not None:
                    record.add_passed(chunk[:keep])
                    record.add_cancelled(chunk[keep].name)
                break
            feasible.extend(chunk)
            if pieces is not None:
                pieces.append((lo, len(chunk)))
            if record is not None:
                record.add_passed(chunk)
            continue
        live = _rejections_only(sts)
        if live is not None and len(live) - live.count(True) <= to_find - len(feasible):
            _take_chunk(diagnosis, feasible, pieces, chunk, sts, live, lo, num_all)
            if record is not None:
                record.add_chunk(chunk, sts)
            continue
        done = False
        passed: list[int] | None = [] if pieces is not None else None
        for k, (ni, st) in enumerate(zip(chunk, sts, strict=True)):
            if st is None or st.code == Code.SUCCESS:
                if len(feasible) >= to_find:
                    if record is not None:
                        record.add_cancelled(ni.name)
                    done = True
                    break
                feasible.append(ni)
                if passed is not None:
                    passed.append((lo + k) % num_all)
            elif st.code == Code.ERROR:
                error = st
            else:
                node_to_status.set(ni.name, st)
                diagnosis.add_plugin_status(st)
            if record is not None:
                record.add_status(ni.name, st)
            if error is not None:
                break
        if pieces is not None:
            pieces.append(passed)
        if done:
            break
    if record is not None:
        record.num_feasible = len(feasible)
    if error is not None:
        raise SchedulingError(error)
    if pieces is not None and arrays is not None:
        state.write(FEASIBLE_ROWS_KEY, NodeRows(arrays, joined_rows(pieces, num_all), feasible))
    elif pieces is not None:
        state.write(FEASIBLE_ROWS_KEY, RowRuns(nodes, row_runs(pieces, num_all), feasible, snap.row_log))
    return feasible


def _rejections_only(sts: list[Status | None]) -> list[bool] | None:
    """Which of a chunk's statuses are set (True: a status, False: None), when every status set
    is a rejection (no Error, no Success-coded status): then _take_chunk applies. None otherwise."""
    live = list(map(is_not, sts, repeat(None, len(sts))))
    if any(s.code not in _REJECTED_CODES for s in set(compress(sts, live))):
        return None
    return live


def _take_chunk(diagnosis: Diagnosis, feasible: list[NodeInfo], pieces: list[Any] | None, chunk: list[NodeInfo],
                sts: list[Status | None], live: list[bool], lo: int, num_all: int) -> None:
    """The node-by-node loop of pass_filters over a chunk whose statuses are all None or
    rejections (`live` marks the rejections) and whose passing nodes all fit in `feasible`
    (a chunk is never longer than the nodes still needed plus one, and not all of it passed),
    in C-level passes: the nodes that passed join `feasible` in order, the rejected ones get
    their statuses in the diagnosis in walk order, each distinct status counted once for its
    plugin (a plugin may give one Status to every node it rejects for the same reason)."""
    passing = list(map(not_, live))
    feasible.extend(compress(chunk, passing))
    if pieces is not None:
        n = len(chunk)
        rows = compress(range(lo, lo + n), passing)
        pieces.append([r - num_all if r >= num_all else r for r in rows] if lo + n > num_all else list(rows))
    diagnosis.node_to_status.add_chunk(chunk, live, sts, live.count(True))
    for st in set(compress(sts, live)):
        diagnosis.add_plugin_status(st)


def _rotated_slice(nodes: list[NodeInfo], start: int, pos: int, count: int) -> list[NodeInfo]:
    """Items pos .. pos+count-1 of the node list rotated to begin at `start`
    (`(nodes[start:] + nodes[:start])[pos:pos+count]`), as at most two slices of `nodes`: the
    walk usually needs a few hundred nodes of thousands, so the whole rotated copy would be
    mostly waste."""
    num_all = len(nodes)
    lo = (start + pos) % num_all
    hi = lo + count
    if hi <= num_all:
        return nodes[lo:hi]
    return nodes[lo:] + nodes[:hi - num_all]


def prioritize_and_select(fwk: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                          relative: bool = False) -> tuple[str, list[int], dict[str, Any] | None]:
    """prioritize_nodes + select_host when no extender adds scores (so every randomizer is 0):
    only the weighted totals are computed, and the heap root is found without building the
    heap. Same host as the general path; also returns the totals (node order) and the score
    columns when someone listens (None without Score plugins: then every total is 1 and
    prioritize_nodes reports no scores). `relative`: the totals may be off by a constant
    shared by every node (totals.weighted_totals), for a caller that reports none of them."""
    if not fwk.has_score_plugins():
        return nodes[0].name, [1] * len(nodes), None  # equal totals: heap.Init leaves the first node at the root
    st = fwk.run_pre_score_plugins(state, pod, nodes)
    if st is not None and st.code != Code.SUCCESS:
        raise SchedulingError(st)
    snap = fwk.snapshot
    arrays = snap.node_arrays() if len(nodes) >= MIN_ROWS else None
    found = state.get(FEASIBLE_ROWS_KEY)
    if arrays is not None:
        # NodeResourcesFit and BalancedAllocation score these rows as vectors (vector.py): the
        # filter walk's rows when these are the nodes it found (and the columns are the same).
        if isinstance(found, NodeRows) and found.nodes is nodes and found.arrays is arrays:
            idx = found.idx
        else:
            idx = rows_of(arrays, nodes, snap.index)
        state.write(NODE_ROWS_KEY, NodeRows(arrays, idx))
    elif (isinstance(found, RowRuns) and found.nodes is nodes and len(nodes) >= MIN_ROWS
          and found.all_nodes is snap.node_info_list):
        # No arrays: the resource scorers take the scores of these runs from their rows.
        state.write(NODE_ROWS_KEY, found)
    try:
        totals, st, columns = fwk.run_score_plugins_totals(state, pod, nodes, vector=arrays is not None,
                                                           relative=relative)
    finally:
        state.delete(NODE_ROWS_KEY)
    if st is not None:
        raise SchedulingError(st)
    assert totals is not None
    return nodes[max_heap_init_root(totals)].name, totals, columns
