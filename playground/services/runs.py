"""Changing runs: start one from a scenario, queue actions, pause, fork; the worker's `advance_run`.

How a run advances (design principles 2-5):

- A user's request becomes a RunAction (index = next in the run's log) and a Celery task
  `advance_run(run_id, index)`. The task takes the run's lock (a Redis lock with a short TTL,
  renewed while it works), rebuilds the engine from the nearest checkpoint plus the stored units
  after it, then executes every pending action in index order. A redelivered or duplicate task
  finds its action done and does nothing; a task that finds the lock taken retries shortly.
- Each engine call (a *unit*) is stored as a RunFrame with the engine's view after it; its events
  become RunEvent rows keyed by the engine's seq. Frames, events, checkpoints, the run's progress
  and the action's state are written in one transaction, so a worker killed at any point leaves
  either all of a batch or none of it: the next worker replays to the last stored unit and goes on
  with the same events (the engine is deterministic).
- After each commit the run's Channels group `run_<id>` is notified; consumers render from the DB.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from playground.models import Run, RunAction, RunCheckpoint, RunEvent, RunFrame, Scenario
from playground.selectors.runs import can_control, point_groups
from playground.selectors.scenarios import Actor, scenario_yaml

logger = logging.getLogger(__name__)

CHECKPOINT_EVERY = 20  # frames between engine checkpoints
LOCK_TTL = float(os.environ.get("PLAYGROUND_RUN_LOCK_TTL", "10"))  # seconds; renewed while working
BATCH_SECONDS = 0.25  # a play commits (and notifies) at least this often...
BATCH_UNITS = 25  # ...or after this many units
MAX_PLAY_UNITS = 20000  # a safety net for one play action
SPEEDS = (0.0, 1.0, 2.0, 5.0, 10.0, 20.0)  # steps per second while playing; 0 = as fast as possible

CLUSTER_ACTIONS = {
    "addPod",
    "deletePod",
    "addNode",
    "deleteNode",
    "cordon",
    "uncordon",
    "addTaint",
    "removeTaint",
    "setNodeLabels",
    "setScoreWeight",
}


class RunError(Exception):
    """A request that cannot be done; `message` is for the user."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class RunBusy(Exception):
    """Another worker holds the run's lock: try again shortly."""


# ---- the engine ----------------------------------------------------------------------------------


def load_simulation(yaml_text: str, seed: int) -> Any:
    from scheduler_core.api.loader import load_scenario_text
    from scheduler_core.simulation import Simulation

    return Simulation(load_scenario_text(yaml_text, source="run"), seed=seed, record_events=True)


def apply_unit(sim: Any, unit: dict[str, Any]) -> str:
    """Execute one stored unit on the engine; the same call the worker made the first time."""
    op = unit["op"]
    if op == "step":
        return sim.step(unit.get("max_time", 3600.0))
    if op == "action":
        sim.apply_manifest_action(unit["action"], index=unit["index"])
        return "action"
    raise ValueError(f"unknown unit {unit!r}")


def _restore_extender_calls(sim: Any, unit: dict[str, Any]) -> None:
    """Give the engine the extender answers a stored unit received, so replaying it makes no
    HTTP call and sees exactly what the first execution saw."""
    calls = unit.get("extender_calls")
    if calls:
        from scheduler_core.extender import ExtenderCall

        sim.extender_transcript.calls.extend(ExtenderCall.from_json(c) for c in calls)


def engine_view(sim: Any) -> dict[str, Any]:
    """`Simulation.view()` as a frame stores it: without the k8s events (they are RunEvent rows).
    The engine says what would move each unschedulable pod (`movedBy`: the cluster events its
    rejecting plugins registered)."""
    view = sim.view()
    view.pop("events", None)
    for pod in view["queues"].get("unschedulable", []):
        pod["wouldMove"] = pod.get("movedBy", [])
    return view


