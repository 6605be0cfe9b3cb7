"""The speed paths (framework/runtime/fastpath.py) give what the plain walk gives.

On randomised clusters (taints, cordons, full nodes, images, preferred affinities), for every
pending pod and several start indexes and numbers of nodes to find: `pass_filters` finds the
same feasible nodes and records the same statuses as schedule_one's `walk_filters`, and
`prioritize_and_select` computes the same totals and chooses the same host as
`prioritize_nodes` + `select_host`.
"""

from __future__ import annotations

import pytest
from test_batched_paths import _cluster_yaml

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.fit_error import Diagnosis
from scheduler_core.framework.runtime import fastpath
from scheduler_core.framework.status import Code
from scheduler_core.loader import load_scenario_file
from scheduler_core.schedule_one import prioritize_nodes, select_host, walk_filters
from scheduler_core.simulation import Simulation


def _statuses(d: Diagnosis):
    return ({n: (s.code, s.reasons, s.plugin) for n, s in d.node_to_status.node_to_status.items()},
            sorted(d.unschedulable_plugins), sorted(d.pending_plugins))


@pytest.mark.parametrize("seed", range(4))
def test_fast_filters_scores_and_host_equal_the_plain_walk(tmp_path, seed):
    path = tmp_path / "c.yaml"
    path.write_text(_cluster_yaml(seed, 40, 30, 12))
    sim = Simulation(load_scenario_file(str(path)), seed=0)
    sched = sim.scheduler
    assert not sched.sink.enabled
    fwk = next(iter(sched.profiles.values()))
    sched.cache.update_snapshot(sched.snapshot)
    nodes = sched.snapshot.list()
    pending = [p for p in sched.cluster.pods.values() if not p.node_name]
    compared_hosts = rejected = 0
    for pod in pending:
        state = CycleState()
        _, st, _ = fwk.run_pre_filter_plugins(state, pod)
        if st is not None and st.code != Code.SUCCESS:
            continue
        for start, to_find in [(0, len(nodes)), (7, 5), (len(nodes) - 1, 1), (13, 20)]:
            plain_d, fast_d = Diagnosis(), Diagnosis()
            plain = walk_filters(sched, fwk, state, pod, plain_d, nodes, start, to_find, has_nominated=False)
            fast = fastpath.pass_filters(fwk, state, pod, fast_d, nodes, start, to_find)
            assert [n.name for n in fast] == [n.name for n in plain]
            assert _statuses(fast_d) == _statuses(plain_d)
            _assert_feasible_rows(sched, state, fast)
            rejected += len(plain_d.node_to_status)
        feasible = walk_filters(sched, fwk, state, pod, Diagnosis(), nodes, 0, len(nodes), has_nominated=False)
        if len(feasible) < 2:
            continue
        scores = prioritize_nodes(sched, fwk, state, pod, feasible)
        totals, st, _ = fwk.run_score_plugins_totals(state, pod, feasible)
        assert st is None
        assert totals == [s.total_score for s in scores]
        host, _ = select_host(sched, pod, scores)
        fast_host, fast_totals, _ = fastpath.prioritize_and_select(fwk, state, pod, feasible)
        assert (fast_host, fast_totals) == (host, totals)
        assert fastpath.prioritize_and_select(fwk, state, pod, feasible, relative=True)[0] == host
        compared_hosts += 1
    assert compared_hosts > 0 and rejected > 0  # the scenarios exercise both rejections and choices


def test_rotated_slice_equals_a_slice_of_the_rotated_copy():
    nodes = list(range(7))
    for start in range(7):
        rotated = nodes[start:] + nodes[:start]
        for pos in range(7):
            for count in range(1, 8 - pos):
                assert fastpath._rotated_slice(nodes, start, pos, count) == rotated[pos:pos + count]


