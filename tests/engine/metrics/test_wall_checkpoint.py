"""The playground's own plugin wall clock, attached around engine work as the web worker does
(`PluginWallClock.attached`): checkpoints taken with it attached pickle and restore, the engine
behaves the same with and without it, and nothing of it is left on the plugins afterwards."""

from __future__ import annotations

from pathlib import Path

from scheduler_core.loader import load_scenario_file
from scheduler_core.metrics.wall import POINT_METHODS, PluginWallClock
from scheduler_core.simulation import Simulation

CASES = Path(__file__).resolve().parents[3].parent / "shared" / "conformance" / "cases"
CASE = CASES / "v19-preemption-basic.yaml"


def _sim(case: Path = CASE) -> Simulation:
    return Simulation(load_scenario_file(str(case)), seed=3, record_events=True)


def _wrapped_methods(sim: Simulation) -> list[str]:
    methods = {m for pairs in POINT_METHODS.values() for m, _ in pairs}
    return [f"{pl.name}.{m}" for fwk in sim.scheduler.profiles.values() for pl in fwk.plugins_map.values()
            for m in methods if m in vars(pl)]


def test_a_checkpoint_taken_with_the_clock_attached_restores_and_plays_the_same() -> None:
    plain = _sim()
    plain.step(3600.0)
    plain.step(3600.0)

    timed = _sim()
    wall = PluginWallClock()
    with wall.attached(timed.scheduler.profiles):
        timed.step(3600.0)
        timed.step(3600.0)
        assert _wrapped_methods(timed)  # the wrappers are on the plugins now
        blob = timed.checkpoint()  # ...and the checkpoint pickles all the same
    assert wall.seconds[("NodeResourcesFit", "Filter", "default-scheduler")] > 0
    assert wall.calls[("NodeResourcesFit", "Filter", "default-scheduler")] >= 1
    assert _wrapped_methods(timed) == []  # detached: the plugins are as built
    # Nothing of the clock is in the checkpoint (its header, then the engine).
    assert b"PluginWallClock" not in blob and b"timed" not in blob and b"perf_counter" not in blob

    restored = Simulation.restore(blob)
    assert _wrapped_methods(restored) == []
    plain.sink.events, restored.sink.events = [], []
    assert plain.run(3600.0) == restored.run(3600.0)
    assert restored.result(True) == plain.result(True)


def test_attached_clocks_count_only_their_own_block() -> None:
    sim = _sim(CASES / "v01-fit-cpu-memory.yaml")  # at least three scheduling cycles
    first = PluginWallClock()
    with first.attached(sim.scheduler.profiles):
        sim.step(3600.0)
    key = ("NodeResourcesFit", "Filter", "default-scheduler")
    assert first.calls[key] >= 1
    counted = dict(first.calls)
    assert sim.step(3600.0) == "cycle"  # plugins run, with no clock attached
    assert first.calls == counted
    rows1 = first.take_rows()  # as the worker records a unit: the clock starts again from zero
    assert first.calls == {} and first.seconds == {}
    with first.attached(sim.scheduler.profiles):  # the same wrappers, attached again
        sim.step(3600.0)
    rows2 = first.take_rows()
    assert rows2 and _wrapped_methods(sim) == []
    total = PluginWallClock()
    total.add_rows(rows1)
    total.add_rows(rows2)
    by_key = {tuple(r[:3]): r for r in rows1}
    for r in rows2:
        k = tuple(r[:3])
        assert total.calls[k] == r[4] + (by_key[k][4] if k in by_key else 0)