@dataclass
class Engine:
    """The run's engine in this worker, plus the units it executed that are not stored yet."""

    run_id: int
    sim: Any
    step: int  # the last frame (stored or pending)
    stored_step: int
    stored_seq: int
    frames: list[RunFrame] = field(default_factory=list)
    events: list[RunEvent] = field(default_factory=list)
    checkpoints: list[RunCheckpoint] = field(default_factory=list)
    last_result: str = ""

    @classmethod
    def rebuild(cls, run: Run) -> Engine:
        """The engine after the run's last stored frame: nearest checkpoint + replay."""
        from scheduler_core.simulation import Simulation

        checkpoint = run.checkpoints.filter(step__lte=run.head_step).order_by("-step").first()
        if checkpoint is None:
            raise RuntimeError(f"run {run.pk} has no checkpoint")
        sim = Simulation.restore(bytes(checkpoint.blob))
        result = ""
        for frame in run.frames.filter(step__gt=checkpoint.step, step__lte=run.head_step).only(
            "step", "unit", "last_seq", "result"
        ):
            _restore_extender_calls(sim, frame.unit)
            result = apply_unit(sim, frame.unit)
            sim.sink.events = []  # already stored
            if sim.sink.seq != frame.last_seq or result != frame.result:
                raise RuntimeError(
                    f"run {run.pk}: replaying frame {frame.step} gave seq {sim.sink.seq}/{result}, "
                    f"stored {frame.last_seq}/{frame.result}: the engine is not deterministic"
                )
        if sim.sink.seq != run.last_seq:
            raise RuntimeError(f"run {run.pk}: engine at seq {sim.sink.seq}, log at {run.last_seq}")
        return cls(run_id=run.pk, sim=sim, step=run.head_step, stored_step=run.head_step, stored_seq=run.last_seq)

    def execute(self, unit: dict[str, Any], action_index: int | None) -> str:
        sim = self.sim
        first_seq = sim.sink.seq + 1
        calls_before = len(sim.extender_transcript)
        result = apply_unit(sim, unit)
        new_calls = sim.extender_transcript.calls[calls_before:]
        if new_calls:
            # Extender answers are part of the run's log: a rebuild replays them, never the service.
            unit = {**unit, "extender_calls": [c.to_json() for c in new_calls]}
        new_events, sim.sink.events = sim.sink.events, []
        self.step += 1
        self._record(unit, result, action_index, first_seq, new_events)
        self.last_result = result
        return result

    def _record(
        self,
        unit: dict[str, Any],
        result: str,
        action_index: int | None,
        first_seq: int,
        new_events: list[dict[str, Any]],
    ) -> None:
        sim = self.sim
        view = engine_view(sim)
        cycle = next((e["cycle"] for e in new_events if e["type"] == "cycle_started"), view.get("cycle", 0))
        self.frames.append(
            RunFrame(
                run_id=self.run_id,
                step=self.step,
                action_index=action_index,
                unit=unit,
                result=result,
                cycle=cycle or 0,
                clock=view["clock"],
                first_seq=first_seq,
                last_seq=sim.sink.seq,
                view=view,
            )
        )
        self.events.extend(
            RunEvent(run_id=self.run_id, seq=e["seq"], step=self.step, type=e["type"], data=e) for e in new_events
        )
        if self.step % CHECKPOINT_EVERY == 0:
            self.checkpoints.append(RunCheckpoint(run_id=self.run_id, step=self.step, blob=sim.checkpoint()))

    @property
    def dirty(self) -> bool:
        return bool(self.frames)

    def run_fields(self) -> dict[str, Any]:
        view = self.frames[-1].view if self.frames else None
        fields: dict[str, Any] = {"head_step": self.step, "last_seq": self.sim.sink.seq}
        if view is not None:
            fields.update(clock=view["clock"], cycle=view.get("cycle", 0))
        if self.last_result == "settled":
            fields["status"] = Run.STATUS_SETTLED
        return fields

    def flush(self) -> None:
        """Store the pending frames, events and checkpoints (inside the caller's transaction)."""
        if not self.frames:
            return
        RunFrame.objects.bulk_create(self.frames)
        RunEvent.objects.bulk_create(self.events, batch_size=500)
        if self.checkpoints:
            RunCheckpoint.objects.bulk_create(self.checkpoints)
        self.stored_step, self.stored_seq = self.step, self.sim.sink.seq
        self.frames, self.events, self.checkpoints = [], [], []


# ---- notifications ---------------------------------------------------------------------------------


def notify(run_id: int, *, head_step: int | None = None, last_seq: int | None = None) -> None:
    """Tell every open page of the run that the log grew (they read what changed from the DB)."""
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(
            f"run_{run_id}", {"type": "run.updated", "head_step": head_step, "last_seq": last_seq}
        )
    except Exception:  # the log is the truth: a lost notification is caught up on reconnect
        logger.warning("run %s: notification failed", run_id, exc_info=True)