def test_weighted_totals_equal_the_per_node_sum():
    import random

    from scheduler_core.framework.runtime.score_list import ScoreList
    from scheduler_core.framework.runtime.totals import weighted_totals
    from scheduler_core.util.goheap import max_heap_init_root

    rng = random.Random(5)
    seen_vector = 0
    for k in range(60):
        weighted = []
        for _ in range(k % 6):
            kind = rng.randrange(5)
            if kind == 0:
                lst = [rng.randint(0, 100)] * 9  # uniform
            elif kind == 1:
                lst = [rng.randint(0, 255) for _ in range(9)]  # packed
            elif kind == 2:
                lst = [rng.randint(-300, 300) for _ in range(9)]  # neither: plain sums
            else:
                lst = [rng.choice([0, 0, rng.randint(0, 100)]) for _ in range(9)]
            weighted.append((rng.choice([1, 2, 3, -1, 1 << 40]), lst))
        weighted += [(2, [0] * 9)]
        expect = [sum(w * lst[i] for w, lst in weighted) for i in range(9)]
        summaries = [(w, ScoreList(lst)) for w, lst in weighted]
        assert weighted_totals(summaries, 9) == expect
        assert weighted_totals(summaries, 9, vector=True) == expect
        # relative: off by one constant (the uniform lists' share), so the same node is chosen
        for vector in (False, True):
            rel = weighted_totals(summaries, 9, vector=vector, relative=True)
            assert len({e - r for e, r in zip(expect, rel, strict=True)}) == 1
            assert max_heap_init_root(rel) == max_heap_init_root(expect)
        seen_vector += all(s.packed is not None for _, s in summaries if not s.uniform)
    assert seen_vector > 10
    assert weighted_totals([(1 << 61, ScoreList([1, 2])), (1 << 61, ScoreList([3, 4]))], 2, vector=True) \
        == [(1 << 61) * 4, (1 << 61) * 6]  # beyond int64: the plain sums
    assert weighted_totals([], 3) == [0, 0, 0] and weighted_totals([(3, ScoreList([]))], 0) == []


def test_byte_totals_equal_the_per_node_sum_up_to_255():
    # Scores of 0..100 summed as one big integer per list, a byte per node: exact while no
    # node's total passes 255 (so nothing carries), refused (None) beyond.
    import random

    from scheduler_core.framework.runtime.score_list import ScoreList
    from scheduler_core.framework.runtime.totals import _byte_totals

    rng = random.Random(9)
    used = 0
    for _ in range(300):
        n = rng.randint(2, 60)
        weights = rng.choice([[1, 1], [2], [1, 1, 0], [2, 1], [1], [3, 1]])
        lists = [[rng.choice([0, 100, rng.randint(0, 100)]) for _ in range(n)] for _ in weights]
        offset = rng.choice([0, 0, 55, 56, 155])
        varied = [(w, ScoreList(lst)) for w, lst in zip(weights, lists, strict=True)]
        if any(s.uniform for _, s in varied):
            continue
        got = _byte_totals(varied, offset, n)
        if offset + 100 * sum(weights) > 255:
            assert got is None
            continue
        used += 1
        assert got == [offset + sum(w * lst[i] for w, lst in zip(weights, lists, strict=True)) for i in range(n)]
    assert used > 50
    assert _byte_totals([(1, ScoreList([101, 0]))], 0, 2) is None  # above MAX_NODE_SCORE


def test_score_list_range_check_equals_min_max():
    import random

    from scheduler_core.framework.runtime.score_list import ScoreList

    rng = random.Random(7)
    values = [0, 1, 50, 99, 100, 101, 255, 256, -1, 1000, 1.5, True]
    for _ in range(3000):
        lst = [rng.choice(values) for _ in range(rng.randrange(0, 6))]
        if rng.random() < 0.3 and lst:
            lst = [lst[0]] * len(lst)
        s = ScoreList(lst)
        for lo, hi in [(0, 100), (1, 100), (0, 300), (-5, 5), (10, 5)]:
            expect = not lst or not (min(lst) < lo or max(lst) > hi)
            assert s.in_range(lo, hi) == expect, (lst, lo, hi)
        assert s.uniform == (bool(lst) and all(v == lst[0] for v in lst))


