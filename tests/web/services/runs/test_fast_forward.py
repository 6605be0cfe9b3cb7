"""Fast-forward (services/runs/fast_forward.py) executed by the worker's own code path in this
process (`advance_run`, as the Celery task calls it), against plain step-by-step runs, the
command line's `simulate`, and a fresh replay of the stored log.

Chunks are made small here (CHUNK_STEPS), so a short gallery run is several multi-step units,
plain steps between them, and rebuilds from checkpoints that replay those units."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from playground import frame_views, keyframe_rule
from playground.models import Run, RunAction
from playground.ownership import SESSION_KEY
from playground.selectors import frame_views as view_selector
from playground.services.runs import actions as svc
from playground.services.runs import dispatch, fast_forward
from playground.services.runs import engine as run_engine
from playground.services.runs import worker as run_worker
from playground.services.runs.cache import EngineCache
from playground.services.runs.errors import FieldError
from tests.web.services.runs.test_frames_replay_property import _check
from tests.web.services.runs.test_runs_services import OWNER, gallery_scenario

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[4]
SCENARIOS = ("deployments-daemonsets", "priority-preemption", "taints-tolerations", "noexecute-eviction")


@pytest.fixture
def worker_here(
    monkeypatch: pytest.MonkeyPatch, redis_url: str, settings: Any, channel_layer: Any,
    django_capture_on_commit_callbacks: Any,
) -> dict[str, Any]:
    """Queued actions are executed at once in this process; `state["cache"]` is the worker
    process's engine cache (None: a fresh one per action, so every action rebuilds)."""
    settings.REDIS_URL = redis_url
    state: dict[str, Any] = {"capture": django_capture_on_commit_callbacks, "cache": EngineCache(4)}

    def schedule(run_id: int, index: int, **_: object) -> None:
        cache = state["cache"] if state["cache"] is not None else EngineCache(1)
        run_worker.advance_run(run_id, cache=cache)

    monkeypatch.setattr(dispatch, "schedule", schedule)
    monkeypatch.setattr(fast_forward, "CHUNK_STEPS", 3)
    monkeypatch.setattr(fast_forward, "SLICE_SECONDS", 60.0)
    monkeypatch.setattr(frame_views, "KEYFRAME_EVERY", 2)
    monkeypatch.setattr(keyframe_rule, "KEYFRAME_MAX", 3)
    monkeypatch.setattr(run_engine, "CHECKPOINT_EVERY", 2)
    return state


def enqueue(state: dict[str, Any], run: Run, kind: str, params: dict[str, Any] | None = None) -> RunAction:
    with state["capture"](execute=True):
        action = svc.run_enqueue(run=run, actor=OWNER, kind=kind, params=params)
    action.refresh_from_db()
    run.refresh_from_db()
    return action


def placements(run: Run) -> dict[str, tuple[str, str | None]]:
    """pod key -> (status, node) at the run's head."""
    view = view_selector.view_at(run=run, step=run.head_step)
    return {p["key"]: (p["status"], p.get("node")) for p in view["pods"]}


def simulated(run: Run) -> dict[str, tuple[str, str | None]]:
    """The same mapping from `python -m scheduler_core simulate` on the run's YAML and seed."""
    path = Path(tempfile.mkstemp(suffix=".yaml")[1])
    path.write_text(run.scenario_yaml)
    try:
        out = subprocess.run(
            [sys.executable, "-m", "scheduler_core", "simulate", "--seed", str(run.seed), str(path)],
            cwd=ROOT, capture_output=True, text=True, check=True,
        ).stdout
    finally:
        path.unlink()
    return {f"{p['namespace']}/{p['name']}": (p["status"], p.get("node")) for p in json.loads(out)["pods"]}