def runs_queue() -> str | None:
    """The Celery queue for run tasks (None: the default). Tests point it at their own worker."""
    return getattr(settings, "PLAYGROUND_RUNS_QUEUE", None) or os.environ.get("PLAYGROUND_RUNS_QUEUE") or None


def _schedule(run_id: int, index: int) -> None:
    from playground.tasks_runs import advance_run_task

    options: dict[str, Any] = {}
    queue = runs_queue()
    if queue:
        options["queue"] = queue
    advance_run_task.apply_async((run_id, index), **options)


# ---- starting, acting, forking ----------------------------------------------------------------------


def _owner_fields(actor: Actor) -> dict[str, Any]:
    return {"owner_token": actor.session_token, "owner_id": actor.user_id}


def run_start(*, scenario: Scenario, actor: Actor, seed: int | None = None) -> Run:
    """Snapshot the scenario (YAML text and seed) and store the run's start: frame 0, its events
    (run_started, the pods entering the queue) and checkpoint 0."""
    from scheduler_core.api.errors import ScenarioError

    if not actor.session_token and actor.user_id is None:
        raise PermissionDenied("Starting a run needs a session (enable cookies).")
    text = scenario_yaml(scenario=scenario)
    seed = scenario.seed if seed is None else seed
    try:
        sim = load_simulation(text, seed)
    except ScenarioError as error:
        raise RunError(f"This scenario cannot run: {error}") from None
    with transaction.atomic():
        run = Run.objects.create(
            scenario=scenario, scenario_name=scenario.name, scenario_yaml=text, seed=seed, **_owner_fields(actor)
        )
        engine = Engine(run_id=run.pk, sim=sim, step=0, stored_step=0, stored_seq=0)
        new_events, sim.sink.events = sim.sink.events, []
        engine._record({"op": "start"}, "start", None, 1, new_events)  # step 0: with checkpoint 0
        fields = engine.run_fields()
        engine.flush()
        Run.objects.filter(pk=run.pk).update(**fields)
    run.refresh_from_db()
    return run


def ensure_can_control(*, run: Run, actor: Actor) -> None:
    if not can_control(run=run, actor=actor):
        raise PermissionDenied("Only the person who started this run can drive it: fork it to get your own.")