def test_normalize_score_values_equal_the_node_score_form():
    """default_normalize_score_values (bare scores; a shortcut for one score on every node)
    gives what default_normalize_score gives on NodeScores, types included."""
    import random

    from scheduler_core.framework.plugins.helper.normalize_score import (
        default_normalize_score,
        default_normalize_score_values,
    )
    from scheduler_core.framework.types import NodeScore

    rng = random.Random(2)
    for _ in range(3000):
        n = rng.randrange(0, 7)
        pool = [0, 0, 1, 3, 7, 100, -2, False, 0.0]
        lst = [rng.choice(pool) for _ in range(n)]
        if rng.random() < 0.4 and lst:
            lst = [lst[0]] * n
        for reverse in (False, True):
            mp = rng.choice([10, 100])
            got = list(lst)
            default_normalize_score_values(mp, reverse, got)
            ns = [NodeScore(str(i), v) for i, v in enumerate(lst)]
            default_normalize_score(mp, reverse, ns)
            want = [x.score for x in ns]
            assert got == want and [type(v) for v in got] == [type(v) for v in want], (lst, reverse)


def _random_node_infos(rng, count):
    """NodeInfos with random allocatable/requested cpu and memory, including nodes without cpu
    or memory, nodes already over-committed, and values near the exactness bound."""
    from scheduler_core.framework.types import NodeInfo

    out = []
    for i in range(count):
        ni = NodeInfo()
        ni.name = f"n{i}"
        big = rng.random() < 0.05
        top = (1 << 51) if big else 64_000
        ac = 0 if rng.random() < 0.05 else rng.randint(1, top)
        am = 0 if rng.random() < 0.05 else rng.randint(1, top * 1024 if not big else top)
        ni.allocatable.milli_cpu, ni.allocatable.memory = ac, am
        ni.requested.milli_cpu = rng.randint(0, int(ac * 1.3) + 5)
        ni.requested.memory = rng.randint(0, int(am * 1.3) + 5)
        ni.non_zero_requested.milli_cpu = ni.requested.milli_cpu + rng.choice([0, 100])
        ni.non_zero_requested.memory = ni.requested.memory + rng.choice([0, 200 * 1024 * 1024])
        out.append(ni)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_vector_resource_scores_equal_the_per_node_scores(seed):
    """LeastAllocated and BalancedAllocation over node rows give the per-node results bit for bit
    (BalancedAllocation's float deviation included) on random subsets of random nodes."""
    import random

    np = pytest.importorskip("numpy")
    from scheduler_core.backend.cache.node_arrays import NodeArrays
    from scheduler_core.framework.plugins.noderesources.balanced_allocation import balanced_cpu_mem_batch
    from scheduler_core.framework.plugins.noderesources.least_allocated import least_cpu_mem_batch
    from scheduler_core.framework.plugins.noderesources.resource_allocation import ResourceSpec
    from scheduler_core.framework.plugins.noderesources.vector import balanced_cpu_mem_vector, least_cpu_mem_vector

    rng = random.Random(seed)
    nodes = _random_node_infos(rng, 400)
    arrays = NodeArrays(nodes)
    assert arrays.exact
    res = [ResourceSpec("cpu", rng.randint(1, 3)), ResourceSpec("memory", rng.randint(1, 3))]
    least, least_v = least_cpu_mem_batch(res), least_cpu_mem_vector(res)
    for _ in range(20):
        pick = sorted(rng.sample(range(len(nodes)), rng.randint(1, len(nodes))))
        sub = [nodes[i] for i in pick]
        idx = np.array(pick, dtype=np.intp)
        pc, pm = rng.choice([0, 100, rng.randint(0, 70_000)]), rng.choice([0, rng.randint(0, 1 << 40)])
        assert least_v(arrays, idx, pc, pm).tolist() == least(sub, pc, pm)
        assert balanced_cpu_mem_vector(arrays, idx, pc, pm).tolist() == balanced_cpu_mem_batch(sub, pc, pm)
    # Rows rewritten for a changed node follow it.
    changed = _random_node_infos(random.Random(seed + 100), 1)[0]
    changed.name = nodes[3].name
    nodes[3] = changed
    arrays.set_row(3, changed)
    every = slice(None)
    assert balanced_cpu_mem_vector(arrays, every, 250, 1 << 28).tolist() == balanced_cpu_mem_batch(nodes, 250, 1 << 28)
    assert least_v(arrays, every, 250, 1 << 28).tolist() == least(nodes, 250, 1 << 28)


