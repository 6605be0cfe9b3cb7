"""A big restore leaves the engine it made in the collector's oldest generation (util/collector.py:
`settle_as_old`), so the young collections after it do not walk every restored object; it leaves
alone what the web's engine cache froze, and a small restore leaves the collector's generations
as they were."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

import scheduler_core.simulation as simulation
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

SCENARIO = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: '4', memory: 8Gi, pods: '110'}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: 500m}}}]
"""


def _generation(obj: object) -> int | None:
    for gen in (0, 1, 2):
        if any(o is obj for o in gc.get_objects(generation=gen)):
            return gen
    return None


@pytest.fixture
def nothing_frozen() -> Iterator[None]:
    """The test process may hold frozen objects (a web warm-up freezes them): thaw them for the
    test, and freeze again after if there were any."""
    frozen = gc.get_freeze_count()
    gc.unfreeze()
    gc.disable()  # no collection moves objects between generations during the test
    try:
        yield
    finally:
        gc.enable()
        if frozen:
            gc.freeze()


def _blob() -> bytes:
    sim = Simulation(load_scenario_text(SCENARIO, source="s.yaml"), seed=0)
    sim.step()
    return sim.checkpoint()


@pytest.mark.usefixtures("nothing_frozen")
def test_a_big_restore_settles_its_engine_as_old(monkeypatch: pytest.MonkeyPatch) -> None:
    blob = _blob()
    monkeypatch.setattr(simulation, "RESTORE_COLLECT_BYTES", len(blob))
    restored = Simulation.restore(blob)
    assert _generation(restored) == 2 and _generation(restored.scheduler.queue) == 2
    assert gc.get_freeze_count() == 0 and not gc.isenabled()  # nothing left frozen; the collector as found
    assert restored.run(60) and restored.result(True)["pods"][0]["status"] == "Bound"


@pytest.mark.usefixtures("nothing_frozen")
def test_a_small_restore_leaves_the_generations_alone() -> None:
    restored = Simulation.restore(_blob())
    assert _generation(restored) == 0


@pytest.mark.usefixtures("nothing_frozen")
def test_what_the_engine_cache_froze_stays_frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    blob = _blob()
    monkeypatch.setattr(simulation, "RESTORE_COLLECT_BYTES", len(blob))
    kept = Simulation.restore(blob)
    gc.freeze()  # as the web worker's engine cache does with the engines it keeps
    try:
        restored = Simulation.restore(blob)
        assert gc.get_freeze_count() > 0 and _generation(kept) is None  # still frozen
        assert _generation(restored) == 0  # left young: settling it would have thawed `kept`
    finally:
        gc.unfreeze()
