"""The compact filter_verdicts and scores events decode to what the framework says node by node.

The reference is the framework called directly: run_filter_plugins_verbose on each node (every
plugin's verdict, as the inspector shows it) and each Score plugin's score_nodes + Normalize.
Both walks that record (fastpath.pass_filters and schedule_one.walk_filters) are checked, on
randomised clusters with taints, cordons, full nodes and preferred affinities. And `trace`
streams: each event leaves the process as it is emitted, nothing is held.
"""

from __future__ import annotations

import io
import json

import pytest
from test_batched_paths import _cluster_yaml

from scheduler_core.__main__ import main as cli_main
from scheduler_core.events.compact import (
    feasible_nodes,
    filter_plugins,
    iter_verdicts,
    not_evaluated_nodes,
    num_not_evaluated,
    outcome_groups,
    prefilter_results,
    score_table,
    verdict_for,
    verdicts_by_node,
)
from scheduler_core.events.jsonl import EventLineEncoder
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.fit_error import Diagnosis
from scheduler_core.framework.runtime import fastpath
from scheduler_core.framework.runtime.filter_record import CANCELLED_PLUGIN, FilterRecord
from scheduler_core.framework.runtime.framework import NodeScore
from scheduler_core.framework.status import Code
from scheduler_core.loader import load_scenario_file
from scheduler_core.schedule_one import walk_filters
from scheduler_core.simulation import Simulation
from scheduler_core.util.name_table import NameRun, NameTable


def _sim(tmp_path, seed: int, record: bool = True) -> Simulation:
    path = tmp_path / "c.yaml"
    path.write_text(_cluster_yaml(seed, 40, 30, 12))
    return Simulation(load_scenario_file(str(path)), seed=0, record_events=record)


@pytest.mark.parametrize("seed", range(3))
def test_filter_verdicts_decode_to_each_plugins_verdict_on_each_node(tmp_path, seed):
    sim = _sim(tmp_path, seed)
    sched = sim.scheduler
    fwk = next(iter(sched.profiles.values()))
    sched.cache.update_snapshot(sched.snapshot)
    nodes = sched.snapshot.list()
    by_name = {ni.name: ni for ni in nodes}
    pending = [p for p in sched.cluster.pods.values() if not p.node_name]
    rejected_rows = cancelled = 0
    for pod in pending:
        state = CycleState()
        _, st, _ = fwk.run_pre_filter_plugins(state, pod)
        if st is not None and st.code != Code.SUCCESS:
            continue
        plugins = [pl.name for pl in fwk.filter_plugins]
        for start, to_find in [(0, len(nodes)), (7, 5), (len(nodes) - 1, 1), (13, 20), (30, 25)]:
            events = []
            for walk in ("fast", "plain"):
                record = FilterRecord(plugins, state.skip_filter_plugins)
                if walk == "fast":
                    feasible = fastpath.pass_filters(fwk, state, pod, Diagnosis(), nodes, start, to_find, record)
                else:
                    feasible = walk_filters(sched, fwk, state, pod, Diagnosis(), nodes, start, to_find,
                                            has_nominated=False, record=record)
                plain_fields = json.loads(json.dumps(record.fields(nodes, start)))
                table = NameTable(object(), [ni.name for ni in nodes])
                shared = record.fields(nodes, start, table)  # the names as runs of the whole list
                assert isinstance(shared["nodes"], NameRun)
                assert shared["nodes"].json() == json.dumps(plain_fields["nodes"], separators=(",", ":"))
                event = json.loads(json.dumps(shared))
                assert event == plain_fields
                events.append(event)
                assert feasible_nodes(event) == [ni.name for ni in feasible]
                evaluated = [name for name, _ in iter_verdicts(event)]
                assert evaluated == [nodes[(start + i) % len(nodes)].name for i in range(len(evaluated))]
                names = [ni.name for ni in nodes]
                rest = [names[(start + len(evaluated) + i) % len(names)] for i in range(len(names) - len(evaluated))]
                assert event["num_not_evaluated"] == len(rest) == num_not_evaluated(event)
                assert not_evaluated_nodes({**event, "start_index": start}, {"type": "node_list", "nodes": names}) == rest
                assert sorted(rest) == sorted(set(names) - set(evaluated))
                for name, row in iter_verdicts(event):
                    if CANCELLED_PLUGIN in row:
                        assert row == {CANCELLED_PLUGIN: {"code": "Cancelled",
                                                          "reasons": ["enough feasible nodes were found"]}}
                        assert name == evaluated[-1] and len(feasible) == to_find
                        cancelled += 1
                        continue
                    _, want = fwk.run_filter_plugins_verbose(state, pod, by_name[name])
                    assert row == want, (name, walk)
                    assert verdict_for(event, name, plugins[0]) == want[plugins[0]]
                    rejected_rows += any(v["code"] not in ("Success", "Skip") for v in row.values())
                groups = outcome_groups(event)
                assert sum(len(members) for _, members in groups) == len(evaluated)
                assert len(event["verdicts"]) == len(groups) <= len(evaluated)
            fast, plain = events
            assert verdicts_by_node(fast) == verdicts_by_node(plain)
            assert filter_plugins(fast) == filter_plugins(plain)
            assert feasible_nodes(fast) == feasible_nodes(plain)
    assert rejected_rows > 0 and cancelled > 0