def _with_pods_and_storage(rng, nodes):
    """Give random NodeInfos pod counts, allowed pods and ephemeral storage (Fit's quick test)."""
    for ni in nodes:
        ni.allocatable.allowed_pod_number = rng.randint(0, 12)
        ni.pods = [None] * rng.randint(0, 12)  # only counted
        ni.allocatable.ephemeral_storage = rng.choice([0, rng.randint(1, 1 << 34)])
        ni.requested.ephemeral_storage = rng.randint(0, int(ni.allocatable.ephemeral_storage * 1.2) + 1)
    return nodes


@pytest.mark.parametrize("seed", range(4))
def test_vector_fit_mask_equals_the_quick_test(seed):
    """NodeResourcesFit's quick test over node rows flags exactly the nodes the per-node test
    (the one filter_nodes' loop applies) flags."""
    import random

    np = pytest.importorskip("numpy")
    from scheduler_core.backend.cache.node_arrays import NodeArrays
    from scheduler_core.framework.plugins.noderesources.fit import _quick_test
    from scheduler_core.framework.plugins.noderesources.vector import fit_suspect_mask

    rng = random.Random(seed)
    nodes = _with_pods_and_storage(rng, _random_node_infos(rng, 300))
    arrays = NodeArrays(nodes)
    assert arrays.exact
    for _ in range(30):
        pick = sorted(rng.sample(range(len(nodes)), rng.randint(1, len(nodes))))
        cpu, mem = rng.choice([0, 100, rng.randint(0, 70_000)]), rng.choice([0, rng.randint(0, 1 << 40)])
        eph = rng.choice([0, rng.randint(0, 1 << 34)])
        got = fit_suspect_mask(arrays, np.array(pick, dtype=np.intp), cpu, mem, eph).tolist()
        assert got == _quick_test([nodes[i] for i in pick], cpu, mem, eph)


