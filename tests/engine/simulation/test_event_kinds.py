"""One policy for what a sink wants: a sink declares the event kinds it keeps (`EventSink.kinds`),
`emit` drops the rest, and only payloads that cost work of their own are guarded, by
`wants(kind)` (scheduler_core/events/recorder.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scheduler_core import schedule_one
from scheduler_core.events.recorder import EventSink, NullRecorder
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

ROOT = Path(__file__).resolve().parents[3]

SCENARIO = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: '2', pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {capacity: {cpu: '2', pods: '110'}}
""" + "".join(f"""---
apiVersion: v1
kind: Pod
metadata: {{name: p{i}}}
spec:
  containers: [{{name: c, resources: {{requests: {{cpu: '1'}}}}}}]
""" for i in range(5))


def _run(**kw: object) -> Simulation:
    sim = Simulation(load_scenario_text(SCENARIO, source="kinds"), record_events=True, **kw)  # type: ignore[arg-type]
    sim.run()
    return sim


def test_a_sink_keeps_only_the_kinds_it_declares_and_the_run_is_the_same() -> None:
    everything = _run()
    bound_only = _run(event_kinds=frozenset({"bound", "settled"}))
    events = bound_only.sink.events
    assert {e["type"] for e in events} == {"bound", "settled"}
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))  # dropped kinds take no seq
    kept = [(e["type"], e.get("pod"), e.get("node")) for e in everything.sink.events
            if e["type"] in ("bound", "settled")]
    assert [(e["type"], e.get("pod"), e.get("node")) for e in events] == kept
    assert bound_only.result(True) == everything.result(True)


def test_a_costly_payload_is_not_built_for_a_sink_that_does_not_want_it(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []
    real = schedule_one.FilterRecord

    def counting(*args: object, **kw: object) -> object:
        built.append("filter")
        return real(*args, **kw)

    monkeypatch.setattr(schedule_one, "FilterRecord", counting)
    _run(event_kinds=frozenset({"bound"}))
    assert built == []
    _run()
    assert len(built) == 5  # one per scheduling cycle when the verdicts are wanted


def test_wants_follows_enabled_and_kinds() -> None:
    sink = EventSink(lambda: 0.0, enabled=True, kinds=frozenset({"bound"}))
    assert sink.wants("bound") and not sink.wants("scores")
    sink.enabled = False
    assert not sink.wants("bound")
    assert EventSink(lambda: 0.0).wants("scores")
    assert not NullRecorder().wants("bound")


def test_an_unknown_kind_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="unknown event types for a sink: bond"):
        EventSink(lambda: 0.0, kinds=frozenset({"bound", "bond"}))


def test_guards_stay_around_costly_payloads_only() -> None:
    """Issue 40: at most 11 guards in the engine, each asking the policy for one kind."""
    guard = re.compile(r"sink\.wants\(|\bif (?:not )?[\w.]*sink\.enabled\b")
    guards = [f"{path.relative_to(ROOT)}:{n}" for path in (ROOT / "scheduler_core").rglob("*.py")
              for n, line in enumerate(path.read_text().splitlines(), 1) if guard.search(line)]
    assert 0 < len(guards) <= 11, guards