@pytest.mark.parametrize("seed", range(3))
def test_score_columns_decode_to_each_plugins_raw_normalized_and_weighted_score(tmp_path, seed):
    sim = _sim(tmp_path, seed)
    sched = sim.scheduler
    fwk = next(iter(sched.profiles.values()))
    sched.cache.update_snapshot(sched.snapshot)
    nodes = sched.snapshot.list()
    checked = 0
    for pod in [p for p in sched.cluster.pods.values() if not p.node_name]:
        state = CycleState()
        _, st, _ = fwk.run_pre_filter_plugins(state, pod)
        if st is not None and st.code != Code.SUCCESS:
            continue
        feasible = fastpath.pass_filters(fwk, state, pod, Diagnosis(), nodes, 0, len(nodes))
        if len(feasible) < 2:
            continue
        assert fwk.run_pre_score_plugins(state, pod, feasible) is None
        full, st, columns = fwk.run_score_plugins(state, pod, feasible)
        assert st is None and columns is not None
        table = score_table(json.loads(json.dumps({**columns, "weights": dict(fwk.score_weights)})))
        used = [pl for pl in fwk.score_plugins if pl.name not in state.skip_score_plugins]
        assert table.plugins == [pl.name for pl in used]
        for pl in used:
            raw, st = pl.score_nodes(state, pod, feasible)
            assert st is None
            normalized = list(raw)
            ext = pl.score_extensions()
            if ext is not None:
                ns = [NodeScore(ni.name, sc) for ni, sc in zip(feasible, raw, strict=True)]
                assert ext.normalize_score(state, pod, ns) is None
                normalized = [x.score for x in ns]
            weight = fwk.score_weights[pl.name]
            for ni, r, z in zip(feasible, raw, normalized, strict=True):
                assert table.cell(pl.name, ni.name) == {"raw": r, "normalized": z, "weighted": z * weight}
        assert table.totals == {s.name: s.total_score for s in full}
        totals, _, fast_columns = fwk.run_score_plugins_totals(state, pod, feasible)
        assert totals == [s.total_score for s in full] and fast_columns == columns
        checked += 1
    assert checked > 0