@pytest.mark.parametrize("seed", range(4))
def test_kept_columns_equal_fresh_values(seed, monkeypatch):
    """Columns kept over all rows (kept_columns.take_column) equal the values computed afresh,
    while rows change (a new NodeInfo in a slot, logged by set_row), requests vary (more than
    the kept columns' limit), the change log drops its older half, the rows taken are slices or
    index arrays, and the arrays go through pickling (a checkpoint)."""
    import pickle
    import random

    np = pytest.importorskip("numpy")
    from scheduler_core.backend.cache import kept_columns, node_arrays
    from scheduler_core.backend.cache.node_arrays import NodeArrays
    from scheduler_core.framework.plugins.noderesources.balanced_allocation import balanced_cpu_mem_batch
    from scheduler_core.framework.plugins.noderesources.fit import _quick_test
    from scheduler_core.framework.plugins.noderesources.least_allocated import least_cpu_mem_batch
    from scheduler_core.framework.plugins.noderesources.resource_allocation import ResourceSpec
    from scheduler_core.framework.plugins.noderesources.vector import (
        balanced_cpu_mem_vector,
        fit_suspect_mask,
        least_cpu_mem_vector,
    )

    monkeypatch.setattr(node_arrays, "CHANGE_LOG_LIMIT", 9)
    monkeypatch.setattr(kept_columns, "KEPT_COLUMNS", 5)
    rng = random.Random(seed)
    nodes = _with_pods_and_storage(rng, _random_node_infos(rng, 120))
    arrays = NodeArrays(nodes)
    res = [ResourceSpec("cpu", 1), ResourceSpec("memory", 2)]
    least, least_v = least_cpu_mem_batch(res), least_cpu_mem_vector(res)
    requests = [(rng.randint(0, 4000), rng.randint(0, 1 << 33), rng.choice([0, 1 << 20])) for _ in range(7)]
    taken = 0
    for step in range(120):
        for _ in range(rng.choice([0, 0, 1, 1, 2, 5, 12])):
            i = rng.randrange(len(nodes))
            new = _with_pods_and_storage(rng, _random_node_infos(rng, 1))[0]
            nodes[i] = new
            arrays.set_row(i, new)
        if step == 60:
            arrays, nodes = pickle.loads(pickle.dumps((arrays, nodes)))
            assert arrays.nodes is nodes
        pc, pm, eph = rng.choice(requests)
        lo = rng.randrange(len(nodes))
        if rng.random() < 0.5:
            idx = slice(lo, rng.randint(lo, len(nodes)))
            pick = list(range(len(nodes)))[idx]
        else:
            pick = [rng.randrange(len(nodes)) for _ in range(rng.randint(0, 50))]
            idx = np.array(pick, dtype=np.intp)
        sub = [nodes[i] for i in pick]
        got = kept_columns.take_column(arrays, ("least", pc, pm), idx,
                                       lambda a=arrays, p=(pc, pm): least_v(a, slice(None), *p),
                                       lambda todo, p=(pc, pm): least(todo, *p))
        assert got.tolist() == least(sub, pc, pm)
        got = kept_columns.take_column(arrays, ("balanced", pc, pm), idx,
                                       lambda a=arrays, p=(pc, pm): balanced_cpu_mem_vector(a, slice(None), *p),
                                       lambda todo, p=(pc, pm): balanced_cpu_mem_batch(todo, *p))
        assert got.tolist() == balanced_cpu_mem_batch(sub, pc, pm)
        got = kept_columns.take_column(arrays, ("fit", pc, pm, eph), idx,
                                       lambda a=arrays, p=(pc, pm, eph): fit_suspect_mask(a, slice(None), *p),
                                       lambda todo, p=(pc, pm, eph): _quick_test(todo, *p))
        assert got.tolist() == _quick_test(sub, pc, pm, eph)
        taken += 1
    assert taken == 120 and arrays.changed.base > 0  # the log dropped entries on the way
    # Arrays restored from a checkpoint that did not keep their node list: nothing kept.
    old = node_arrays._restore(arrays.cols, True)
    assert kept_columns.take_column(old, "k", slice(None), lambda: 1 / 0, lambda todo: 1 / 0) is None


def _assert_feasible_rows(sched, state, fast) -> None:
    """The rows the fast filter walk recorded for its feasible nodes (when the snapshot has node
    arrays) are the rows their names map to, in the same order."""
    from scheduler_core.backend.cache import node_arrays

    found = state.get(node_arrays.FEASIBLE_ROWS_KEY)
    if sched.snapshot.node_arrays() is None:
        # Runs of the node list instead (RowRuns), covering the feasible nodes in order.
        assert isinstance(found, node_arrays.RowRuns) and found.nodes is fast
        assert found.all_nodes is sched.snapshot.list()
        covered = [found.all_nodes[k] for lo, hi in found.runs for k in range(lo, hi)]
        assert len(covered) == len(fast) and all(a is b for a, b in zip(covered, fast, strict=True))
        state.delete(node_arrays.FEASIBLE_ROWS_KEY)
        return
    import numpy as np

    assert found is not None and found.nodes is fast
    want = node_arrays.rows_of(found.arrays, fast, sched.snapshot.index)
    assert np.arange(sched.snapshot.num_nodes())[found.idx].tolist() == want.tolist()
    state.delete(node_arrays.FEASIBLE_ROWS_KEY)


