"""The trace's per-cycle records made from bytes the engine already holds, held to what they
replace (plain lists, json.dumps, node-by-node interning).

At 65,000 nodes a cycle's records name ~3,300 nodes three times and carry a few score columns
of ~3,250 ints; making them cost most of what `trace` added to `simulate`. So the filter record
keeps its row indexes as bytes, the score columns of in-tree plugins are made from the bytes
the framework packs (score_record.py), the ties are flagged from the totals' array, a scattered
pick of names is cut from its source's text by NumPy, and the writer joins the long lists'
texts once instead of replacing placeholders in the whole line. The output is the same text.
"""

from __future__ import annotations

import io
import json
import pickle
import random
from itertools import compress

import numpy as np
import pytest
from test_trace_name_runs import _uniform_cluster

from scheduler_core.events.jsonl import EventLineEncoder
from scheduler_core.framework.runtime import score_record
from scheduler_core.framework.runtime.filter_record import FeasibleNames, FilterRecord
from scheduler_core.framework.runtime.score_list import ScoreList
from scheduler_core.framework.runtime.totals import VectorTotals, weighted_totals
from scheduler_core.framework.status import Code, Status
from scheduler_core.loader import load_scenario_file
from scheduler_core.simulation import Simulation
from scheduler_core.util import name_table
from scheduler_core.util.name_table import NamePick, NameRun, NameTable
from scheduler_core.util.small_ints import IntColumn, SmallInts, int_texts


def _dumps(value: object) -> str:
    return json.dumps(value, sort_keys=True, default=str, separators=(",", ":"))


# ---- score columns -------------------------------------------------------------------------

def _old_columns(nodes: list[str], per_plugin: list[tuple[str, int, list[int]]],
                 raw: list[list[int]]) -> dict:
    """The columns as the framework made them before: copies of the raw lists, compacted."""
    def compact(values: list[int]) -> object:
        return values[0] if values and values.count(values[0]) == len(values) else values
    raw_cols, normalized = {}, {}
    for (name, _, lst), before in zip(per_plugin, raw, strict=True):
        raw_cols[name] = compact(before)
        if lst != before:
            normalized[name] = compact(lst)
    return {"nodes": nodes, "plugins": [p for p, _, _ in per_plugin], "raw": raw_cols,
            "normalized": normalized, "weighted": {}, "extenders": []}


class _Node:
    def __init__(self, name: str) -> None:
        self.name = name


def _random_list(rng: random.Random, n: int) -> list[int]:
    kind = rng.choice(("uniform", "small", "wide", "one-off"))
    if kind == "uniform":
        return [rng.choice((0, 7, 100, 300))] * n
    if kind == "small":
        return [rng.randrange(0, 101) for _ in range(n)]
    if kind == "wide":
        return [rng.randrange(0, 5000) for _ in range(n)]
    return [5] * (n - 1) + [6] if n else []


@pytest.mark.parametrize("seed", range(4))
def test_score_columns_are_the_old_columns_and_write_json_dumps(seed: int) -> None:
    """Random raw lists (uniform, 0..100, past 255, all alike but one), Normalize changing them
    or not, trusted (in-tree) or not: the same columns, and the same JSON text."""
    rng = random.Random(seed)
    encoder = EventLineEncoder()
    for _ in range(200):
        n = rng.choice((0, 1, 40, 300))
        per_plugin, raw_old, raw_new, summaries, trusted = [], [], [], [], []
        for k in range(rng.randrange(1, 6)):
            values = _random_list(rng, n)
            normalizes = rng.random() < 0.6
            ints = rng.random() < 0.8
            before = list(values)
            kept = score_record.before_normalize(values, ints) if normalizes else None
            if normalizes:  # in place, as Normalize does: sometimes to the same scores
                how = rng.choice(("same", "reverse", "flat"))
                if how == "reverse":
                    values[:] = [100 - min(v, 100) for v in values]
                elif how == "flat":
                    values[:] = [100] * n
            per_plugin.append((f"P{k}", 1, values))
            raw_old.append(before)
            raw_new.append(kept)
            summaries.append(ScoreList(values))
            trusted.append(ints)
        names = [f"n{i}" for i in range(n)]
        got = score_record.score_columns([_Node(x) for x in names], None, per_plugin, raw_new, summaries, trusted)
        want = _old_columns(names, per_plugin, raw_old)
        assert json.loads(json.dumps(got)) == json.loads(json.dumps(want))
        event = {"type": "scores", **got}
        assert encoder.encode(event) == _dumps({"type": "scores", **want})


