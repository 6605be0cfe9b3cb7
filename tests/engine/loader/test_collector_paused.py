"""Loading a scenario and restoring a checkpoint pause the cyclic garbage collector (they make
millions of long-lived objects at once) and leave it as they found it; a restore first collects
the garbage already waiting (a dropped engine), so the two never sit in memory together."""

from __future__ import annotations

import gc

import pytest
from helpers import NODE, load, pod

from scheduler_core.loader import load as load_module
from scheduler_core.simulation import Simulation
from scheduler_core.util.collector import collector_paused


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_left_as_it_was(enabled: bool) -> None:
    (gc.enable if enabled else gc.disable)()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert gc.isenabled() is enabled
        with pytest.raises(RuntimeError), collector_paused():
            raise RuntimeError("a bad checkpoint")
        assert gc.isenabled() is enabled
    finally:
        gc.enable()


def test_loading_and_restoring_run_with_the_collector_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    paused: list[str] = []
    real_start, real_restore = Simulation._start, Simulation._restore

    def start(self: Simulation) -> None:
        paused.append(f"start:{gc.isenabled()}")
        real_start(self)

    def restore(blob: bytes) -> Simulation:
        paused.append(f"restore:{gc.isenabled()}")
        return real_restore(blob)

    real_decode = load_module.decode_yaml

    def decode(*args: object) -> object:
        paused.append(f"load:{gc.isenabled()}")
        return real_decode(*args)

    monkeypatch.setattr(load_module, "decode_yaml", decode)
    monkeypatch.setattr(Simulation, "_start", start)
    monkeypatch.setattr(Simulation, "_restore", staticmethod(restore))
    sim = Simulation(load(NODE, pod()), seed=0)
    sim.run(60)
    copy = Simulation.restore(sim.checkpoint())
    assert copy.result(True) == sim.result(True)
    assert paused == ["load:False", "start:True", "restore:False"] and gc.isenabled()


@pytest.mark.parametrize("big", [True, False], ids=["big", "small"])
def test_a_big_restore_collects_the_engine_dropped_before_it(monkeypatch: pytest.MonkeyPatch, big: bool) -> None:
    """Before a big checkpoint's restore a full collection frees the engine just dropped (its
    memory back before the new one is built); before a small one it is left to the collector
    (a full collection walks every engine a worker keeps: more than a small restore costs)."""
    import weakref

    import scheduler_core.simulation as simulation

    sim = Simulation(load(NODE, pod()), seed=0)
    blob = sim.checkpoint()
    assert len(blob) < simulation.RESTORE_COLLECT_BYTES
    if big:
        monkeypatch.setattr(simulation, "RESTORE_COLLECT_BYTES", len(blob))
    gone = weakref.ref(sim.scheduler)
    del sim  # its scheduler is held in reference cycles: only the collector frees it
    gc.disable()
    try:
        assert gone() is not None
        Simulation.restore(blob)
        assert (gone() is None) is big and not gc.isenabled()
    finally:
        gc.enable()


def test_a_big_start_runs_with_the_collector_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    """From START_PAUSE_OBJECTS nodes + pods the start (the store, the cache, the queue filled
    with every object) runs with the collector paused: its full passes walked the whole loaded
    cluster again and again. No collection runs during it, however low the thresholds, and the
    collector is on again after; a small start leaves the collector alone (the test above)."""
    import scheduler_core.simulation as simulation

    scenario = load(NODE, pod(name="a"), pod(name="b"))
    monkeypatch.setattr(simulation, "START_PAUSE_OBJECTS", 3)
    collections: list[str] = []
    real_start = Simulation._start

    def start(self: Simulation) -> None:
        collections.append("start")
        real_start(self)
        collections.append("end")

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and collections and collections[-1] == "start":
            collections.append("collected")

    monkeypatch.setattr(Simulation, "_start", start)
    thresholds = gc.get_threshold()
    gc.set_threshold(1, 1, 1)
    gc.callbacks.append(seen)
    try:
        sim = Simulation(scenario, seed=0)
    finally:
        gc.callbacks.remove(seen)
        gc.set_threshold(*thresholds)
    assert collections == ["start", "end"] and gc.isenabled()
    assert sim.run(60)
    assert [p["status"] for p in sim.result(True)["pods"]] == ["Bound", "Bound"]