@pytest.mark.parametrize("seed", range(2))
def test_fast_path_with_node_arrays_equals_the_plain_walk(tmp_path, seed):
    """A cluster past the arrays' size threshold: the fast path filters (NodeResourcesFit's
    vector test, wrapped windows included) and scores with node rows (kept up to date across
    cycles by update_snapshot), finding the plain walk's nodes and statuses and picking its host;
    the whole run's placements equal a run with the arrays disabled."""
    pytest.importorskip("numpy")
    from scheduler_core.backend.cache import node_arrays

    path = tmp_path / "c.yaml"
    path.write_text(_cluster_yaml(seed, max(node_arrays.MIN_NODES + 50, 1050), 200, 60))
    sim = Simulation(load_scenario_file(str(path)), seed=0)
    sched = sim.scheduler
    fwk = next(iter(sched.profiles.values()))
    sched.cache.update_snapshot(sched.snapshot)
    nodes = sched.snapshot.list()
    assert sched.snapshot.node_arrays() is not None
    compared = fit_rejections = 0
    for pod in [p for p in sched.cluster.pods.values() if not p.node_name][:15]:
        state = CycleState()
        _, st, _ = fwk.run_pre_filter_plugins(state, pod)
        if st is not None and st.code != Code.SUCCESS:
            continue
        for start, to_find in [(0, len(nodes)), (len(nodes) - 40, 300), (500, 100), (9, 70)]:
            plain_d, fast_d = Diagnosis(), Diagnosis()
            plain = walk_filters(sched, fwk, state, pod, plain_d, nodes, start, to_find, has_nominated=False)
            fast = fastpath.pass_filters(fwk, state, pod, fast_d, nodes, start, to_find)
            assert [n.name for n in fast] == [n.name for n in plain]
            assert _statuses(fast_d) == _statuses(plain_d)
            _assert_feasible_rows(sched, state, fast)
            fit_rejections += sum(s.plugin == "NodeResourcesFit"
                                  for s in plain_d.node_to_status.node_to_status.values())
        feasible = walk_filters(sched, fwk, state, pod, Diagnosis(), nodes, 0, len(nodes), has_nominated=False)
        if len(feasible) < fastpath.MIN_ROWS:
            continue
        scores = prioritize_nodes(sched, fwk, state, pod, feasible)
        host, _ = select_host(sched, pod, scores)
        assert fastpath.prioritize_and_select(fwk, state, pod, feasible)[0] == host
        compared += 1
    assert compared > 0 and fit_rejections > 0
    vectors = [pl.scorer._vector for pl in fwk.score_plugins if hasattr(getattr(pl, "scorer", None), "_vector")]
    assert len(vectors) == 2 and all(v is not None for v in vectors)  # both took the vector form
    sim.run()
    with_arrays = {p.key: p.node_name for p in sim.scheduler.cluster.pods.values()}
    saved = node_arrays.MIN_NODES
    node_arrays.MIN_NODES = 10**9
    try:
        import scheduler_core.backend.cache.snapshot as snapshot_mod
        snapshot_mod.MIN_NODES = 10**9
        plain = Simulation(load_scenario_file(str(path)), seed=0)
        plain.run()
    finally:
        node_arrays.MIN_NODES = saved
        snapshot_mod.MIN_NODES = saved
    assert with_arrays == {p.key: p.node_name for p in plain.scheduler.cluster.pods.values()}