def test_in_tree_columns_carry_their_bytes_and_others_are_plain_lists() -> None:
    """An in-tree plugin's varied column is an IntColumn with the packed scores (its text made
    from them); an out-of-tree plugin's is a plain list, left to json's encoder."""
    values = [3, 1, 4, 1, 5, 9, 2, 6] * 5
    summary = ScoreList(values)
    cols = score_record.score_columns([_Node(f"n{i}") for i in range(40)], None, [("A", 1, values), ("B", 1, values)],
                                      [None, None], [summary, summary], [True, False])
    a, b = cols["raw"]["A"], cols["raw"]["B"]
    assert isinstance(a, IntColumn) and a.packed == bytes(values) and a.json() == json.dumps(values).replace(" ", "")
    assert type(b) is list and b == values and b is not values


def test_a_plugin_is_trusted_when_it_is_in_tree() -> None:
    from scheduler_core.framework.plugins.tainttoleration.taint_toleration import TaintToleration

    assert score_record.ints_trusted(TaintToleration.__new__(TaintToleration))
    assert not score_record.ints_trusted(_Node("x"))


def test_int_texts_is_json_dumps_or_none() -> None:
    rng = random.Random(3)
    for _ in range(200):
        values = [rng.randrange(0, 70000) for _ in range(rng.randrange(0, 50))]
        assert int_texts(values) == json.dumps(values, separators=(",", ":"))
    for odd in ([-1, 2], [2, 1 << 21], [1.5, 2], ["1"], [None]):
        assert int_texts(odd) is None
    assert IntColumn([300, 301]).json() == "[300,301]"


# ---- the filter record --------------------------------------------------------------------

def _statuses(rng: random.Random, n: int, pool: list[Status]) -> list[Status | None]:
    density = rng.choice((0.0, 0.02, 0.3, 0.9, 1.0))
    return [rng.choice(pool) if rng.random() < density else None for _ in range(n)]


@pytest.mark.parametrize("seed", range(4))
def test_add_chunk_interns_the_rows_add_status_does(seed: int) -> None:
    """Chunks passed almost everywhere (only the marked nodes visited), rejected almost
    everywhere, a Success-coded status, a rejection first: the rows and indexes of adding the
    nodes one by one; past 256 distinct outcomes the indexes go on as a list."""
    rng = random.Random(seed)
    plugins = ["A", "B", "C"]
    for _ in range(60):
        pool = [Status(Code.UNSCHEDULABLE, f"r{i}", plugin=rng.choice(plugins)) for i in range(rng.choice((1, 3, 400)))]
        pool.append(Status(Code.SUCCESS, plugin="A"))
        fast, slow = FilterRecord(plugins, frozenset({"C"})), FilterRecord(plugins, frozenset({"C"}))
        for _ in range(rng.randrange(1, 4)):
            n = rng.choice((1, 50, 400))
            sts = _statuses(rng, n, pool)
            nodes = [_Node(f"n{i}") for i in range(n)]
            fast.add_chunk(nodes, sts)
            for ni, st in zip(nodes, sts, strict=True):
                slow.add_status(ni.name, st)
        if rng.random() < 0.5:
            fast.add_cancelled("x")
            slow.add_cancelled("x")
        assert fast.rows == slow.rows
        assert list(fast.outcome) == list(slow.outcome)
        assert json.loads(fast.outcome.json() or json.dumps(list(fast.outcome))) == list(slow.outcome)


def test_the_outcome_carries_its_bytes() -> None:
    """The event's `outcome` is made from the bytes the record keeps (no list converted back)."""
    record = FilterRecord(["A"], frozenset())
    record.add_passed([_Node("a"), _Node("b")])
    record.add_status("c", Status(Code.UNSCHEDULABLE, "no", plugin="A"))
    out = record.outcome
    assert isinstance(out, SmallInts) and out.packed == b"\x00\x00\x01" and out.json() == "[0,0,1]"


def test_feasible_names_name_only_the_walks_own_list_and_are_not_checkpointed() -> None:
    table = NameTable(object(), ["a", "b", "c"])
    nodes = [_Node("a"), _Node("b")]
    found = FeasibleNames(nodes, table.run([(0, 2)]))
    assert found.names_of(nodes) == ["a", "b"]
    assert found.names_of(list(nodes)) is None  # another list: maybe not the same nodes
    back = pickle.loads(pickle.dumps(found))
    assert back.nodes is None and back.names is None


# ---- ties and picks ------------------------------------------------------------------------

