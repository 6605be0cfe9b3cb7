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
from scheduler_core.framework.runtime.filter_chunk import FilterChunk, distinct_counts
from scheduler_core.framework.runtime.filter_record import FilterRecord
from scheduler_core.framework.runtime.framework import Framework
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import NodeInfo
from scheduler_core.util.goheap import max_heap_init_root

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
    fwk.run_filter_plugins_chunk. A chunk is never longer than the nodes the walk still needs
    if all of them pass, so exactly the nodes the one-by-one walk evaluates are evaluated
    (beyond the first Error, at most the rest of its chunk: the cycle fails then anyway, and
    `record` stops at the Error as the walk does) -- unless every Filter plugin the pod meets
    only reads (FilterPlugin.filter_reads_only): then a chunk is as long as the nodes the walk
    expects to need at the rate it has found feasible ones so far (all the rest once a chunk
    found none), and the answers past the node where the one-by-one walk stops are dropped.
    A pod that fits nowhere then takes two chunks instead of one per numFeasibleNodesToFind
    nodes, and the result, statuses and record are the same."""
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
    ahead = reads_only(fwk, state)
    while pos < num_all and error is None:
        need = min(to_find + 1 - len(feasible), num_all - pos)
        if ahead and pos:
            need = window(need, pos, len(feasible), num_all)
        chunk = _rotated_slice(nodes, start, pos, need)
        if arrays is not None and need >= MIN_ROWS:
            # NodeResourcesFit tests these rows as vectors (vector.py) while the chunk is whole.
            state.write(NODE_ROWS_KEY, NodeRows(arrays, rotated_rows(num_all, start, pos, need), chunk))
            try:
                res = fwk.run_filter_plugins_chunk(state, pod, chunk)
            finally:
                state.delete(NODE_ROWS_KEY)
        elif runs_only and need >= MIN_ROWS:
            # NodeResourcesFit takes its quick test's answers from the rows it kept (RowValues).
            state.write(NODE_ROWS_KEY, RowRuns(nodes, row_runs([((start + pos) % num_all, need)], num_all), chunk,
                                               snap.row_log))
            try:
                res = fwk.run_filter_plugins_chunk(state, pod, chunk)
            finally:
                state.delete(NODE_ROWS_KEY)
        else:
            res = fwk.run_filter_plugins_chunk(state, pod, chunk)
        sts = res.statuses
        lo = (start + pos) % num_all
        pos += need
        if res.passed_idx is None:  # every node passed
            if len(feasible) + len(chunk) > to_find:
                keep = to_find - len(feasible)
                feasible.extend(chunk[:keep])
                if pieces is not None:
                    pieces.append((lo, keep))
                if record is not None:
                    record.add_passed(chunk[:keep])
                    record.add_cancelled(chunk[keep])
                break
            feasible.extend(chunk)
            if pieces is not None:
                pieces.append((lo, len(chunk)))
            if record is not None:
                record.add_passed(chunk)
            continue
        if _takes_whole(res, to_find - len(feasible)):
            if _take_chunk(diagnosis, feasible, pieces, chunk, res, lo, num_all, to_find, record):
                break
            continue
        done = False
        passed: list[int] | None = [] if pieces is not None else None
        for k, (ni, st) in enumerate(zip(chunk, sts, strict=True)):
            if st is None or st.code == Code.SUCCESS:
                if len(feasible) >= to_find:
                    if record is not None:
                        record.add_cancelled(ni)
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


def reads_only(fwk: Framework, state: CycleState) -> bool:
    """Whether every Filter plugin this cycle runs (those its PreFilter did not skip) only
    reads: then the walk may ask about nodes past its stop point and drop the answers."""
    skip = state.skip_filter_plugins
    return all(pl.filter_reads_only for pl in fwk.filter_plugins if pl.name not in skip)


def window(need: int, pos: int, found: int, num_all: int) -> int:
    """How many nodes the next chunk takes when answers past the stop point may be dropped:
    `need` nodes still to find (plus the one that would stop the walk) at the rate of `found`
    feasible nodes in the `pos` nodes walked so far; every node left when none was found. At
    least `need`, at most the nodes left."""
    left = num_all - pos
    if not found:
        return left
    return max(need, min(left, -(-need * pos // found)))


def _takes_whole(res: FilterChunk, room: int) -> bool:
    """Whether _take_chunk applies: every status of the chunk is a rejection (res.counts).
    (`room`, the nodes still to find, decides where _take_chunk stops, not whether it applies.)"""
    return res.counts is not None


def _take_chunk(diagnosis: Diagnosis, feasible: list[NodeInfo], pieces: list[Any] | None, chunk: list[NodeInfo],
                res: FilterChunk, lo: int, num_all: int, to_find: int, record: FilterRecord | None) -> bool:
    """The node-by-node loop of pass_filters over a chunk whose statuses are all None or
    rejections, from what the framework handed back: the nodes that passed join `feasible` in
    order, the rejected ones get their statuses in the diagnosis in walk order with their
    counts, each distinct status counted once for its plugin (a plugin may give one Status to
    every node it rejects for the same reason). When more nodes passed than the walk still
    needs, the chunk ends at the first one too many, which is cancelled, as the loop would stop
    there: True then (the walk is over)."""
    room = to_find - len(feasible)
    passed = res.passed
    idx = res.passed_idx or []
    sts = res.statuses
    counts = res.counts or {}
    cut = len(passed) > room
    if cut:
        end = idx[room]
        passed = passed[:room]
        idx = idx[:room]
        stopped = chunk[end]
        chunk = chunk[:end]
        sts = sts[:end]
        rejected = list(filter(None, sts))
        counts = distinct_counts(rejected) if rejected else {}
    feasible.extend(passed)
    if pieces is not None:
        # The passed nodes' rows (chunk position + lo, past the end wrapping to the start), by
        # a C-level map: a chunk of a pod that fits most nodes passes thousands of them.
        rows = list(map(lo.__add__, idx))
        if lo + len(chunk) > num_all:
            rows = [r - num_all if r >= num_all else r for r in rows]
        pieces.append(rows)
    diagnosis.node_to_status.add_chunk(chunk, sts, len(chunk) - len(passed), counts)
    for st in counts:
        diagnosis.add_plugin_status(st)
    if record is not None:
        record.add_chunk(chunk, sts)
        if cut:
            record.add_cancelled(stopped)
    return cut


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