def _cluster_action(params: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(params, dict) or params.get("action") not in CLUSTER_ACTIONS:
        raise RunError("Unknown cluster action.")
    return params


def run_enqueue(*, run: Run, actor: Actor, kind: str, params: dict[str, Any] | None = None) -> RunAction:
    """Append an action to the run's log and queue the worker. Returns the new RunAction."""
    ensure_can_control(run=run, actor=actor)
    params = dict(params or {})
    if kind == RunAction.KIND_CLUSTER:
        params = _cluster_action(params)
    elif kind not in {
        RunAction.KIND_STEP,
        RunAction.KIND_STEP_POINT,
        RunAction.KIND_PLAY,
        RunAction.KIND_ADVANCE_CLOCK,
    }:
        raise RunError(f"Unknown action {kind!r}.")
    for attempt in range(5):
        try:
            with transaction.atomic():
                locked = Run.objects.select_for_update().get(pk=run.pk)
                last = locked.actions.aggregate(m=Max("index"))["m"]
                action = RunAction.objects.create(run=locked, index=(last or 0) + 1, kind=kind, params=params)
                transaction.on_commit(lambda a=action: _schedule(run.pk, a.index))
            return action
        except IntegrityError:  # two requests took the same index at once: take the next one
            if attempt == 4:
                raise
    raise AssertionError("unreachable")


def run_pause(*, run: Run, actor: Actor) -> bool:
    """Ask a running or queued play to stop after its current step. True if there was one."""
    ensure_can_control(run=run, actor=actor)
    playing = run.actions.filter(
        kind=RunAction.KIND_PLAY, state__in=[RunAction.STATE_PENDING, RunAction.STATE_RUNNING]
    ).exists()
    if playing:
        Run.objects.filter(pk=run.pk).update(pause_requested=True)
    return playing


def run_set_speed(*, run: Run, actor: Actor, speed: float) -> None:
    ensure_can_control(run=run, actor=actor)
    if speed not in SPEEDS:
        raise RunError("Unknown speed.")
    Run.objects.filter(pk=run.pk).update(speed=speed)
    notify(run.pk)


def run_fork(*, run: Run, actor: Actor, step: int) -> Run:
    """A new run, owned by `actor`, whose log is `run`'s up to frame `step` (frames, events and
    checkpoints are copied: the same units give the same engine). It continues independently."""
    if not actor.session_token and actor.user_id is None:
        raise PermissionDenied("Forking a run needs a session (enable cookies).")
    step = max(0, min(step, run.head_step))
    frame = run.frames.get(step=step)
    with transaction.atomic():
        fork = Run.objects.create(
            scenario=run.scenario,
            scenario_name=run.scenario_name,
            scenario_yaml=run.scenario_yaml,
            seed=run.seed,
            max_time=run.max_time,
            forked_from=run,
            forked_at_step=step,
            head_step=step,
            last_seq=frame.last_seq,
            clock=frame.clock,
            cycle=frame.view.get("cycle", frame.cycle),
            status=Run.STATUS_SETTLED if frame.result == "settled" else Run.STATUS_IDLE,
            **_owner_fields(actor),
        )
        RunFrame.objects.bulk_create(
            [
                RunFrame(
                    run=fork,
                    step=f.step,
                    action_index=None,
                    unit=f.unit,
                    result=f.result,
                    cycle=f.cycle,
                    clock=f.clock,
                    first_seq=f.first_seq,
                    last_seq=f.last_seq,
                    view=f.view,
                )
                for f in run.frames.filter(step__lte=step)
            ],
            batch_size=200,
        )
        RunEvent.objects.bulk_create(
            [
                RunEvent(run=fork, seq=e.seq, step=e.step, type=e.type, data=e.data)
                for e in run.events.filter(seq__lte=frame.last_seq)
            ],
            batch_size=500,
        )
        RunCheckpoint.objects.bulk_create(
            [RunCheckpoint(run=fork, step=c.step, blob=c.blob) for c in run.checkpoints.filter(step__lte=step)]
        )
    return fork


# ---- the worker -------------------------------------------------------------------------------------


def _redis() -> Any:
    import redis

    return redis.Redis.from_url(settings.REDIS_URL)


def advance_run(run_id: int) -> int:
    """Execute every pending action of the run, in index order. Returns how many it executed.
    Raises RunBusy when another worker holds the run (the task retries)."""
    client = _redis()
    lock = client.lock(f"playground:run-lock:{run_id}", timeout=LOCK_TTL)
    if not lock.acquire(blocking=False):
        raise RunBusy(run_id)
    done = 0
    try:
        engine: Engine | None = None
        while True:
            action = (
                RunAction.objects.filter(run_id=run_id, state__in=[RunAction.STATE_PENDING, RunAction.STATE_RUNNING])
                .order_by("index")
                .first()
            )
            if action is None:
                return done
            run = Run.objects.get(pk=run_id)
            if engine is None or engine.stored_step != run.head_step:
                engine = None  # rebuilt lazily: actions that need no engine do not pay for it
            engine = _execute(run, action, engine, lock)
            done += 1
    finally:
        try:
            lock.release()
        except Exception:  # expired: another worker may have it now; it will find the work done
            logger.warning("run %s: lock expired before release", run_id)
        client.close()


def _engine(run: Run, engine: Engine | None) -> Engine:
    return engine if engine is not None else Engine.rebuild(run)


def _commit(
    run_id: int,
    engine: Engine | None,
    action: RunAction,
    *,
    state: str,
    result: str = "",
    extra: dict[str, Any] | None = None,
    lock: Any = None,
) -> None:
    """One transaction: pending frames/events/checkpoints, the run's progress, the action's state."""
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run_id)
        fields: dict[str, Any] = dict(extra or {})
        if engine is not None and engine.dirty:
            if run.head_step != engine.stored_step or run.last_seq != engine.stored_seq:
                raise RuntimeError(f"run {run_id}: the log moved under this worker; giving up")
            first = engine.frames[0].step
            fields.update(engine.run_fields())
            engine.flush()
            if action.first_step is None:
                action.first_step = first
            action.last_step = engine.step
        if fields:
            Run.objects.filter(pk=run_id).update(**fields)
        action.state = state
        action.result = result[:300]
        if state in (RunAction.STATE_DONE, RunAction.STATE_FAILED):
            action.done_at = timezone.now()
        action.save(update_fields=["state", "result", "first_step", "last_step", "done_at"])
    if lock is not None:
        try:
            lock.reacquire()
        except Exception:
            logger.warning("run %s: could not renew the lock", run_id)
    latest = Run.objects.filter(pk=run_id).values("head_step", "last_seq").first() or {}
    notify(run_id, head_step=latest.get("head_step"), last_seq=latest.get("last_seq"))