def test_vector_totals_keep_their_array_when_reported_and_pickle_as_a_list() -> None:
    a, b = ScoreList([1, 2, 3, 2] * 20), ScoreList([5, 5, 0, 5] * 20)
    reported = weighted_totals([(1, a), (2, b)], 80, vector=True, relative=False)
    assert isinstance(reported, VectorTotals) and reported.array.tolist() == list(reported)
    assert not isinstance(weighted_totals([(1, a), (2, b)], 80, vector=True, relative=True), VectorTotals)
    assert type(pickle.loads(pickle.dumps(reported))) is list


@pytest.mark.parametrize("widths", ["same", "varied"])
def test_a_pick_cut_by_numpy_is_json_dumps(widths: str) -> None:
    """Names of one width (reshaped) or of many (repeated mask), a comma inside a name, a
    wrapped source run: the pick's text is json.dumps of the picked names."""
    rng = random.Random(1)
    count = name_table.MIN_VECTOR * 2
    if widths == "same":
        names = [f"node-{i:05d}" for i in range(count)]
    else:
        names = [f"n{i}" + "x" * rng.randrange(0, 9) + ("," if i == 7 else "") for i in range(count)]
    table = NameTable(object(), names)
    source = table.run([(count // 2, count), (0, count // 3)])
    for _ in range(20):
        flags = bytes(rng.random() < 0.5 for _ in source)
        picked = source.select(flags)
        if isinstance(picked, NamePick):
            assert picked.json() == json.dumps(list(compress(source, flags)), separators=(",", ":"))
    widths_of = table.widths(np, source.segments)
    assert isinstance(widths_of, int) == (widths == "same")


def test_a_run_records_ties_from_the_array_and_scores_from_the_walks_names(tmp_path, monkeypatch) -> None:
    """A real run over enough nodes for the vector paths: every scores event's nodes are the
    walk's run (no name read off a node), and every line is json.dumps of its event."""
    path = tmp_path / "c.yaml"
    path.write_text(_uniform_cluster(400, 60, 40))
    sim = Simulation(load_scenario_file(str(path)), seed=0, record_events=True)
    read: list[int] = []
    monkeypatch.setattr(score_record, "_node_name", lambda ni: read.append(1) or ni.name)
    sim.run(3600)
    events = sim.sink.events
    scores = [e for e in events if e["type"] == "scores"]
    assert scores and all(isinstance(e["nodes"], NameRun) for e in scores)
    assert not read
    encoder = EventLineEncoder()
    for event in events:
        assert encoder.encode(event) == _dumps(event)


def test_the_writer_joins_each_long_list_once() -> None:
    """encode_parts: the short text cut at the marks, each long list's text a piece of its own."""
    encoder = EventLineEncoder()
    names = [f"n{i}" for i in range(40)]
    event = {"type": "selected", "ties": names, "nodes": names[::-1], "raw": {"A": list(range(40))}, "x": 1}
    parts = encoder.encode_parts(event)
    assert "".join(parts) == _dumps(event)
    assert json.dumps(names, separators=(",", ":")) in parts
    assert json.dumps(list(range(40)), separators=(",", ":")) in parts


def test_a_name_table_is_made_without_a_json_call_per_name(monkeypatch) -> None:
    calls: list[str] = []
    real = json.dumps
    monkeypatch.setattr(name_table.json, "dumps", lambda v, *a, **k: calls.append(v) or real(v, *a, **k))
    names = [f"node-{i}" for i in range(100)] + ["é\"q"]
    table = NameTable(object(), names)
    assert not calls
    assert table.text == ",".join(real(n) for n in names)
    assert [table.text[a:b] for a, b in zip(table.starts, table.ends, strict=True)] == [real(n) for n in names]


# ---- stand-ins for a writer that reads only the text ----------------------------------------

def test_a_sink_is_text_only_for_a_writer_that_says_so_and_nobody_else() -> None:
    from scheduler_core.events.jsonl import event_line_writer
    from scheduler_core.events.recorder import EventSink, NullRecorder

    out = io.StringIO()
    assert EventSink(lambda: 0.0, writer=event_line_writer(out)).text_only
    assert not EventSink(lambda: 0.0, writer=lambda ev: None).text_only  # it may read the lists
    assert not EventSink(lambda: 0.0).text_only  # buffered: the web reads them
    sink = EventSink(lambda: 0.0, writer=event_line_writer(out))
    sink.subscribe(lambda ev: None)
    assert not sink.text_only
    assert not NullRecorder().text_only


def test_a_text_only_writer_gets_the_keyword_dict_and_everyone_else_a_whole_event() -> None:
    """Only a text-only writer reads the event: emit hands it the keyword dict with seq, time and
    type added (no second dict a pod's ~14 small events); its line is the same. A buffered sink,
    a plain writer, a listener and a sink restored from a checkpoint get the event as before."""
    import pickle

    from scheduler_core.events.jsonl import event_line_writer
    from scheduler_core.events.recorder import EventSink

    out = io.StringIO()
    line_writer = event_line_writer(out)
    got: list[dict] = []

    def text_writer(event: dict) -> None:
        got.append(dict(event))
        line_writer(event)

    text_writer.text_only = True  # type: ignore[attr-defined]
    sink = EventSink(lambda: 2.5, writer=text_writer)
    sink.emit("bound", pod="default/p", node="n1")
    assert list(got[0]) == ["pod", "node", "seq", "time", "type"]  # the keyword dict itself
    assert out.getvalue() == '{"node":"n1","pod":"default/p","seq":1,"time":2.5,"type":"bound"}\n'
    heard: list[dict] = []
    sink.subscribe(heard.append)
    sink.emit("bound", pod="default/p", node="n2")
    assert list(heard[0]) == ["seq", "time", "type", "pod", "node"] == list(got[1])
    plain: list[dict] = []
    EventSink(lambda: 0.0, writer=plain.append).emit("bound", pod="default/p", node="n1")
    buffered = EventSink(lambda: 0.0)
    buffered.emit("bound", pod="default/p", node="n1")
    restored = pickle.loads(pickle.dumps(EventSink(float, writer=text_writer)))  # the writer is not kept
    restored.emit("bound", pod="default/p", node="n1")
    for event in (plain[0], buffered.events[0], restored.events[0]):
        assert list(event) == ["seq", "time", "type", "pod", "node"]


def test_a_text_only_run_writes_the_lines_of_the_events_a_buffered_run_records(tmp_path) -> None:
    """The same run twice: buffered (lists, as the web stores them) and through trace's writer
    (stand-ins: no list of names or ints made). Every line is json.dumps of the buffered event."""
    from scheduler_core.events.jsonl import event_line_writer
    from scheduler_core.util.json_list import JsonText

    path = tmp_path / "c.yaml"
    path.write_text(_uniform_cluster(400, 60, 40))
    buffered = Simulation(load_scenario_file(str(path)), seed=0, record_events=True)
    buffered.run(3600)
    out = io.StringIO()
    write = event_line_writer(out)
    stand_ins: list[str] = []

    def writer(event: dict) -> None:
        stand_ins.extend(k for k, v in event.items() if isinstance(v, JsonText))
        stand_ins.extend("column" for d in (event.get("raw"), event.get("normalized")) if isinstance(d, dict)
                         for v in d.values() if isinstance(v, JsonText))
        write(event)

    writer.text_only = True  # type: ignore[attr-defined]
    traced = Simulation(load_scenario_file(str(path)), seed=0, record_events=True, event_writer=writer)
    traced.run(3600)
    lines = out.getvalue().splitlines()
    assert lines == [_dumps(e) for e in buffered.sink.events]
    assert {"nodes", "outcome", "ties"} <= set(stand_ins)


def test_stand_ins_give_their_items_when_their_text_cannot_be_cut() -> None:
    """A pick whose source names hold a comma (no NumPy cut: a short source) and scores past
    the digits: the encoder falls back to the items, the same text."""
    from scheduler_core.util.small_ints import PackedInts

    names = [f"n{i}" for i in range(40)] + ["odd,name"] + [f"m{i}" for i in range(40)]
    span = NameTable(object(), names).span([(0, len(names))])
    picked = span.select(bytes(i % 2 for i in range(len(names))))
    assert picked.json() is None and picked.items() == names[1::2]
    event = {"type": "selected", "ties": picked, "outcome": PackedInts(bytes([1, 2, 250]))}
    assert EventLineEncoder().encode(event) == _dumps({"type": "selected", "ties": names[1::2], "outcome": [1, 2, 250]})
    assert pickle.loads(pickle.dumps(span)) == names


def test_array_json_is_json_dumps_of_the_ints_or_none() -> None:
    """Short and long ints (the table below 65,536, a vector pass per place above), zeros, an
    empty array; a negative int is left to the encoder."""
    from scheduler_core.util.small_ints import WideInts, array_json

    rng = random.Random(9)
    for _ in range(300):
        values = [rng.randrange(0, rng.choice((10, 300, 70000, 10**12))) for _ in range(rng.randrange(0, 60))]
        assert array_json(np.array(values, dtype=np.int64)) == json.dumps(values, separators=(",", ":"))
    assert array_json(np.array([3, -1])) is None
    wide = WideInts(np.array([300, 7, 65536]))
    assert len(wide) == 3 and wide.items() == [300, 7, 65536] and wide.json() == "[300,7,65536]"


def test_a_raw_column_past_255_is_an_array_for_a_text_only_writer() -> None:
    from scheduler_core.util.small_ints import WideInts

    values = [273 + i % 11 for i in range(score_record.MIN_ARRAY)]
    kept = score_record.before_normalize(values, True, text_only=True)
    assert isinstance(kept, WideInts) and kept.items() == values
    assert isinstance(score_record.before_normalize(values, True), IntColumn)  # lists for readers
    assert type(score_record.before_normalize(values, False, text_only=True)) is list  # out of tree


@pytest.mark.parametrize("with_numpy", [True, False])
def test_bytes_json_is_json_dumps_by_table_rows_or_by_translations(with_numpy: bool, monkeypatch) -> None:
    import sys

    from scheduler_core.util.small_ints import bytes_json

    if not with_numpy:
        monkeypatch.setitem(sys.modules, "numpy", None)  # as in a process that never loaded it
    rng = random.Random(4)
    for _ in range(200):
        values = [rng.randrange(0, 256) for _ in range(rng.randrange(0, 400))]
        assert bytes_json(bytes(values)) == json.dumps(values, separators=(",", ":"))


def _fragmented_cluster(nodes: int, every: int, pending: int) -> str:
    """Identical nodes, every `every`-th tainted (TaintToleration rejects it): the feasible
    nodes come in short runs between them, many per walk; pods bound round robin first, so
    scores differ and ties are scattered."""
    docs = []
    for i in range(nodes):
        taint = "\nspec: {taints: [{key: dedicated, value: x, effect: NoSchedule}]}" if i % every == 1 else ""
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i:04d}}}{taint}\n"
                    "status: {allocatable: {cpu: '8', memory: 16Gi, pods: '110'}}\n")
    for j in range(nodes // 3 + pending):
        where = f"nodeName: n{(j * 3) % nodes:04d}, " if j < nodes // 3 else ""
        docs.append(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{j:04d}, namespace: default}}\n"
                    f"spec: {{{where}containers: [{{name: c, resources: {{requests: {{cpu: 500m, memory: 1Gi}}}}}}]}}\n")
    return "---\n".join(docs)


