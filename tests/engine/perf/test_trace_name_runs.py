"""A cycle's scored nodes and ties reach `trace` as runs of the node list's name table.

At 65,000 nodes a cycle scores ~3,250 nodes and names most of them again as ties; quoting
those names one by one was most of what `trace` added to `simulate`. The filter record knows
where the feasible nodes sit in the node list (runs between the nodes a plugin rejected), so
the scored nodes and the ties are NameRuns whose JSON text is copied from the table's. These
tests hold the pieces to what they replace (itertools.compress, the plain lists, json.dumps)
and a real run to using them.
"""

from __future__ import annotations

import json
import pickle
import random
from itertools import compress

import pytest

from scheduler_core.events.compact import feasible_nodes
from scheduler_core.events.jsonl import EventLineEncoder
from scheduler_core.loader import load_scenario_file
from scheduler_core.simulation import Simulation
from scheduler_core.util.name_table import MIN_RUN_LENGTH, NamePick, NameRun, NameTable, few_runs
from scheduler_core.util.small_ints import SmallInts, int_list_json


def _dumps(value: object) -> str:
    return json.dumps(value, sort_keys=True, default=str, separators=(",", ":"))


@pytest.mark.parametrize("seed", range(3))
def test_select_is_compress_and_its_json_is_json_dumps(seed: int) -> None:
    """Over wrapped runs of a table and selections of selections, with dense and scattered flags."""
    rng = random.Random(seed)
    names = [f"node-{i:03d}" for i in range(120)]
    table = NameTable(object(), names)
    kept_as_run = plain = 0
    for _ in range(400):
        start, count = rng.randrange(120), rng.randrange(1, 121)
        run = table.run([(start, min(120, start + count)), (0, max(0, start + count - 120))])
        for _ in range(2):
            density = rng.choice((0.05, 0.5, 0.97, 1.0))
            blocky = rng.random() < 0.5  # long runs of set flags, or independent ones
            flags, bit = bytearray(), rng.random() < density
            for _ in run:
                if not blocky or rng.random() < 0.05:
                    bit = rng.random() < density
                flags.append(bit)
            picked = run.select(bytes(flags))
            assert picked == list(compress(run, flags))
            assert _dumps(picked) == json.dumps(list(picked), separators=(",", ":"))
            if isinstance(picked, NameRun):
                kept_as_run += 1
                assert picked.json() == _dumps(list(picked))
                run = picked
            else:
                assert isinstance(picked, NamePick) and picked.json() == _dumps(list(picked))
                plain += 1
                break
    assert kept_as_run > 100 and plain > 40  # at most MAX_SEGMENTS runs: kept as runs


def test_a_pick_of_names_with_a_comma_in_one_is_encoded_as_usual() -> None:
    names = [f"n{i}" for i in range(40)] + ["odd,name"] + [f"m{i}" for i in range(40)]
    run = NameTable(object(), names).run([(0, len(names))])
    picked = run.select(bytes(i % 2 for i in range(len(names))))  # scattered: a NamePick
    assert isinstance(picked, NamePick) and picked.json() is None
    assert EventLineEncoder().encode({"ties": picked}) == _dumps({"ties": list(picked)})


def test_few_runs_counts_runs_of_set_bytes() -> None:
    size = 4 * MIN_RUN_LENGTH
    assert few_runs(b"\x01" * size, size)
    assert few_runs(b"\x00" * size, size)
    four = (b"\x01" * (MIN_RUN_LENGTH - 1) + b"\x00") * 4  # 4 runs in 4 x MIN_RUN_LENGTH
    assert few_runs(four, size) and not few_runs(four + b"\x01", size)
    assert not few_runs(b"\x01\x00" * (size // 2), size)


def test_a_name_run_pickles_as_the_plain_list_it_is() -> None:
    """A checkpoint holding one (e.g. in a waiting pod's cycle state) does not carry the table."""
    table = NameTable(object(), [f"n{i}" for i in range(50)])
    run = table.run([(40, 50), (0, 5)])
    back = pickle.loads(pickle.dumps(run))
    assert type(back) is list and back == list(run)


def _uniform_cluster(nodes: int, bound: int, pending: int) -> str:
    """Identical nodes, a few tainted (rejected by TaintToleration, so the feasible nodes come in
    runs between them), pods bound to the first nodes (so scores differ and the ties are a subset)."""
    docs = []
    for i in range(nodes):
        taint = "\nspec: {taints: [{key: dedicated, value: x, effect: NoSchedule}]}" if i % 23 == 5 else ""
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i:04d}}}{taint}\n"
                    "status: {allocatable: {cpu: '8', memory: 16Gi, pods: '110'}}\n")
    for j in range(bound + pending):
        where = f"nodeName: n{j:04d}, " if j < bound else ""
        docs.append(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{j:04d}, namespace: default}}\n"
                    f"spec: {{{where}containers: [{{name: c, resources: {{requests: {{cpu: 500m, memory: 1Gi}}}}}}]}}\n")
    return "---\n".join(docs)