def test_schema_1_events_read_the_same() -> None:
    """Runs stored before the compact form still render."""
    old_filter = {"type": "filter_verdicts", "nodes": ["a", "b"], "not_evaluated": ["c"], "feasible": ["a"],
                  "verdicts": {"a": {"P": {"code": "Success"}, "Q": {"code": "Success"}},
                               "b": {"P": {"code": "Unschedulable", "reasons": ["no"]}, "Q": {"code": "NotEvaluated"}}}}
    assert feasible_nodes(old_filter) == ["a"] and filter_plugins(old_filter) == ["P", "Q"]
    assert verdict_for(old_filter, "b", "P") == {"code": "Unschedulable", "reasons": ["no"]}
    assert [len(members) for _, members in outcome_groups(old_filter)] == [1, 1]
    old_scores = {"type": "scores", "weights": {"P": 2}, "totals": {"a": 4, "b": 2},
                  "plugins": {"P": {"a": {"raw": 2, "normalized": 2, "weighted": 4},
                                    "b": {"raw": 1, "normalized": 1, "weighted": 2}}}}
    table = score_table(old_scores)
    assert table.nodes == ["a", "b"] and table.cell("P", "b") == {"raw": 1, "normalized": 1, "weighted": 2}


def test_trace_writes_each_event_as_it_is_emitted(tmp_path, monkeypatch) -> None:
    """The CLI's writer gets events while the run is still going, and the sink keeps none."""
    path = tmp_path / "c.yaml"
    path.write_text(_cluster_yaml(1, 40, 30, 12))
    state = {"running": False, "lines_while_running": 0, "sim": None, "before": 0}
    real_run = Simulation.run

    def run(self: Simulation, max_time: float) -> bool:
        state["running"], state["sim"] = True, self
        state["before"] = out.getvalue().count("\n")
        try:
            return real_run(self, max_time)
        finally:
            state["running"] = False

    class Out(io.StringIO):
        def write(self, text: str) -> int:
            if state["running"]:
                state["lines_while_running"] += text.count("\n")
                assert not state["sim"].sink.events  # nothing buffered behind the writer
            return super().write(text)

    out = Out()
    monkeypatch.setattr(Simulation, "run", run)
    monkeypatch.setattr("sys.stdout", out)
    assert cli_main(["trace", str(path)]) == 0
    lines = out.getvalue().splitlines()
    types = [json.loads(line)["type"] for line in lines]
    assert "filter_verdicts" in types and "scores" in types and types[-1] == "settled"
    # every event after those of loading the scenario was written during the run
    assert state["lines_while_running"] == len(lines) - state["before"] > 0
    assert state["sim"].sink.events == []


def test_trace_lines_are_exactly_json_dumps_with_sorted_keys(tmp_path) -> None:
    """The encoder that joins long node-name lists from cached names writes what json.dumps does."""
    sim = _sim(tmp_path, 2)
    sim.run(3600)
    events = sim.sink.events
    encoder = EventLineEncoder()
    joined = 0
    for event in events:
        assert encoder.encode(event) == json.dumps(event, sort_keys=True, default=str, separators=(",", ":"))
        joined += any(isinstance(v := event.get(k), list) and len(v) >= 32 for k in ("nodes", "ties"))
    odd = {"type": "x", "nodes": ["n\u00e9-1", 'q"uote', None, 3] * 10, "ties": ["a"] * 40,
           "not_evaluated": [], "note": "nodes"}
    assert encoder.encode(odd) == json.dumps(odd, sort_keys=True, default=str, separators=(",", ":"))
    assert joined > 0


def test_trace_into_a_reader_that_stops_early_ends_quietly(tmp_path) -> None:
    """`trace FILE | head`: the reader goes away; the trace stops without a traceback."""
    import subprocess
    import sys

    path = tmp_path / "c.yaml"
    path.write_text(_cluster_yaml(1, 200, 150, 12))
    proc = subprocess.Popen([sys.executable, "-m", "scheduler_core", "trace", str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.read(200)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(60) == 0 and first.startswith(b"{") and b"Traceback" not in err, err[-500:]


def _zoned_cluster(nodes: int, pods: int) -> str:
    docs = []
    for i in range(nodes):
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i:03d}, labels: "
                    f"{{topology.kubernetes.io/zone: z{i * 3 // nodes}}}}}\nstatus: {{allocatable: {{cpu: '4', pods: '110'}}}}\n")
    for i in range(pods):
        docs.append(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i:03d}, namespace: default}}\n"
                    f"spec: {{containers: [{{name: c, resources: {{requests: {{cpu: 100m}}}}}}]}}\n")
    docs.append("apiVersion: playground.kube-scheduler.dev/v1\nkind: Timeline\nactions:\n"
                "- {at: 0.5, action: addNode, node: {apiVersion: v1, kind: Node, metadata: {name: late, "
                "labels: {topology.kubernetes.io/zone: z1}}, status: {allocatable: {cpu: '4', pods: '110'}}}}\n"
                "- {at: 1, action: addPod, pod: {apiVersion: v1, kind: Pod, metadata: {name: after, namespace: default}, "
                "spec: {containers: [{name: c}]}}}\n")
    return "---\n".join(docs)