@pytest.mark.parametrize("slug", SCENARIOS)
def test_run_to_end_settles_like_a_play_and_simulate_with_frames_equal_to_replay(
    worker_here: dict[str, Any], slug: str
) -> None:
    scenario = gallery_scenario(slug)
    fast = svc.run_start(scenario=scenario, actor=OWNER)
    action = enqueue(worker_here, fast, RunAction.KIND_PLAY, {"to": "end"})
    assert action.state == RunAction.STATE_DONE, action.result
    assert fast.status == Run.STATUS_SETTLED
    assert action.result == f"settled at cycle {fast.cycle}, clock {fast.clock:g}s"  # not "nothing to do"
    if slug != "noexecute-eviction":  # its pods are pending one at a time: plain steps only
        units = [f.unit["op"] for f in fast.frames.order_by("step")]
        assert "steps" in units  # several steps stored as one frame
        assert max(f.unit.get("count", 1) for f in fast.frames.all()) > 1

    plain = svc.run_start(scenario=scenario, actor=OWNER)
    while plain.status != Run.STATUS_SETTLED:
        enqueue(worker_here, plain, RunAction.KIND_STEP)
    assert placements(fast) == placements(plain)
    assert fast.last_seq == plain.last_seq  # every event kept
    assert (list(fast.events.order_by("seq").values_list("type", flat=True))
            == list(plain.events.order_by("seq").values_list("type", flat=True)))
    assert fast.head_step < plain.head_step or slug == "noexecute-eviction"  # fewer frames
    assert placements(fast) == simulated(fast)
    _check(fast, 0, slug)  # every stored frame equals a fresh replay of the log


def test_run_to_end_rebuilt_between_actions_and_then_stepped_on(worker_here: dict[str, Any]) -> None:
    """Every action on a fresh engine: the fast-forward's units are replayed from checkpoints."""
    worker_here["cache"] = None
    run = svc.run_start(scenario=gallery_scenario("deployments-daemonsets"), actor=OWNER)
    enqueue(worker_here, run, RunAction.KIND_STEP)
    enqueue(worker_here, run, RunAction.KIND_PLAY, {"to": "cycle", "value": 4})
    enqueue(worker_here, run, RunAction.KIND_STEP)
    enqueue(worker_here, run, RunAction.KIND_PLAY, {"to": "end"})
    assert run.status == Run.STATUS_SETTLED
    assert run.checkpoints.filter(step__gt=0).exists()
    assert placements(run) == simulated(run)
    _check(run, 0, "deployments-daemonsets")


def test_run_to_cycle_stops_at_that_cycle(worker_here: dict[str, Any]) -> None:
    run = svc.run_start(scenario=gallery_scenario("deployments-daemonsets"), actor=OWNER)
    action = enqueue(worker_here, run, RunAction.KIND_PLAY, {"to": "cycle", "value": "7"})
    assert action.state == RunAction.STATE_DONE
    assert action.result == "cycle 7"
    assert run.cycle == 7 and run.status == Run.STATUS_IDLE
    head = run.frames.get(step=run.head_step)
    assert head.unit["op"] == "step" and head.cycle == 7  # cycle 7 in a frame of its own
    assert run.events.filter(type="cycle_started").count() == 7
    _check(run, 0, "deployments-daemonsets")


def test_run_to_time_lets_the_clock_reach_it(worker_here: dict[str, Any]) -> None:
    run = svc.run_start(scenario=gallery_scenario("noexecute-eviction"), actor=OWNER)
    action = enqueue(worker_here, run, RunAction.KIND_PLAY, {"to": "time", "value": "42.5"})
    assert action.state == RunAction.STATE_DONE, action.result
    assert run.clock == 42.5
    plain = svc.run_start(scenario=gallery_scenario("noexecute-eviction"), actor=OWNER)
    enqueue(worker_here, plain, RunAction.KIND_ADVANCE_CLOCK, {"seconds": 42.5})
    assert placements(run) == placements(plain)
    _check(run, 0, "noexecute-eviction")