def test_scored_nodes_and_ties_of_a_run_are_name_runs_and_encode_as_json_dumps(tmp_path) -> None:
    """A real run over 400 nodes: every cycle's scored nodes (the walk's feasible nodes) are a
    NameRun, ties are one when they form few runs (else a NamePick of the scored nodes), and the
    trace encoder writes them exactly as json.dumps does without quoting any name one by one."""
    path = tmp_path / "c.yaml"
    path.write_text(_uniform_cluster(400, 60, 40))
    sim = Simulation(load_scenario_file(str(path)), seed=0, record_events=True)
    sim.run(3600)
    events = sim.sink.events
    walks = {e["cycle"]: e for e in events if e["type"] == "filter_verdicts" and not e["nominated_only"]}
    scores = [e for e in events if e["type"] == "scores"]
    selected = [e for e in events if e["type"] == "selected" and e["score"] is not None]
    assert len(scores) == len(selected) == 40
    for event in scores:
        assert list(event["nodes"]) == feasible_nodes(walks[event["cycle"]])
        assert isinstance(event["nodes"], NameRun) and len(event["nodes"]) >= MIN_RUN_LENGTH
    assert sum(isinstance(e["ties"], NameRun) for e in selected) >= 20
    assert all(isinstance(e["ties"], (NameRun, NamePick)) or len(e["ties"]) < MIN_RUN_LENGTH for e in selected)
    encoder = EventLineEncoder()
    for event in events:
        if event["type"] in ("scores", "selected"):
            assert encoder.encode(event) == _dumps(event)
    assert not encoder._quoted  # no name was quoted one by one


def test_small_ints_write_json_dumps_or_leave_it_to_the_encoder() -> None:
    """Row indexes: single digits in C-level passes; anything else falls back to json's encoder."""
    for values in ([], [0], [3, 1, 4, 1, 5, 9, 2, 6], [0] * 40 + [9] * 40):
        assert SmallInts(values).json() == json.dumps(values, separators=(",", ":"))
    for values in ([10], [1, 300], [-1], [1.5], [None]):
        assert SmallInts(values).json() is None
        event = {"outcome": SmallInts(values * 40), "type": "filter_verdicts"}
        assert EventLineEncoder().encode(event) == _dumps({"outcome": values * 40, "type": "filter_verdicts"})
    assert type(pickle.loads(pickle.dumps(SmallInts([1, 2])))) is list


def test_score_columns_of_small_ints_write_json_dumps_and_others_fall_back() -> None:
    """A scores event's columns: ints in 0..255 through int_list_json, anything else (a bool, a
    float, a null cell of an extender's column, a big raw score) through json's encoder."""
    rng = random.Random(5)
    for _ in range(500):
        values = [rng.randrange(0, 256) for _ in range(rng.randrange(0, 60))]
        assert int_list_json(values) == json.dumps(values, separators=(",", ":"))
    for odd in ([True] + [1] * 40, [1.0] * 40, [None] + [3] * 40, [256] * 40, [-1] * 40):
        assert int_list_json(odd) is None
    event = {"type": "scores", "nodes": [f"n{i}" for i in range(40)], "plugins": ["A", "B", "C"],
             "raw": {"A": list(range(40)), "B": [True] * 40, "C": 7},
             "normalized": {"A": [100 - i for i in range(40)], "C": [None, *range(39)]},
             "weighted": {"X": [5000] * 40}, "weights": {"A": 1, "B": 2, "C": 3}}
    assert EventLineEncoder().encode(event) == _dumps(event)
