"""The worker's side of a run: `advance_run` executes the run's pending actions under its lease.

The task takes the run's lease (`lease.RunLease`: a Redis key renewed by a heartbeat thread, so
a dead worker is noticed within seconds), gets the engine at the run's last stored frame, then
executes every pending action in index order (Steps queued behind a Step in one batch:
`_queued_steps`). A redelivered or duplicate task finds its action done and does nothing; a task
that finds the lease taken retries shortly. Frames, events, checkpoints, the run's progress and
the action's state are written in one transaction, so a worker killed at any point leaves all of
a batch or none of it.

Fairness (docs/reliability.md): while other actions are coming in (any run's Step, Play or
cluster change in the last INTERACTIVE_WINDOW seconds), a play pauses after each batch as long
as the batch took, so it leaves half of its core to them. Between steps (every
YIELD_LOOK_SECONDS of work at most) a play looks at its queues: when a client's action waits
there, it commits, puts its action back to "pending", queues its own continuation behind them at
the lowest priority and frees the worker process, so another client's Step waits for about one
step of the play, not a slice of it. Another play's next slice is let in after PLAY_SLICE_SECONDS
(plays take turns in slices). With nobody waiting it plays on in the same process, with its
engine in memory.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.db import transaction
from django.utils import timezone

from playground.infra.lease import RunLease
from playground.infra.queues import CONTINUATION_PRIORITY, others_waiting
from playground.models import Run, RunAction
from playground.selectors.points import point_groups
from playground.services.quotas import Charger
from playground.services.runs import dispatch, fleet, news
from playground.services.runs import units as run_units
from playground.services.runs.cache import ENGINES, EngineCache
from playground.services.runs.engine import Engine
from playground.services.runs.errors import RunBusy
from playground.services.runs.units import LazyEngine, commit, engine_for, node_count, run_clock_for, settled_outcome

logger = logging.getLogger(__name__)

BATCH_SECONDS = 0.25  # a play commits (and notifies) at least this often...
BATCH_UNITS = 25  # ...or after this many units
PLAY_SLICE_SECONDS = float(os.environ.get("PLAYGROUND_PLAY_SLICE_SECONDS", "0.5"))  # then yield to another play
PLAY_SHARE = 0.5  # of its pace a play keeps while other clients' actions are coming in
MAX_PLAY_PAUSE = 0.5  # s a play pauses at most after one batch


STOPPED = "stopped: it ran past the worker's time limit; nothing of it was kept"
EXECUTING: dict[int, int] = {}  # run id -> the index of the action this process is executing now


def advance_run(
    run_id: int, *, cache: EngineCache | None = None, warm: bool = False, queues: list[str] | None = None,
    home: str | None = None, stopped: str = STOPPED,
) -> int:
    """Execute every pending action of the run, in index order. Returns how many it executed.
    Raises RunBusy when another worker holds the run (the task retries). `cache` holds the
    process's live engines (default: `ENGINES`); the engine stays there for the next action.
    `warm`: with nothing to execute, build the run's engine into the cache anyway (a run just
    started: its first Step then costs a step, not a 5,000-node checkpoint restore).
    `queues`: the queues this worker process serves, where a play looks for waiting work (None:
    not in a worker's task, e.g. a test executing actions in-process: a play never yields).
    `home`: this process's own queue; the run's next tasks are sent there (fleet.home_of).
    `stopped`: the result of an action its task's soft time limit stopped (tasks/limits.py: a
    SoftTimeLimitExceeded raised in the action): it fails with that line on its page, its
    engine is dropped (nothing of the action was committed), and this returns."""
    cache = ENGINES if cache is None else cache
    lease = RunLease(run_id)
    if not lease.acquire():
        lease.release()
        raise RunBusy(run_id)
    done = 0
    yielded = False
    charger = Charger(run_id)  # PLAYGROUND_NODE_STEPS_PER_HOUR: each step is paid for before it runs
    if home is not None:
        fleet.set_home(run_id, home)
    try:
        while True:
            # The first pending action, and the ones behind it that a Step may take into its batch
            # (`_queued_steps`), in one query.
            pending = list(
                RunAction.objects.filter(run_id=run_id, state__in=[RunAction.STATE_PENDING, RunAction.STATE_RUNNING])
                .order_by("index")[:BATCH_UNITS]
            )
            if not pending:
                if warm and done == 0:
                    run = Run.objects.defer("scenario_yaml").filter(pk=run_id).first()
                    if run is not None:
                        cache.get(run)
                return done
            # The scenario YAML (MBs at 5,000 nodes) is read only when an engine is rebuilt.
            run = Run.objects.defer("scenario_yaml").get(pk=run_id)
            action = pending[0]
            EXECUTING[run_id] = action.index
            try:
                engine, executed = _execute(run, action, LazyEngine(cache, run, lease), lease, queues, charger, pending[1:])
            except SoftTimeLimitExceeded:
                cache.drop(run_id)  # stopped mid-action: the engine is not the stored log's
                stop_overrun(run_id, stopped, index=action.index)  # the lease still held: nobody retries it first
                return done + 1
            finally:
                EXECUTING.pop(run_id, None)
            if engine is None:
                cache.drop(run_id)  # the engine may have changed without a frame: rebuild next time
            if action.kind == RunAction.KIND_PLAY and action.state == RunAction.STATE_PENDING:
                yielded = True  # a slice ended and others wait: continue behind them
                return done
            done += executed
    except BaseException:
        cache.drop(run_id)  # whatever it holds is not known to match the stored log
        raise
    finally:
        lease.release()
        if yielded:
            dispatch.schedule_continuation(run_id, home)


def stop_overrun(run_id: int, result: str, *, index: int | None = None) -> None:
    """The run's action `index` (None: the first not yet done) passed its task's time limit
    (tasks/limits.py): it fails with `result`, which the run page's status line shows; a play's
    run is idle again. The actions queued behind it get a task of their own (the stopped task
    took them with it). Called under the run's lease, or by a time limit's watchdog thread just
    before its process restarts."""
    actions = RunAction.objects.filter(run_id=run_id, state__in=[RunAction.STATE_PENDING, RunAction.STATE_RUNNING])
    with transaction.atomic():
        action = (actions.filter(index=index) if index is not None else actions).order_by("index").first()
        if action is None:
            return
        RunAction.objects.filter(pk=action.pk).update(state=RunAction.STATE_FAILED, result=result[:300],
                                                      done_at=timezone.now())
        fields: dict[str, Any] = {"reveal": None}
        if action.kind == RunAction.KIND_PLAY:
            fields.update(pause_requested=False, status=Run.STATUS_IDLE)
        Run.objects.filter(pk=run_id).update(**fields)
    logger.warning("run %s: action %s (%s) %s", run_id, action.index, action.kind, result)
    if action.kind == RunAction.KIND_PLAY:
        dispatch.clear_continuation(run_id)
    news.notify(run_id)
    following = actions.order_by("index").values_list("index", flat=True).first()
    if following is not None:
        dispatch.schedule(run_id, following, force=True)


def _execute(
    run: Run, action: RunAction, engine: Engine | LazyEngine | None, lease: RunLease, queues: list[str] | None,
    charger: Charger, following: list[RunAction],
) -> tuple[Engine | LazyEngine | None, int]:
    """Execute the pending `action` (and, for a Step, the Steps right behind it among
    `following`, the actions after it: `_queued_steps`). Returns the engine (None: rebuild it
    next time) and how many actions were executed."""
    kind = action.kind
    settled = run.status == Run.STATUS_SETTLED
    if kind == RunAction.KIND_STEP_POINT:
        groups = point_groups(list(run.events.filter(step=run.head_step).values_list("data", flat=True)))
        if run.reveal is not None and run.reveal < len(groups):
            commit(
                run.pk, engine, action, state=RunAction.STATE_DONE, result="point", extra={"reveal": run.reveal + 1}
            )
            return engine, 1
    if kind in (RunAction.KIND_STEP, RunAction.KIND_STEP_POINT):
        if settled:
            commit(run.pk, engine, action, state=RunAction.STATE_DONE, result="settled", extra=settled_outcome(kind))
            return engine, 1
        engine = engine_for(run, engine)
        spent = charger.charge(node_count(engine))
        if spent:
            commit(run.pk, engine, action, state=RunAction.STATE_FAILED, result=spent)
            return engine, 1
        result = engine.execute({"op": "step", "max_time": run.max_time}, action.index)
        reveal = None
        if kind == RunAction.KIND_STEP_POINT:
            groups = point_groups([e.data for e in engine.events])
            reveal = 1 if len(groups) > 1 else None
            commit(run.pk, engine, action, state=RunAction.STATE_DONE, result=result, extra={"reveal": reveal})
            return engine, 1
        done_before, action, result = _queued_steps(run, engine, action, result, charger, following)
        commit(run.pk, engine, action, state=RunAction.STATE_DONE, result=result, extra={"reveal": None},
                done_before=done_before)
        return engine, 1 + len(done_before)
    if kind == RunAction.KIND_ADVANCE_CLOCK and action.params.get("seconds"):
        engine = engine_for(run, engine)
        run_clock_for(engine, float(action.params["seconds"]), run.max_time, action.index)
        commit(run.pk, engine, action, state=RunAction.STATE_DONE,
                result=f"clock {engine.sim.clock.now():g}s", extra={"reveal": None})
        return engine, 1
    if kind == RunAction.KIND_ADVANCE_CLOCK:
        engine = engine_for(run, engine)
        target = engine.sim.next_wakeup()
        if target is None:
            commit(
                run.pk,
                engine,
                action,
                state=RunAction.STATE_DONE,
                result="nothing is scheduled",
                extra={"reveal": None},
            )
            return engine, 1
        target = min(float(target), run.max_time)
        # Up to the next timer and everything due then: the cycles waiting at the current time,
        # the jump, the timer's effects (an eviction, a backoff expiring, a timeline action).
        for _ in range(run_units.MAX_PLAY_UNITS):
            spent = charger.charge(node_count(engine))
            if spent:
                commit(run.pk, engine, action, state=RunAction.STATE_FAILED, result=spent)
                return engine, 1
            result = engine.execute({"op": "step", "max_time": target}, action.index)
            if result in ("settled", "max-time"):
                break
        commit(
            run.pk,
            engine,
            action,
            state=RunAction.STATE_DONE,
            result=f"clock {engine.sim.clock.now():g}s",
            extra={"reveal": None},
        )
        return engine, 1
    if kind == RunAction.KIND_CLUSTER:
        from scheduler_core.api.errors import ScenarioError
        from scheduler_core.simulation import ActionError

        engine = engine_for(run, engine)
        before = engine.sim.sink.seq
        try:
            engine.execute({"op": "action", "action": action.params, "index": action.index}, action.index)
        except (ScenarioError, ActionError, ValueError, KeyError, TypeError) as error:
            commit(run.pk, None, action, state=RunAction.STATE_FAILED, result=str(error) or type(error).__name__)
            # The engine promises to change nothing on a refused action; rebuild if it did anyway.
            return (engine if engine.sim.sink.seq == before else None), 1
        commit(
            run.pk,
            engine,
            action,
            state=RunAction.STATE_DONE,
            result="applied",
            extra={"reveal": None, "status": Run.STATUS_IDLE},
        )
        return engine, 1
    if kind == RunAction.KIND_PLAY and (action.params or {}).get("to"):  # a fast-forward: Run to end/cycle/time
        from playground.services.runs.fast_forward import fast_forward

        return fast_forward(run, action, engine, lease, queues, charger), 1
    if kind == RunAction.KIND_PLAY:
        return _play(run, action, engine, lease, queues, charger), 1
    commit(run.pk, engine, action, state=RunAction.STATE_FAILED, result=f"unknown action {kind}")
    return engine, 1


def _queued_steps(
    run: Run, engine: Engine, action: RunAction, result: str, charger: Charger, following: list[RunAction]
) -> tuple[list[RunAction], RunAction, str]:
    """After a Step, the plain Steps queued right behind it (a student pressing Step several
    times, a class's Steps queued while the worker was busy) are executed too, within one play
    batch (BATCH_UNITS, BATCH_SECONDS), and committed with it: one transaction and one
    notification for the lot instead of one each. On SQLite every commit takes the database's
    single writer, which is what a second worker process waits for. Each action keeps its own
    step and result. `action` has just been executed (`result`); `following`: the actions
    behind it, in index order. Returns the actions done before the last one, the last one and
    its result."""
    action.first_step = action.last_step = engine.step
    done_before: list[RunAction] = []
    started = time.monotonic()
    for queued in following:
        if (
            queued.kind != RunAction.KIND_STEP
            or queued.state != RunAction.STATE_PENDING
            or result in ("settled", "max-time")  # what follows is a settled run's Step: its own rule
            or time.monotonic() - started >= BATCH_SECONDS
            or charger.charge(node_count(engine))  # over the quota: that Step fails on its own below
        ):
            break
        action.state, action.result = RunAction.STATE_DONE, result[:300]
        done_before.append(action)
        action, result = queued, engine.execute({"op": "step", "max_time": run.max_time}, queued.index)
        action.first_step = action.last_step = engine.step
    return done_before, action, result


def _play(
    run: Run, action: RunAction, engine: Engine | LazyEngine | None, lease: RunLease, queues: list[str] | None,
    charger: Charger,
) -> Engine | None:
    """Step until settled (or the clock limit, or a pause), committing in batches. When a
    client's action waits in the queue (looked at between steps), or after a slice of
    PLAY_SLICE_SECONDS another play's next slice, stop with the action back at "pending" (the
    caller queues the continuation)."""
    run_id = run.pk
    if run.pause_requested or run.status == Run.STATUS_SETTLED:
        result = "paused" if run.pause_requested else "settled"
        extra = settled_outcome(RunAction.KIND_PLAY) if result == "settled" else {
            "pause_requested": False, "status": Run.STATUS_IDLE}
        commit(run_id, engine, action, state=RunAction.STATE_DONE, result=result, extra=extra)
        return engine
    engine = engine_for(run, engine)
    if action.state != RunAction.STATE_RUNNING:
        commit(
            run_id, engine, action, state=RunAction.STATE_RUNNING, extra={"status": Run.STATUS_PLAYING, "reveal": None},
            lease=lease,
        )
    speed = run.speed
    batch_started = slice_started = time.monotonic()
    units = action.last_step - action.first_step + 1 if action.first_step is not None and action.last_step else 0
    result = ""
    spent = None
    looked = batch_started
    while True:
        spent = charger.charge(node_count(engine))
        if spent:
            break
        result = engine.execute({"op": "step", "max_time": run.max_time}, action.index)
        units += 1
        finished = result in ("settled", "max-time") or units >= run_units.MAX_PLAY_UNITS
        if finished:
            break
        now = time.monotonic()
        if queues and now - looked >= run_units.YIELD_LOOK_SECONDS:
            looked = now
            if others_waiting(queues, below=CONTINUATION_PRIORITY):
                # A client's action waits for this process: it goes first (the play resumes behind it).
                commit(run_id, engine, action, state=RunAction.STATE_PENDING, lease=lease, playing=True)
                return engine
        if speed > 0 or len(engine.frames) >= BATCH_UNITS or now - batch_started >= BATCH_SECONDS:
            commit(run_id, engine, action, state=RunAction.STATE_RUNNING, lease=lease, playing=True)
            worked = time.monotonic() - batch_started
            if queues is not None and dispatch.interactive_recently():
                # Others are stepping: their Steps, pages and pushes need the cores this
                # process shares with them. The play keeps PLAY_SHARE of its pace meanwhile,
                # and gives the process away as soon as one of their actions waits for it.
                if _pause_unless_needed(queues, min(MAX_PLAY_PAUSE, worked * (1 - PLAY_SHARE) / PLAY_SHARE)):
                    commit(run_id, engine, action, state=RunAction.STATE_PENDING, lease=lease, playing=True)
                    return engine
            batch_started = time.monotonic()
            current = Run.objects.filter(pk=run_id).values("pause_requested", "speed").get()
            if current["pause_requested"]:
                result = "paused"
                break
            speed = current["speed"]
            if batch_started - slice_started >= PLAY_SLICE_SECONDS:
                if queues and others_waiting(queues):
                    commit(run_id, engine, action, state=RunAction.STATE_PENDING, lease=lease, playing=True)
                    return engine
                slice_started = batch_started
            if speed > 0:
                time.sleep(1.0 / speed)
    status = Run.STATUS_SETTLED if result == "settled" else Run.STATUS_IDLE
    commit(
        run_id,
        engine,
        action,
        state=RunAction.STATE_FAILED if spent else RunAction.STATE_DONE,
        result=spent or result,
        extra={"pause_requested": False, "status": status},
        lease=lease,
    )
    dispatch.clear_continuation(run_id)
    return engine


def _pause_unless_needed(queues: list[str], seconds: float) -> bool:
    """Sleep `seconds`, looking for a client's waiting action every YIELD_LOOK_SECONDS; True as
    soon as one waits (the play then yields instead of holding an idle process)."""
    deadline = time.monotonic() + seconds
    while True:
        if queues and others_waiting(queues, below=CONTINUATION_PRIORITY):
            return True
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(run_units.YIELD_LOOK_SECONDS * 5, left))
