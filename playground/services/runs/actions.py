"""What users do to runs: start one from a scenario, append actions to its log, pause, fork.

Actions only append to the log and queue the worker (`dispatch.schedule`); the worker executes
them in index order (`worker.advance_run`).
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import Max
from django.utils import timezone

from playground.models import Run, RunAction, RunCheckpoint, RunEvent, RunFrame, Scenario
from playground.ownership import Actor, can_control, ensure_can_control, ensure_has_identity, owner_fields
from playground.selectors.frame_views import remember as remember_view
from playground.selectors.frame_views import view_at
from playground.services.runs import dispatch, fleet, news, preflight, prepared_engine
from playground.services.runs.errors import RunError
from playground.services.runs.prepare import (
    compute_start,
    keep_start,
    prepared_by_worker,
    scenario_yaml_versioned,
    take_by_content,
    take_prepared,
)
from playground.services.runs.start_content import content_key

SPEEDS = (0.0, 1.0, 2.0, 5.0, 10.0, 20.0)  # steps per second while playing; 0 = as fast as possible


def kubernetes_version_of(value: str | None) -> str:
    """The canonical name ("v1.30") of a requested Kubernetes version; empty or None: the
    default. RunError naming the supported versions for anything else."""
    from scheduler_core.featuregate.features import DEFAULT_KUBERNETES_VERSION, UnknownVersionError, gates_for

    if value is None or not str(value).strip():
        return DEFAULT_KUBERNETES_VERSION
    try:
        return gates_for(str(value)).version
    except UnknownVersionError as error:
        raise RunError(f"Kubernetes version: {error}.") from None


def feature_gates_of(value: str | None, version: str) -> str:
    """The canonical form ("A=true,B=false", name order, defaults dropped) of a requested
    --feature-gates value for `version`; RunError in upstream's words when the version refuses it."""
    from scheduler_core.featuregate import MAX_GATES_TEXT, FeatureGateError, format_gates, parse_feature_gates

    text = (value or "").strip()
    if len(text) > MAX_GATES_TEXT:
        raise RunError(f"Feature gates: at most {MAX_GATES_TEXT} characters.")
    try:
        return format_gates(parse_feature_gates(text, version).items())
    except FeatureGateError as error:
        from scheduler_core.loader.newer_gates import gate_names, gate_notes

        notes = "".join(f" Note: {line}." for line in gate_notes(gate_names(text)))  # v1.36/v1.37 names
        raise RunError(f"Feature gates: {error}.{notes}") from None


def run_start(
    *, scenario: Scenario, actor: Actor, seed: int | None = None, kubernetes_version: str | None = None,
    feature_gates: str | None = None,
) -> Run:
    """Snapshot the scenario (YAML text and seed) and store the run's start: frame 0, its events
    (run_started, the pods entering the queue) and checkpoint 0. `kubernetes_version`: the
    kube-scheduler release the run models ("v1.35" when not given), kept for the run's life."""
    from scheduler_core.api.errors import ScenarioError
    from scheduler_core.framework.interface import PluginArgsError
    from scheduler_core.framework.runtime.framework import FrameworkError

    ensure_has_identity(actor, "Starting a run")
    version = kubernetes_version_of(kubernetes_version)
    gates = feature_gates_of(feature_gates, version)
    text, objects_version = scenario_yaml_versioned(scenario=scenario)  # kept since the last change
    seed = scenario.seed if seed is None else seed
    # A big scenario's start was computed by a worker when it changed (default gates only): store
    # it (see prepare).
    prepared = None if gates else take_prepared(scenario=scenario, version=objects_version, seed=seed,
                                                kubernetes_version=version)
    content = content_key(text, seed, version, gates)
    if prepared is None:  # the same content started before, from any scenario (a class's forks)
        prepared = take_by_content(content)
    if prepared is None and _worker_prepares(scenario, seed, version, gates):
        prepared = prepared_by_worker(scenario=scenario, version=objects_version, seed=seed, kubernetes_version=version)
    computed = prepared is None
    if prepared is None:
        try:
            prepared = compute_start(text, seed, version, gates)
        except (ScenarioError, FrameworkError, PluginArgsError) as error:
            # The last two: a configuration the chosen Kubernetes version's plugins refuse.
            raise RunError(f"This scenario cannot run: {error}") from None
    with transaction.atomic():
        run = Run.objects.create(
            scenario=scenario,
            scenario_name=scenario.name,
            scenario_yaml=text,
            seed=seed,
            kubernetes_version=version,
            feature_gates=gates,
            **owner_fields(actor),
        )
        prepared.store(run.pk)  # frame 0, its events and checkpoint 0: every rebuild can start there
        remember_view(run=run, step=0, view=prepared.frame["view"])  # the redirect's page reads no stored view
        Run.objects.filter(pk=run.pk).update(**prepared.fields)
        if computed:
            keep_start(scenario=scenario, version=objects_version, seed=seed, kubernetes_version=version,
                       feature_gates=gates, content=content, prepared=prepared)
        pk = run.pk
        transaction.on_commit(lambda: news.notify(pk))  # a new attempt (a challenge's results follow the news)
    if not computed:  # the worker that prepared this start may hold its engine: the run lives there
        home = prepared_engine.home_for(content)
        if home is not None:
            fleet.set_home(run.pk, home)
    run.refresh_from_db()
    return run