@pytest.mark.parametrize("seed", range(4))
def test_row_scores_equal_fresh_scores(seed):
    """The scorers' kept row scores (small snapshots, RowRuns) equal scores computed afresh,
    cycle after cycle, while nodes change (a new NodeInfo in a slot, a pod added in place: a new
    generation), requests vary, runs wrap and the node list is replaced."""
    import random

    from scheduler_core.api.types import Container, Pod
    from scheduler_core.backend.cache.node_arrays import RowRuns, row_runs
    from scheduler_core.framework.plugins.noderesources import resource_allocation
    from scheduler_core.framework.plugins.noderesources.balanced_allocation import BalancedAllocation
    from scheduler_core.framework.plugins.noderesources.least_allocated import least_cpu_mem_batch

    rng = random.Random(seed)
    nodes = _random_node_infos(rng, 300)
    balanced = BalancedAllocation().scorer
    least = resource_allocation.ResourceAllocationScorer("least", None, balanced.resources)
    least.fast_cpu_mem = least_cpu_mem_batch(balanced.resources)
    for cycle in range(60):
        for _ in range(rng.randint(0, 3)):
            i = rng.randrange(len(nodes))
            if rng.random() < 0.5:
                nodes[i] = nodes[i].snapshot()
                nodes[i].add_pod(Pod(f"q{cycle}-{i}", containers=[Container("c", requests={"cpu": 3})]))
            else:
                nodes[i].add_pod(Pod(f"p{cycle}-{i}", containers=[
                    Container("c", requests={"cpu": rng.choice([1, 2]), "memory": 1 << 30})]))
        if cycle == 30:
            nodes = list(nodes)  # the node set changed: a new list
        n = len(nodes)
        pieces, sub = _random_window(rng, nodes)
        runs = RowRuns(nodes, row_runs(pieces, n), sub)
        pc, pm = rng.choice([(250, 1 << 29), (500, 1 << 30), (1000, 1 << 31), (cycle, 7)])
        for scorer in (balanced, least):
            want = scorer.fast_cpu_mem(sub, pc, pm)
            assert scorer.score_nodes(sub, [pc, pm], runs)[0] == want
            assert scorer.score_nodes(sub, [pc, pm])[0] == want


def _random_window(rng, nodes):
    """A filter walk's pieces over `nodes` (a wrapping window, some rows skipped or none) and
    the nodes they name, in walk order."""
    n = len(nodes)
    start, count = rng.randrange(n), rng.randint(1, n)
    skip = set(rng.sample(range(n), rng.randint(0, 20)))
    window = [(start + k) % n for k in range(count)]
    pieces = [(start, count)] if not skip else [[r for r in window if r not in skip]]
    return pieces, [nodes[r] for r in (window if not skip else pieces[0])]


@pytest.mark.parametrize("seed", range(4))
def test_row_scores_read_from_the_row_log_equal_fresh_scores(seed, monkeypatch):
    """Kept row scores brought up to date from the snapshot's RowLog (slots replaced, as
    update_snapshot replaces them) equal scores computed afresh, with runs that wrap or skip
    rows, requests that vary, the log dropping its older half, and uses without the log in
    between (the comparing path)."""
    import random

    from scheduler_core.api.types import Container, Pod
    from scheduler_core.backend.cache import node_arrays
    from scheduler_core.backend.cache.node_arrays import RowLog, RowRuns, row_runs
    from scheduler_core.framework.plugins.noderesources import resource_allocation
    from scheduler_core.framework.plugins.noderesources.balanced_allocation import BalancedAllocation
    from scheduler_core.framework.plugins.noderesources.least_allocated import least_cpu_mem_batch

    monkeypatch.setattr(node_arrays, "CHANGE_LOG_LIMIT", 7)
    rng = random.Random(seed)
    nodes = _random_node_infos(rng, 200)
    log = RowLog()
    balanced = BalancedAllocation().scorer
    least = resource_allocation.ResourceAllocationScorer("least", None, balanced.resources)
    least.fast_cpu_mem = least_cpu_mem_batch(balanced.resources)
    for cycle in range(120):
        for _ in range(rng.choice([0, 1, 1, 2, 3, 9])):
            i = rng.randrange(len(nodes))
            nodes[i] = nodes[i].snapshot()
            nodes[i].add_pod(Pod(f"q{cycle}-{i}", containers=[
                Container("c", requests={"cpu": rng.choice([1, 2]), "memory": 1 << 30})]))
            log.add(i)
        n = len(nodes)
        pieces, sub = _random_window(rng, nodes)
        runs = RowRuns(nodes, row_runs(pieces, n), sub, log if rng.random() < 0.85 else None)
        pc, pm = rng.choice([(250, 1 << 29), (500, 1 << 30), (1000, 1 << 31)])
        for scorer in (balanced, least):
            want = scorer.fast_cpu_mem(sub, pc, pm)
            assert scorer.score_nodes(sub, [pc, pm], runs)[0] == want
    assert log.base > 0  # the log dropped entries on the way