@pytest.mark.parametrize(
    ("to", "value", "field", "words"),
    [
        ("cycle", "abc", "cycle", "not a whole number"),
        ("cycle", "0", "cycle", "out of range"),
        ("cycle", "2.5", "cycle", "not a whole number"),
        ("time", "soon", "time", "not a number of seconds"),
        ("time", "nan", "time", "out of range"),
        ("time", "0", "time", "out of range"),
        ("time", "99999", "time", "out of range"),
        ("later", "", "to", "not one of"),
    ],
)
def test_bad_targets_are_refused_with_their_field_and_queue_nothing(
    worker_here: dict[str, Any], to: str, value: str, field: str, words: str
) -> None:
    run = svc.run_start(scenario=gallery_scenario("deployments-daemonsets"), actor=OWNER)
    with pytest.raises(FieldError) as refused:
        svc.run_enqueue(run=run, actor=OWNER, kind=RunAction.KIND_PLAY, params={"to": to, "value": value})
    assert refused.value.field == field and words in refused.value.message
    assert not run.actions.exists()


def test_a_cycle_the_run_has_passed_is_refused(worker_here: dict[str, Any]) -> None:
    run = svc.run_start(scenario=gallery_scenario("deployments-daemonsets"), actor=OWNER)
    enqueue(worker_here, run, RunAction.KIND_PLAY, {"to": "cycle", "value": 3})
    with pytest.raises(FieldError, match="at cycle 3 already"):
        svc.run_enqueue(run=run, actor=OWNER, kind=RunAction.KIND_PLAY, params={"to": "cycle", "value": 2})


def test_the_form_answers_bad_input_beside_its_field(worker_here: dict[str, Any], client: Any) -> None:
    run = svc.run_start(scenario=gallery_scenario("deployments-daemonsets"), actor=OWNER)
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    url = f"/runs/{run.share_token}/"
    response = client.post(url, {"action": "fast_forward", "to": "cycle", "cycle": "x"}, HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert response.status_code == 400
    assert 'id="fast-forward-cycle-error"' in body and "not a whole number" in body
    assert not run.actions.exists()
    response = client.post(url, {"action": "fast_forward", "to": "cycle", "cycle": "3"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "Queued: run to cycle 3" in response.content.decode()
    assert run.actions.get().params == {"to": "cycle", "value": 3}


def test_slices_commit_one_by_one_and_pause_stops_between_them(
    worker_here: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every slice committed (a zero-second slice: one chunk and one plain step each); "Pause",
    pressed while it runs, stops it at the next slice's end with the run idle."""
    monkeypatch.setattr(fast_forward, "SLICE_SECONDS", 0.0)
    run = svc.run_start(scenario=gallery_scenario("deployments-daemonsets"), actor=OWNER)
    real = run_engine.Engine.execute_steps
    calls = []

    def pressing_pause_at_the_third(engine: Any, *args: Any, **kwargs: Any) -> str:
        calls.append(engine.step)
        if len(calls) == 3:
            assert svc.run_pause(run=run, actor=OWNER)  # what the Pause button does, mid-run
        return real(engine, *args, **kwargs)

    monkeypatch.setattr(run_engine.Engine, "execute_steps", pressing_pause_at_the_third)
    action = enqueue(worker_here, run, RunAction.KIND_PLAY, {"to": "end"})
    assert action.state == RunAction.STATE_DONE and action.result == "paused"
    assert run.status == Run.STATUS_IDLE and not run.pause_requested
    assert len(calls) == 3 and run.cycle < 10
    _check(run, 0, "deployments-daemonsets")
    monkeypatch.setattr(run_engine.Engine, "execute_steps", real)
    enqueue(worker_here, run, RunAction.KIND_PLAY, {"to": "end"})  # and on to the end, in slices
    assert run.status == Run.STATUS_SETTLED
    assert placements(run) == simulated(run)
    _check(run, 0, "deployments-daemonsets")