def _worker_prepares(scenario: Scenario, seed: int, version: str, gates: str) -> bool:
    """Should a worker compute this start while the request waits? A big scenario's (the
    start a worker prepares after every change: its seed, the default version, no gates), when
    a worker is there to do it."""
    from playground.services.runs.prepare import PREPARE_MIN_OBJECTS, start_weight
    from scheduler_core.featuregate.features import DEFAULT_KUBERNETES_VERSION

    if gates or seed != scenario.seed or version != DEFAULT_KUBERNETES_VERSION:
        return False
    return start_weight(scenario.pk) >= PREPARE_MIN_OBJECTS and fleet.any_worker_alive()  # timelines count


def run_opened(*, run: Run, actor: Actor) -> bool:
    """The run page is about to be served to someone who can control the run (or, from the
    start form, its owner is being sent there). A run that has taken no action yet (just
    started, or just forked) gets its engine built by a worker now, so the first Step costs a
    step rather than a checkpoint restore (seconds at 5,000 nodes). Asked for when the page is
    asked for, rather than whenever a run is created: a run nobody opens needs no engine, and
    a fork is warmed the same way; the start form asks before its redirect, so the build runs
    while the browser follows it and the page renders. Asked once for all of those
    (`dispatch.warm`). True when a build was queued."""
    if not can_control(run=run, actor=actor) or RunAction.objects.filter(run=run).exists():
        return False
    return dispatch.warm(run.pk, run.share_token)


def _cluster_action(params: dict[str, Any]) -> dict[str, Any]:
    from scheduler_core.actions.registry import action_names  # the engine's one list of them

    if not isinstance(params, dict) or params.get("action") not in action_names():
        raise RunError("Unknown cluster action.")
    return params


def run_enqueue(*, run: Run, actor: Actor, kind: str, params: dict[str, Any] | None = None) -> RunAction:
    """Append an action to the run's log and queue the worker. Returns the new RunAction."""
    ensure_can_control(run=run, actor=actor)
    params = dict(params or {})
    if kind == RunAction.KIND_CLUSTER:
        params = _cluster_action(params)
        preflight.check_cluster_action(run, params)  # refused here, not "Queued" then failed
    elif kind == RunAction.KIND_ADVANCE_CLOCK and params:
        params = {"seconds": clock_seconds(params.get("seconds"))}
    elif kind == RunAction.KIND_PLAY and params:  # a fast-forward (services/runs/fast_forward.py)
        from playground.services.runs.fast_forward import fast_forward_params

        params = fast_forward_params(params.get("to", ""), params.get("value"), run=run)
    elif kind not in {
        RunAction.KIND_STEP,
        RunAction.KIND_STEP_POINT,
        RunAction.KIND_PLAY,
        RunAction.KIND_ADVANCE_CLOCK,
    }:
        raise RunError(f"Unknown action {kind!r}.")
    # First without a transaction around the reads: on SQLite one writer at a time has the whole
    # file, and a writer whose thread waits for the interpreter between statements (a busy web
    # process) holds every other writer up (a Step post's transaction took 30 ms of wall time for
    # 2 ms of work). The reads decide; one INSERT appends. If another request appended in between
    # (the (run, index) constraint says so), again inside a transaction that locks the run: the
    # requests that collide then take their turns, and each gets the next index.
    try:
        return _enqueue_once(run.pk, kind, params)
    except IntegrityError:
        pass
    for attempt in range(5):
        try:
            with transaction.atomic():
                return _enqueue_once(run.pk, kind, params, lock=True)
        except IntegrityError:  # PostgreSQL: a request that appended without the lock
            if attempt == 4:
                raise
    raise AssertionError("unreachable")