@pytest.mark.parametrize("seed", range(3))
def test_fast_path_with_row_runs_equals_the_plain_walk(tmp_path, seed):
    """A cluster below the arrays' size: the fast path hands NodeResourcesFit and the resource
    scorers runs of the node list (RowRuns), and they take their answers from rows they kept
    across cycles (RowValues). Its nodes, statuses and host equal the plain walk's on wrapped
    windows with Fit rejections, and a whole run's placements equal a run without the runs."""
    from scheduler_core.backend.cache import node_arrays

    path = tmp_path / "c.yaml"
    path.write_text(_cluster_yaml(seed, 300, 400, 150))
    sim = Simulation(load_scenario_file(str(path)), seed=0)
    sched = sim.scheduler
    fwk = next(iter(sched.profiles.values()))
    sched.cache.update_snapshot(sched.snapshot)
    nodes = sched.snapshot.list()
    assert sched.snapshot.node_arrays() is None
    compared = fit_rejections = 0
    for pod in [p for p in sched.cluster.pods.values() if not p.node_name][:12]:
        state = CycleState()
        _, st, _ = fwk.run_pre_filter_plugins(state, pod)
        if st is not None and st.code != Code.SUCCESS:
            continue
        for start, to_find in [(0, len(nodes)), (len(nodes) - 40, 150), (120, 100), (9, 70)]:
            plain_d, fast_d = Diagnosis(), Diagnosis()
            plain = walk_filters(sched, fwk, state, pod, plain_d, nodes, start, to_find, has_nominated=False)
            fast = fastpath.pass_filters(fwk, state, pod, fast_d, nodes, start, to_find)
            assert [n.name for n in fast] == [n.name for n in plain]
            assert _statuses(fast_d) == _statuses(plain_d)
            fit_rejections += sum(s.plugin == "NodeResourcesFit"
                                  for s in plain_d.node_to_status.node_to_status.values())
            if len(fast) >= fastpath.MIN_ROWS:
                scores = prioritize_nodes(sched, fwk, state, pod, fast)
                host, _ = select_host(sched, pod, scores)
                assert fastpath.prioritize_and_select(fwk, state, pod, fast)[0] == host
                compared += 1
            state.delete(node_arrays.FEASIBLE_ROWS_KEY)
    assert compared > 0 and fit_rejections > 0
    sim.run()
    with_runs = {p.key: p.node_name for p in sim.scheduler.cluster.pods.values()}
    saved = fastpath.MIN_NODES
    fastpath.MIN_NODES = 0  # no RowRuns: the per-node loops
    try:
        plain = Simulation(load_scenario_file(str(path)), seed=0)
        plain.run()
    finally:
        fastpath.MIN_NODES = saved
    assert with_runs == {p.key: p.node_name for p in plain.scheduler.cluster.pods.values()}


def test_node_arrays_are_exact_only_within_the_bound():
    """Values at or past SAFE, negative or beyond int64 switch the arrays off (all zeros)."""
    pytest.importorskip("numpy")
    from scheduler_core.backend.cache.node_arrays import SAFE, NodeArrays
    from scheduler_core.framework.types import NodeInfo

    def node(v):
        ni = NodeInfo()
        ni.allocatable.milli_cpu = v
        ni.allocatable.allowed_pod_number = 5
        return ni

    for vals, exact in [([1, 2, 3], True), ([SAFE - 1], True), ([SAFE], False), ([-1], False),
                        ([1 << 70], False), ([-(1 << 70)], False), ([], True)]:
        a = NodeArrays([node(v) for v in vals])
        assert a.exact == exact, vals
        if exact:
            assert a.alloc_cpu.tolist() == vals and a.allowed_pods.tolist() == [5] * len(vals)
        else:
            assert not a.cols.any()
