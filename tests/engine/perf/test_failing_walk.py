"""The failing pod's path keeps what the per-node forms give.

- NodeToStatus keeps each distinct status's node count as statuses arrive (a chunk's counts
  from the walk, one node's move on `set`): after any mix of chunks, single sets over old and
  new nodes, reads of the whole map and a pickle round trip, its counts, entries, length,
  lookups and `nodes_for_status_code` equal a plain dict's, and so does the FailedScheduling
  message built from them.
- The list helpers of a filter chunk (filter_chunk.py) equal their one-line definitions.
- Framework.run_filter_plugins_chunk, over Filter plugins answering with shared and distinct
  statuses, few, many or all nodes rejected, Success-coded statuses and Errors, gives every node
  the status run_filter_plugins gives it one node at a time, and the nodes that passed, their
  positions and each distinct rejection's count as they follow from those statuses.
"""

from __future__ import annotations

import pickle
import random
from collections import Counter
from itertools import compress
from typing import Any

import pytest

from scheduler_core.api.types import Node, Pod
from scheduler_core.config.types import PluginRef, Plugins, PluginSet, Profile
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.fit_error import Diagnosis, FitError
from scheduler_core.framework.interface import FilterPlugin
from scheduler_core.framework.node_to_status import NodeToStatus
from scheduler_core.framework.plugins.registry import get_registry
from scheduler_core.framework.runtime import filter_chunk as fc
from scheduler_core.framework.runtime.framework import Framework
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import NodeInfo

NODES = 300


def _nodes(n: int = NODES) -> list[NodeInfo]:
    return [NodeInfo(Node(name=f"n{i:03d}")) for i in range(n)]


def _view(st: Status | None) -> Any:
    return None if st is None else (st.code, tuple(st.reasons), st.plugin)


# ---- NodeToStatus ---------------------------------------------------------------------------


def _statuses(r: random.Random) -> list[Status]:
    return [Status(Code.UNSCHEDULABLE, "Insufficient cpu"),
            Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) didn't match Pod's node affinity/selector"),
            Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) had untolerated taint(s)"),
            Status(Code.UNSCHEDULABLE, "Too many pods", "Insufficient memory")][:r.randint(1, 4)]


def _same(m: NodeToStatus, ref: dict[str, Status], nodes: list[NodeInfo], r: random.Random) -> None:
    assert dict(m.status_counts()) == dict(Counter(ref.values()))
    assert len(m) == len(ref)
    for ni in r.sample(nodes, 5):
        assert m.get(ni.name) is ref.get(ni.name, m.absent_nodes_status)
    assert m.get("") is m.absent_nodes_status
    for code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE):
        if m.absent_nodes_status.code == code:
            want = [ni for ni in nodes if ref.get(ni.name, m.absent_nodes_status).code == code]
        else:
            by_name = {ni.name: ni for ni in nodes}
            want = [by_name[k] for k, st in ref.items() if st.code == code]
        assert [ni.name for ni in m.nodes_for_status_code(nodes, code)] == [ni.name for ni in want]


@pytest.mark.parametrize("seed", range(12))
def test_kept_counts_equal_a_plain_map(seed):
    r = random.Random(seed)
    nodes = _nodes()
    shared = _statuses(r)
    m = NodeToStatus()
    ref: dict[str, Status] = {}
    order = list(range(NODES))
    r.shuffle(order)
    pos = 0
    for _ in range(14):
        op = r.random()
        if op < 0.45 and pos < NODES:  # a chunk of nodes not seen yet, as the walk hands them over
            take = order[pos:pos + r.randint(1, 60)]
            pos += len(take)
            chunk = [nodes[i] for i in take]
            sts: list[Status | None] = []
            for _ni in chunk:
                k = r.random()
                sts.append(None if k < 0.3 else Status(Code.UNSCHEDULABLE, "fresh") if k < 0.4 else r.choice(shared))
            rejected = [s for s in sts if s is not None]
            counts = dict(Counter(rejected)) if r.random() < 0.8 else None  # the walk's counts, or none
            m.add_chunk(chunk, sts, len(rejected), counts)
            for ni, st in zip(chunk, sts, strict=True):
                if st is not None:
                    ref[ni.name] = st
        elif op < 0.8:  # one node, seen or not (the plain walk, a preemption dry run)
            ni = r.choice(nodes)
            st = r.choice(shared)
            m.set(ni.name, st)
            ref[ni.name] = st
        elif op < 0.9:  # someone reads the whole map
            assert list(m.node_to_status.items()) == list(ref.items())
        else:
            m = pickle.loads(pickle.dumps(m))
            shared = list({id(s): s for s in m.node_to_status.values()}.values()) or _statuses(r)
            ref = dict(m.node_to_status)
        if r.random() < 0.3:
            m.absent_nodes_status = Status(r.choice([Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE]),
                                           "absent")
        _same(m, ref, nodes, r)
    assert list(m.items()) == list(ref.items())
    # The FailedScheduling text from the kept counts equals the one from a plain map.
    d = Diagnosis(node_to_status=m)
    plain = Diagnosis(node_to_status=NodeToStatus(dict(ref), m.absent_nodes_status))
    assert FitError(Pod(name="p"), NODES, d).message() == FitError(Pod(name="p"), NODES, plain).message()