def _execute(run: Run, action: RunAction, engine: Engine | None, lock: Any) -> Engine | None:
    kind = action.kind
    settled = run.status == Run.STATUS_SETTLED
    if kind == RunAction.KIND_STEP_POINT:
        groups = point_groups(list(run.events.filter(step=run.head_step).values_list("data", flat=True)))
        if run.reveal is not None and run.reveal < len(groups):
            _commit(
                run.pk, engine, action, state=RunAction.STATE_DONE, result="point", extra={"reveal": run.reveal + 1}
            )
            return engine
    if kind in (RunAction.KIND_STEP, RunAction.KIND_STEP_POINT):
        if settled:
            _commit(run.pk, engine, action, state=RunAction.STATE_DONE, result="settled", extra={"reveal": None})
            return engine
        engine = _engine(run, engine)
        result = engine.execute({"op": "step", "max_time": run.max_time}, action.index)
        reveal = None
        if kind == RunAction.KIND_STEP_POINT:
            groups = point_groups([e.data for e in engine.events])
            reveal = 1 if len(groups) > 1 else None
        _commit(run.pk, engine, action, state=RunAction.STATE_DONE, result=result, extra={"reveal": reveal})
        return engine
    if kind == RunAction.KIND_ADVANCE_CLOCK:
        engine = _engine(run, engine)
        target = engine.sim.next_wakeup()
        if target is None:
            _commit(
                run.pk,
                engine,
                action,
                state=RunAction.STATE_DONE,
                result="nothing is scheduled",
                extra={"reveal": None},
            )
            return engine
        target = min(float(target), run.max_time)
        # Up to the next timer and everything due then: the cycles waiting at the current time,
        # the jump, the timer's effects (an eviction, a backoff expiring, a timeline action).
        for _ in range(MAX_PLAY_UNITS):
            result = engine.execute({"op": "step", "max_time": target}, action.index)
            if result in ("settled", "max-time"):
                break
        _commit(
            run.pk,
            engine,
            action,
            state=RunAction.STATE_DONE,
            result=f"clock {engine.sim.clock.now():g}s",
            extra={"reveal": None},
        )
        return engine
    if kind == RunAction.KIND_CLUSTER:
        from scheduler_core.api.errors import ScenarioError
        from scheduler_core.simulation import ActionError

        engine = _engine(run, engine)
        before = engine.sim.sink.seq
        try:
            engine.execute({"op": "action", "action": action.params, "index": action.index}, action.index)
        except (ScenarioError, ActionError, ValueError, KeyError, TypeError) as error:
            _commit(run.pk, None, action, state=RunAction.STATE_FAILED, result=str(error) or type(error).__name__)
            # The engine promises to change nothing on a refused action; rebuild if it did anyway.
            return engine if engine.sim.sink.seq == before else None
        _commit(
            run.pk,
            engine,
            action,
            state=RunAction.STATE_DONE,
            result="applied",
            extra={"reveal": None, "status": Run.STATUS_IDLE},
        )
        return engine
    if kind == RunAction.KIND_PLAY:
        return _play(run, action, engine, lock)
    _commit(run.pk, engine, action, state=RunAction.STATE_FAILED, result=f"unknown action {kind}")
    return engine


def _play(run: Run, action: RunAction, engine: Engine | None, lock: Any) -> Engine | None:
    """Step until settled (or the clock limit, or a pause), committing in batches."""
    run_id = run.pk
    if run.pause_requested or run.status == Run.STATUS_SETTLED:
        result = "paused" if run.pause_requested else "settled"
        _commit(
            run_id,
            engine,
            action,
            state=RunAction.STATE_DONE,
            result=result,
            extra={"pause_requested": False, "status": run.status if result == "settled" else Run.STATUS_IDLE},
        )
        return engine
    engine = _engine(run, engine)
    if action.state != RunAction.STATE_RUNNING:
        _commit(
            run_id, engine, action, state=RunAction.STATE_RUNNING, extra={"status": Run.STATUS_PLAYING, "reveal": None}
        )
    speed = run.speed
    batch_started = time.monotonic()
    units = 0
    result = ""
    while True:
        result = engine.execute({"op": "step", "max_time": run.max_time}, action.index)
        units += 1
        finished = result in ("settled", "max-time") or units >= MAX_PLAY_UNITS
        if finished:
            break
        if speed > 0 or len(engine.frames) >= BATCH_UNITS or time.monotonic() - batch_started >= BATCH_SECONDS:
            _commit(run_id, engine, action, state=RunAction.STATE_RUNNING, lock=lock)
            batch_started = time.monotonic()
            current = Run.objects.filter(pk=run_id).values("pause_requested", "speed").get()
            if current["pause_requested"]:
                result = "paused"
                break
            speed = current["speed"]
            if speed > 0:
                time.sleep(1.0 / speed)
    status = Run.STATUS_SETTLED if result == "settled" else Run.STATUS_IDLE
    _commit(
        run_id,
        engine,
        action,
        state=RunAction.STATE_DONE,
        result=result,
        extra={"pause_requested": False, "status": status},
    )
    return engine