@pytest.mark.parametrize("every", [5, 12])
def test_fragmented_feasible_nodes_are_picked_and_written_as_json_dumps(tmp_path, every: int) -> None:
    """1,200 nodes, one in `every` tainted: the walk's feasible nodes form dozens of short runs
    (more than MAX_SEGMENTS), so the scored nodes are a pick cut from the walk's text and the
    ties a pick of that pick. Buffered (lists) and text-only runs write the same lines."""
    from scheduler_core.events.jsonl import event_line_writer
    from scheduler_core.util.name_table import NameSpanPick

    path = tmp_path / "c.yaml"
    path.write_text(_fragmented_cluster(1200, every, 12))
    buffered = Simulation(load_scenario_file(str(path)), seed=0, record_events=True)
    buffered.run(3600)
    scores = [e for e in buffered.sink.events if e["type"] == "scores"]
    assert scores and all(isinstance(e["nodes"], NamePick) for e in scores)
    out = io.StringIO()
    write = event_line_writer(out)
    picks: list[str] = []

    def writer(event: dict) -> None:
        picks.extend(k for k, v in event.items() if isinstance(v, NameSpanPick))
        write(event)

    writer.text_only = True  # type: ignore[attr-defined]
    traced = Simulation(load_scenario_file(str(path)), seed=0, record_events=True, event_writer=writer)
    traced.run(3600)
    assert out.getvalue().splitlines() == [_dumps(e) for e in buffered.sink.events]
    assert "nodes" in picks and "ties" in picks


def test_a_pick_of_a_pick_keeps_the_source_and_composes_the_flags(monkeypatch) -> None:
    import sys

    from scheduler_core.util.name_table import NameSpanPick

    names = [f"node-{i:04d}" for i in range(600)]
    span = NameTable(object(), names).span([(0, 600)])
    first = bytes(i % 3 != 0 for i in range(600))
    pick = NameSpanPick(span, first)
    second = bytes(i % 2 for i in range(len(pick)))
    want = list(compress(list(compress(names, first)), second))
    assert pick.select(second).items() == want and pick.select(second).json() == json.dumps(want).replace(" ", "")
    monkeypatch.setitem(sys.modules, "numpy", None)
    assert pick.select(second).items() == want