def test_a_broken_count_is_noticed():
    """The comparison above catches a count `set` failed to move."""
    nodes = _nodes(4)
    a, b = Status(Code.UNSCHEDULABLE, "a"), Status(Code.UNSCHEDULABLE, "b")
    m = NodeToStatus()
    m.add_chunk(nodes, [a, a, None, b], 3, {a: 2, b: 1})
    m.set("n000", b)
    assert dict(m.status_counts()) == {a: 1, b: 2}
    m._counts[a] = 2  # what a `set` that left the old count in place would leave
    with pytest.raises(AssertionError):
        _same(m, {"n000": b, "n001": a, "n003": b}, nodes, random.Random(0))


# ---- the chunk's list helpers -----------------------------------------------------------------


@pytest.mark.parametrize("seed", range(20))
def test_chunk_helpers_equal_their_definitions(seed):
    r = random.Random(seed)
    n = r.randint(1, 80)
    pool = [Status(Code.UNSCHEDULABLE, str(k)) for k in range(r.randint(1, 3))]
    sts: list[Status | None] = [r.choice(pool) if r.random() < r.random() else None for _ in range(n)]
    assert fc.positions(sts) == [k for k, s in enumerate(sts) if s is not None]
    for answers in (sts, [pool[0]] * n, [None] * n):
        got, passed = fc.split(answers)
        assert got == [s for s in answers if s is not None] and passed == answers.count(None)
    assert fc.upto(n) == list(range(n)) and fc.upto(3) == [0, 1, 2]
    assert fc.passed_mask(sts) == [s is None for s in sts]
    rejected = [s for s in sts if s is not None]
    if rejected:
        assert dict(fc.distinct_counts(rejected)) == dict(Counter(rejected))
    drop = sorted(r.sample(range(n), r.randint(0, n)))
    seq = list(range(100, 100 + n))
    assert fc.without(seq, drop) == [v for k, v in enumerate(seq) if k not in set(drop)]
    assert fc.without(range(n), drop) == [k for k in range(n) if k not in set(drop)]
    result: list[Any] = [f"kept{k}" if k in set(drop) else None for k in range(n)]
    new = [f"new{k}" for k in range(n - len(drop))]
    it = iter(new)
    assert fc.fill_gaps(result, drop, new) == [v if v is not None else next(it) for v in result]
    other = sorted(r.sample([k for k in range(n) if k not in set(drop)], r.randint(0, n - len(drop))))
    assert fc.merge_sorted(drop, other) == sorted(drop + other)
    alive = [k for k in range(n) if k not in set(drop)]
    assert fc.alive_positions(n, drop, []) == alive
    assert fc.alive_positions(n, None, alive) is alive
    among = sorted(r.sample(range(len(alive)), r.randint(0, len(alive))))
    assert fc.shift(among, drop) == [alive[k] for k in among]


# ---- the framework's chunk --------------------------------------------------------------------


class _Scripted(FilterPlugin):
    """A Filter plugin answering from a script: node name -> verdict (None passes)."""

    name = "Scripted"
    script: dict[str, Status | None] = {}

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return self.script.get(node_info.name)


def _plugin(name: str) -> type[_Scripted]:
    return type(name, (_Scripted,), {"name": name, "script": {}})


PLUGINS = [_plugin(f"Scripted{k}") for k in range(3)]


def _framework() -> Framework:
    registry = dict(get_registry())
    for cls in PLUGINS:
        registry[cls.name] = cls
    filters = PluginSet(enabled=[PluginRef(cls.name) for cls in PLUGINS], disabled=[PluginRef("*")])
    fwk = Framework(Profile(plugins=Plugins({"filter": filters})), registry)
    assert [pl.name for pl in fwk.filter_plugins] == [cls.name for cls in PLUGINS]
    return fwk


def _script(r: random.Random, nodes: list[NodeInfo], name: str) -> dict[str, Status | None]:
    """Verdicts rejecting few, many or all nodes, shared or per node, sometimes with a
    Success-coded status or an Error among them."""
    share = [Status(Code.UNSCHEDULABLE, f"{name} shared {k}") for k in range(r.randint(1, 2))]
    share.append(Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, f"{name} unresolvable"))
    rate = r.choice([0.0, 0.02, 0.05, 0.1, 0.5, 0.95, 1.0])
    odd = r.random() < 0.25
    out: dict[str, Status | None] = {}
    for ni in nodes:
        if r.random() >= rate:
            out[ni.name] = Status(Code.SUCCESS) if odd and r.random() < 0.05 else None
        elif odd and r.random() < 0.05:
            out[ni.name] = Status(Code.ERROR, f"{name} broke")
        elif r.random() < 0.2:
            out[ni.name] = Status(Code.PENDING if r.random() < 0.3 else Code.UNSCHEDULABLE, f"{name} on {ni.name}")
        else:
            out[ni.name] = r.choice(share)
    return out


def _every(nodes: list[NodeInfo], step: int, offset: int, st: Status) -> dict[str, Status | None]:
    return {ni.name: st if k % step == offset else None for k, ni in enumerate(nodes)}