def _enqueue_once(run_id: int, kind: str, params: dict[str, Any], *, lock: bool = False) -> RunAction:
    """Append the action after the run's last one (or record a settled run's Step or Play
    done). IntegrityError: another request took that index."""
    rows = Run.objects.select_for_update() if lock else Run.objects
    run_row = rows.only("pk", "owner_token", "owner_id", "status", "pause_requested", "reveal").get(pk=run_id)
    last = run_row.actions.aggregate(m=Max("index"))["m"]
    idle = run_row.status == Run.STATUS_SETTLED and kind in (RunAction.KIND_STEP, RunAction.KIND_PLAY)
    if idle and not run_row.pause_requested and not run_row.actions.filter(
        state__in=[RunAction.STATE_PENDING, RunAction.STATE_RUNNING]
    ).exists():
        return _record_settled(run_row, (last or 0) + 1, kind, params)
    action = _append(run=run_row, index=(last or 0) + 1, kind=kind, params=params)
    owner = {"owner_token": run_row.owner_token, "owner_id": run_row.owner_id}
    transaction.on_commit(  # at once, unless a transaction is open: then when it commits
        lambda a=action, o=owner, n=not idle: dispatch.schedule(run_id, a.index, owner=o, needs_engine=n)
    )
    return action


def _append(**fields: Any) -> RunAction:
    """Insert an action: one statement, or (inside the caller's transaction) in a savepoint, so a
    lost race on the index leaves that transaction usable."""
    if connection.in_atomic_block:
        with transaction.atomic():
            return RunAction.objects.create(**fields)
    return RunAction.objects.create(**fields)


def _record_settled(locked: Run, index: int, kind: str, params: dict[str, Any]) -> RunAction:
    """A Step or Play of a settled run with nothing queued before it: recorded done here, as the
    worker would record it (units.settled_outcome), without a trip through the queue. A class
    presses Step and Play on finished runs all the time; each cost a task, a worker's
    transaction and a second page update, and waited in the queue behind the others' steps."""
    from playground.services.runs.units import settled_outcome

    fields = {name: value for name, value in settled_outcome(kind).items() if getattr(locked, name) != value}
    done = {"state": RunAction.STATE_DONE, "result": "settled", "done_at": timezone.now()}
    if not fields:  # the usual case (the run already says so): one INSERT, no transaction
        action = _append(run=locked, index=index, kind=kind, params=params, **done)
    else:
        with transaction.atomic():
            action = RunAction.objects.create(run=locked, index=index, kind=kind, params=params, **done)
            Run.objects.filter(pk=locked.pk).update(**fields)
    transaction.on_commit(lambda: news.notify(locked.pk))
    return action


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
    news.notify(run.pk)


def run_fork(*, run: Run, actor: Actor, step: int) -> Run:
    """A new run, owned by `actor`, whose log is `run`'s up to frame `step` (frames, events and
    checkpoints are copied: the same units give the same engine). It continues independently."""
    ensure_has_identity(actor, "Forking a run")
    step = max(0, min(step, run.head_step))
    frame = run.frames.get(step=step)
    with transaction.atomic():
        fork = Run.objects.create(
            scenario=run.scenario,
            scenario_name=run.scenario_name,
            scenario_yaml=run.scenario_yaml,
            seed=run.seed,
            kubernetes_version=run.kubernetes_version,
            feature_gates=run.feature_gates,
            max_time=run.max_time,
            forked_from=run,
            forked_at_step=step,
            head_step=step,
            last_seq=frame.last_seq,
            clock=frame.clock,
            cycle=view_at(run=run, step=step).get("cycle", frame.cycle),
            status=Run.STATUS_SETTLED if frame.result == "settled" else Run.STATUS_IDLE,
            **owner_fields(actor),
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
                    plugin_wall=f.plugin_wall,  # the steps the fork shares were timed when first run
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


MAX_CLOCK_SECONDS = 3600


def clock_seconds(value: Any) -> float:
    """The seconds of "let the clock run": a number from 1 to MAX_CLOCK_SECONDS, else RunError."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise RunError(f"seconds: {value!r} is not a number of seconds") from None
    if not 1 <= seconds <= MAX_CLOCK_SECONDS:
        raise RunError(f"seconds: {value!r} is out of range: from 1 to {MAX_CLOCK_SECONDS}")
    return seconds