def test_not_evaluated_nodes_follow_from_the_last_node_list(tmp_path) -> None:
    """A real run over more nodes than the walk needs (so some are never reached), in three zones
    (so the snapshot's list is not name order), with a node added midway: each cycle's
    not-evaluated nodes, read back from the stream alone, are the snapshot's nodes the walk did
    not reach, and the node list is written once per list, not once per cycle."""
    path = tmp_path / "c.yaml"
    path.write_text(_zoned_cluster(150, 12))
    sim = Simulation(load_scenario_file(str(path)), seed=0, record_events=True)
    truth: list[tuple[list[str], list[str]]] = []  # (snapshot list, its nodes not evaluated)

    def watch(event: dict) -> None:
        if event["type"] == "filter_verdicts":
            names = [ni.name for ni in sim.scheduler.snapshot.list()]
            truth.append((names, [n for n in names if n not in set(event["nodes"])]))

    sim.sink.subscribe(watch)
    sim.run(3600)
    last_list = None
    seen = []
    for event in json.loads("[" + ",".join(json.dumps(e) for e in sim.sink.events) + "]"):
        if event["type"] == "node_list":
            last_list = event
        elif event["type"] == "filter_verdicts":
            seen.append((last_list["nodes"], not_evaluated_nodes(event, last_list)))
    assert len(seen) == len(truth) == 13
    for (listed, derived), (names, rest) in zip(seen, truth, strict=True):
        assert listed == names and sorted(derived) == sorted(rest) and len(rest) > 0
    assert truth[0][0] != sorted(truth[0][0])  # zones interleave the list
    lists = [e for e in sim.sink.events if e["type"] == "node_list"]
    assert len(lists) == 2 and "late" in lists[1]["nodes"] and "late" not in lists[0]["nodes"]


def test_a_list_that_is_a_run_of_the_node_list_is_copied_from_its_text() -> None:
    names = [f"n{i}" for i in range(10)]
    table = NameTable(object(), names)
    for run in (names[2:7], names[8:] + names[:3], names, names[9:] + names[:9], ["n4"]):
        assert table.find_run(run) == json.dumps(run, separators=(",", ":"))
    for other in (["n2", "n4"], names[8:] + ["n1"], ["x"], [None, 3], [["n1"]], [], names + ["n0"]):
        assert table.find_run(other) is None


def test_prefilter_results_read_one_event_per_cycle_and_the_older_one_per_plugin(tmp_path) -> None:
    sim = _sim(tmp_path, 1)
    sim.run(3600)
    cycles = [e for e in sim.sink.events if e["type"] == "cycle_started"]
    prefilters = [e for e in sim.sink.events if e["type"] == "prefilter"]
    assert len(prefilters) == len(cycles) > 0  # one per cycle
    fwk = next(iter(sim.scheduler.profiles.values()))
    results = prefilter_results(prefilters[:1])
    assert [r["plugin"] for r in results] == [pl.name for pl in fwk.pre_filter_plugins]
    assert all(set(r) == {"plugin", "code", "reasons", "node_names"} for r in results)
    older = [{"type": "prefilter", "cycle": 1, "pod": "p", **r} for r in results]  # schema 2
    assert prefilter_results(older) == older and [r["plugin"] for r in prefilter_results(older)] == [
        r["plugin"] for r in results]