@pytest.mark.parametrize("seed", range(40))
def test_filter_chunk_equals_the_per_node_run(seed):
    r = random.Random(seed)
    fwk = _framework()
    nodes = _nodes(NODES if seed < 4 else r.choice([1, 7, 64, NODES, NODES]))
    pod = Pod(name="p")
    for pl in fwk.filter_plugins:
        pl.script = _script(r, nodes, pl.name)
    if seed < 4:  # few rejections by each plugin in turn, then (seeds 2, 3) all the rest
        for k, pl in enumerate(fwk.filter_plugins):
            pl.script = _every(nodes, 37 + 4 * k, k + seed, Status(Code.UNSCHEDULABLE, pl.name))
        if seed >= 2:  # one shared Status (seed 2) or one per node (seed 3)
            rest = Status(Code.UNSCHEDULABLE, "rest")
            fwk.filter_plugins[2].script = {ni.name: rest if seed == 2 else Status(Code.UNSCHEDULABLE, "rest")
                                            for ni in nodes}
    state = CycleState()
    state.skip_filter_plugins = {PLUGINS[1].name} if seed >= 4 and r.random() < 0.2 else set()
    one_by_one = [_view(fwk.run_filter_plugins(state, pod, ni)) for ni in nodes]
    got = fwk.run_filter_plugins_chunk(state, pod, nodes)
    assert [_view(s) for s in got.statuses] == one_by_one
    passed = [k for k, s in enumerate(got.statuses) if s is None]
    assert [ni.name for ni in got.passed] == [nodes[k].name for k in passed]
    if got.passed_idx is None:
        assert len(passed) == len(nodes)
    else:
        assert got.passed_idx == passed
    codes = {s.code for pl in fwk.filter_plugins if pl.name not in state.skip_filter_plugins
             for s in pl.script.values() if s is not None}
    if got.counts is not None:
        assert dict(got.counts) == dict(Counter(s for s in got.statuses if s is not None))
        assert all(s.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING)
                   for s in got.counts)
    else:
        assert codes & {Code.SUCCESS, Code.ERROR}  # only a non-rejection answer leaves no counts
    assert list(compress(nodes, got.statuses)) == [ni for ni, s in zip(nodes, got.statuses, strict=True) if s]


# ---- the plugins' row answers ---------------------------------------------------------------


def _rows_cluster(tmp_path) -> Any:
    docs = []
    for i in range(1200):
        tier = "a" if i % 40 == 0 else "b"
        taint = "spec:\n  taints: [{key: gpu, value: 'y', effect: NoSchedule}]\n" if i % 50 == 7 else ""
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata:\n  name: n{i:04d}\n"
                    f"  labels: {{kubernetes.io/hostname: n{i:04d}, tier: {tier}, zone: z{i % 3}}}\n{taint}"
                    "status:\n  capacity: {cpu: '4', memory: 8Gi, pods: '110'}\n")
    pods = [("few-match", "nodeSelector: {tier: a}", ""), ("most-match", "nodeSelector: {tier: b}", ""),
            ("third", "nodeSelector: {zone: z0}", ""),
            ("tolerates", "nodeSelector: {zone: z1}", "tolerations: [{key: gpu, operator: Exists}]")]
    for name, sel, tol in pods:
        docs.append(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n  {sel}\n"
                    + (f"  {tol}\n" if tol else "")
                    + "  containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]\n")
    path = tmp_path / "rows.yaml"
    path.write_text("---\n".join(docs))
    from scheduler_core.loader import load_scenario_file
    from scheduler_core.simulation import Simulation

    return Simulation(load_scenario_file(str(path)), seed=0)


def test_selector_and_taint_rows_equal_the_per_node_filter(tmp_path):
    """NodeAffinity's and TaintToleration's answers from kept columns over the node rows (few
    nodes matching, few not matching, about a third) equal their per-node `filter`."""
    from scheduler_core.backend.cache.node_arrays import NODE_ROWS_KEY, NodeRows

    sim = _rows_cluster(tmp_path)
    sched = sim.scheduler
    fwk = next(iter(sched.profiles.values()))
    sched.cache.update_snapshot(sched.snapshot)
    nodes = sched.snapshot.list()
    arrays = sched.snapshot.node_arrays()
    assert arrays is not None
    checked = 0
    for pod in [p for p in sched.cluster.pods.values() if not p.node_name]:
        state = CycleState()
        fwk.run_pre_filter_plugins(state, pod)
        for lo, hi in ((0, len(nodes)), (37, 901)):
            part = nodes[lo:hi]
            state.write(NODE_ROWS_KEY, NodeRows(arrays, slice(lo, hi), part))
            for pl in fwk.filter_plugins:
                if pl.name not in ("NodeAffinity", "TaintToleration"):
                    continue
                got = pl.filter_nodes(state, pod, part)
                want = [pl.filter(state, pod, ni) for ni in part]
                assert [_view(s) for s in got] == [_view(s) for s in want], (pod.name, pl.name)
                checked += sum(1 for s in want if s is not None)
    assert checked > 1000
