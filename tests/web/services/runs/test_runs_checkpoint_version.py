"""Checkpoints carry the engine's CHECKPOINT_VERSION: a run whose checkpoints another layout of
the engine wrote is rebuilt from its log (the scenario and every stored unit), reaches the same
state, and gets a checkpoint of its own at its head (playground/services/runs/engine.py)."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from playground.models import Run, RunAction, RunCheckpoint
from playground.services.runs import engine as run_engine
from scheduler_core.simulation import CHECKPOINT_VERSION, CheckpointVersionError, Simulation
from tests.web.services.runs.test_runs_services import act, inline_worker, start  # noqa: F401  (fixture)

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def _with_version(blob: bytes, version: Any) -> bytes:
    """The same checkpoint, labelled as written by engine layout `version` (None: unlabelled)."""
    outer = pickle.loads(blob)
    if version is None:
        outer.pop("version")
    else:
        outer["version"] = version
    return pickle.dumps(outer)


def _state(engine: Any) -> tuple:
    sim = engine.sim
    return sim.sink.seq, sim.clock.now(), sim.cycles, sim.result(False), sim.view(), engine.view


def test_a_checkpoint_says_its_version_and_another_is_refused() -> None:
    sim = run_engine.load_simulation(start("noexecute-eviction").scenario_yaml, 0)
    blob = sim.checkpoint()
    assert Simulation.checkpoint_version(blob) == CHECKPOINT_VERSION
    assert Simulation.restore(blob).sink.seq == sim.sink.seq
    for other in (CHECKPOINT_VERSION + 1, None):
        with pytest.raises(CheckpointVersionError, match="rebuild the run from its log"):
            Simulation.restore(_with_version(blob, other))


@pytest.mark.parametrize("other", [CHECKPOINT_VERSION + 1, None])
def test_a_run_with_checkpoints_of_another_version_is_rebuilt_from_its_log(
    inline_worker: list, monkeypatch: pytest.MonkeyPatch, other: Any  # noqa: F811
) -> None:
    monkeypatch.setattr(run_engine, "CHECKPOINT_EVERY", 2)
    run = start("noexecute-eviction")
    for _ in range(5):
        assert act(run, RunAction.KIND_STEP).state == RunAction.STATE_DONE
    assert list(run.checkpoints.values_list("step", flat=True)) == [0, 2, 4]
    expected = _state(run_engine.Engine.rebuild(run))  # from checkpoint 4 + frame 5

    for cp in run.checkpoints.all():
        RunCheckpoint.objects.filter(pk=cp.pk).update(blob=_with_version(bytes(cp.blob), other))
    run = Run.objects.get(pk=run.pk)
    rebuilt = run_engine.Engine.rebuild(run)  # the scenario + frames 1..5
    assert _state(rebuilt) == expected
    # The stale checkpoints went; the engine's own at the head replaced them and restores.
    assert list(run.checkpoints.values_list("step", flat=True)) == [5]
    head = run.checkpoints.get()
    assert Simulation.checkpoint_version(bytes(head.blob)) == CHECKPOINT_VERSION
    assert _state(run_engine.Engine.rebuild(run)) == expected
    # The run goes on from there as it would have.
    assert act(run, RunAction.KIND_STEP).state == RunAction.STATE_DONE
