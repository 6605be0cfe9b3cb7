"""A run's own checkpoints (taken during a Play or a Step, and the one a rebuild from the log
writes over stale ones) go into their rows in pieces, never bound whole to a statement.

At 5,000 nodes x 150,000 pods a checkpoint is ~100-120 MB; bound to the ORM's INSERT, SQLite
copied it (~230 MB more at that moment, on top of the pickler's memo and buffer): the worker's
peak while a user played the envelope. What is checked here: the bytes stored are the
checkpoint's own, a checkpoint stored during a play restores to an engine that goes on exactly
as the play did, a second store at the same step keeps the first row (no error, as the ORM's
`ignore_conflicts` did), and on SQLite no statement carries the checkpoint.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection

from playground.infra import blob_write
from playground.models import Run, RunAction, RunCheckpoint
from playground.services.runs import engine as run_engine
from scheduler_core.simulation import CHECKPOINT_VERSION, Simulation
from tests.web.services.runs.test_prepare_memory import _largest_parameter
from tests.web.services.runs.test_runs_checkpoint_version import _with_version
from tests.web.services.runs.test_runs_services import act, inline_worker, start  # noqa: F401  (fixture)

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def _recording_checkpoints(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every checkpoint the engine takes from now on, as `Simulation.checkpoint` returned it."""
    taken: list[bytes] = []
    real = Simulation.checkpoint

    def checkpoint(sim: Simulation) -> bytes:
        blob = real(sim)
        taken.append(blob)
        return blob

    monkeypatch.setattr(Simulation, "checkpoint", checkpoint)
    return taken


def _json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def test_a_checkpoint_stored_during_a_play_is_written_in_pieces_and_goes_on_as_the_play_did(
    inline_worker: list, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    from playground.services.runs import worker

    monkeypatch.setattr(run_engine, "CHECKPOINT_EVERY", 2)
    monkeypatch.setattr(run_engine, "PLAY_DEFER", 1)  # several taken during the play, one at its end
    monkeypatch.setattr(worker, "BATCH_UNITS", 1)  # a commit after every step: checkpoints fall due during the play
    monkeypatch.setattr(blob_write, "CHUNK", 1000)  # several pieces per checkpoint, the last one short
    run = start("resource-fit")
    taken = _recording_checkpoints(monkeypatch)
    with _largest_parameter() as largest:
        act(run, RunAction.KIND_PLAY)
    assert run.status == Run.STATUS_SETTLED
    stored = {step: bytes(blob) for step, blob in run.checkpoints.filter(step__gt=0).values_list("step", "blob")}
    assert len(stored) >= 2 and len(taken) == len(stored)
    assert sorted(stored.values()) == sorted(taken)  # the very bytes the engine gave
    if connection.vendor == "sqlite":
        assert 0 < largest[0] < min(len(blob) for blob in taken)  # no statement carried a checkpoint

    # Each restores to an engine that goes on as the play did: the stored units after it give
    # the stored results, seqs and events.
    for step, blob in stored.items():
        sim = Simulation.restore(blob)
        for frame in run.frames.filter(step__gt=step).order_by("step"):
            result = run_engine.apply_unit(sim, frame.unit)
            events, sim.sink.events = sim.sink.events, []
            assert (result, sim.sink.seq) == (frame.result, frame.last_seq)
            assert _json(events) == list(run.events.filter(step=frame.step).order_by("seq").values_list("data", flat=True))
        assert sim.sink.seq == run.last_seq


def test_a_second_store_at_the_same_step_keeps_the_first_row(inline_worker: list) -> None:  # noqa: F811
    run = start("resource-fit")
    act(run, RunAction.KIND_STEP)
    engine = run_engine.Engine.rebuild(run)
    assert engine.store_checkpoint(force=True)
    first = RunCheckpoint.objects.get(run=run, step=run.head_step)
    assert Simulation.restore(bytes(first.blob)).sink.seq == run.last_seq
    RunCheckpoint.objects.filter(pk=first.pk).update(blob=b"the first one")  # tell it apart from a new one
    assert engine.store_checkpoint(force=True)  # no error
    kept = RunCheckpoint.objects.get(run=run, step=run.head_step)
    assert (kept.pk, bytes(kept.blob)) == (first.pk, b"the first one")


def test_insert_with_blob_ignoring_conflicts_says_whether_it_wrote(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blob_write, "CHUNK", 999)
    run = start("resource-fit")
    data = bytes(range(256)) * 20 + b"tail"
    with _largest_parameter() as largest:
        assert blob_write.insert_with_blob(RunCheckpoint, ("run", "step"), (run.pk, 5), "blob", data,
                                           ignore_conflicts=True)
        assert not blob_write.insert_with_blob(RunCheckpoint, ("run", "step"), (run.pk, 5), "blob", b"other",
                                               ignore_conflicts=True)
    assert bytes(RunCheckpoint.objects.get(run=run, step=5).blob) == data
    if connection.vendor == "sqlite":
        assert largest[0] < len(data)
    assert blob_write.insert_with_blob(RunCheckpoint, ("run", "step"), (run.pk, 6), "blob", b"",
                                       ignore_conflicts=True)
    assert bytes(RunCheckpoint.objects.get(run=run, step=6).blob) == b""


def test_the_checkpoint_replacing_stale_ones_is_written_in_pieces(
    inline_worker: list, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    monkeypatch.setattr(run_engine, "CHECKPOINT_EVERY", 2)
    monkeypatch.setattr(blob_write, "CHUNK", 1000)
    run = start("noexecute-eviction")
    for _ in range(3):
        act(run, RunAction.KIND_STEP)
    for cp in run.checkpoints.all():
        RunCheckpoint.objects.filter(pk=cp.pk).update(blob=_with_version(bytes(cp.blob), CHECKPOINT_VERSION + 1))
    run = Run.objects.get(pk=run.pk)
    taken = _recording_checkpoints(monkeypatch)
    with _largest_parameter() as largest:
        run_engine.Engine.rebuild(run)
    [head] = run.checkpoints.all()
    assert (head.step, [bytes(head.blob)]) == (3, taken)
    if connection.vendor == "sqlite":
        assert largest[0] < len(taken[0])
    assert Simulation.restore(bytes(head.blob)).sink.seq == run.last_seq