def resume_unfinished_runs() -> int:
    """Queue the worker for every run with pending or interrupted actions (a worker starting up
    calls this: a worker that was killed mid-play left its action 'running')."""
    rows = (
        RunAction.objects.filter(state__in=[RunAction.STATE_PENDING, RunAction.STATE_RUNNING])
        .values("run_id")
        .annotate(first=Max("index"))
    )
    count = 0
    for row in rows:
        _schedule(row["run_id"], row["first"])
        count += 1
    return count


# ---- cluster actions from the run page's forms ----------------------------------------------------

PAUSE_IMAGE = "registry.k8s.io/pause:3.10"
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
NODE_OPS = ("cordon", "uncordon", "deleteNode")


def cluster_action_from_form(data: Any) -> dict[str, Any]:
    """The engine's live-action dict for one of the run page's cluster forms (plain strings in,
    validated by the engine when the worker applies it: its messages reach the user)."""

    def text(name: str) -> str:
        return str(data.get(name, "") or "").strip()

    what = text("what")
    if what == "addPod":
        name = text("name")
        if not name:
            raise RunError("A pod needs a name.")
        requests = {k: v for k, v in (("cpu", text("cpu")), ("memory", text("memory"))) if v}
        spec: dict[str, Any] = {
            "containers": [
                {"name": "app", "image": PAUSE_IMAGE, "resources": {"requests": requests} if requests else {}}
            ]
        }
        if text("priorityClassName"):
            spec["priorityClassName"] = text("priorityClassName")
        return {
            "action": "addPod",
            "pod": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec},
        }
    if what == "deletePod":
        if not text("pod"):
            raise RunError("Choose a pod to delete.")
        return {"action": "deletePod", "pod": text("pod")}
    if what == "addNode":
        name = text("name")
        if not name:
            raise RunError("A node needs a name.")
        capacity = {"cpu": text("cpu") or "4", "memory": text("memory") or "8Gi", "pods": "110"}
        return {
            "action": "addNode",
            "node": {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
                "status": {"capacity": capacity, "allocatable": capacity},
            },
        }
    if what == "node":
        op = text("op")
        if op not in NODE_OPS or not text("node"):
            raise RunError("Choose a node and what to do with it.")
        return {"action": op, "node": text("node")}
    if what == "addTaint":
        if not text("node") or not text("key"):
            raise RunError("A taint needs a node and a key.")
        if text("effect") not in TAINT_EFFECTS:
            raise RunError("Choose the taint's effect.")
        taint = {"key": text("key"), "effect": text("effect")}
        if text("value"):
            taint["value"] = text("value")
        return {"action": "addTaint", "node": text("node"), "taint": taint}
    if what == "removeTaint":
        if not text("node") or not text("key"):
            raise RunError("Removing a taint needs the node and the taint's key.")
        return {"action": "removeTaint", "node": text("node"), "key": text("key")}
    if what == "setScoreWeight":
        if not text("plugin") or not text("weight"):
            raise RunError("Choose a Score plugin and its new weight.")
        try:
            weight = int(text("weight"))
        except ValueError:
            raise RunError("The weight must be a whole number from 1 to 100.") from None
        return {"action": "setScoreWeight", "plugin": text("plugin"), "weight": weight}
    if what == "setScoreWeight":
        if not text("plugin") or not text("weight"):
            raise RunError("Choose a Score plugin and its new weight.")
        try:
            weight = int(text("weight"))
        except ValueError:
            raise RunError("The weight must be a whole number from 1 to 100.") from None
        return {"action": "setScoreWeight", "plugin": text("plugin"), "weight": weight}
    raise RunError("Unknown cluster action.")
