"""The worker's live engines (services.runs.cache) and compact frames (frame_views): a step reuses
the engine, a stale engine is rebuilt from the log, and every frame's view reads back exactly."""

from __future__ import annotations

from typing import Any

import pytest

from playground import frame_views, keyframe_rule
from playground.models import Run, RunAction
from playground.selectors import frame_views as view_selector
from playground.services.runs import actions as svc
from playground.services.runs import dispatch
from playground.services.runs import engine as run_engine
from playground.services.runs import worker as run_worker
from playground.services.runs.cache import EngineCache
from tests.web.services.runs.test_runs_services import OWNER, gallery_scenario

pytestmark = pytest.mark.django_db


@pytest.fixture
def workers(
    monkeypatch: pytest.MonkeyPatch,
    redis_url: str,
    settings: Any,
    channel_layer: Any,
    django_capture_on_commit_callbacks: Any,
) -> dict[str, Any]:
    """Queued actions run at once in this process, by the worker named in `state["worker"]`
    (each worker is its own EngineCache, as two worker processes would be)."""
    settings.REDIS_URL = redis_url
    state: dict[str, Any] = {"caches": {"a": EngineCache(4), "b": EngineCache(4)}, "worker": "a"}

    def schedule(run_id: int, index: int, **_: object) -> None:
        run_worker.advance_run(run_id, cache=state["caches"][state["worker"]])

    monkeypatch.setattr(dispatch, "schedule", schedule)
    state["capture"] = django_capture_on_commit_callbacks
    return state


ACTIONS: list[tuple[str, dict | None]] = [
    (RunAction.KIND_STEP, None),
    (RunAction.KIND_STEP, None),
    (RunAction.KIND_CLUSTER, {"action": "cordon", "node": "n-001"}),
    (RunAction.KIND_STEP, None),
    (RunAction.KIND_ADVANCE_CLOCK, None),
    (RunAction.KIND_STEP, None),
    (RunAction.KIND_PLAY, None),
]


def _drive(workers: dict[str, Any], names: list[str]) -> Run:
    run = svc.run_start(scenario=gallery_scenario("percentage-of-nodes-to-score"), actor=OWNER)
    for (kind, params), name in zip(ACTIONS, names, strict=True):
        workers["worker"] = name
        with workers["capture"](execute=True):
            svc.run_enqueue(run=run, actor=OWNER, kind=kind, params=params)
    run.refresh_from_db()
    return run


def _log(run: Run) -> dict[str, Any]:
    view_selector.clear_cache()
    frames = [
        (
            f.step,
            f.unit,
            f.result,
            f.cycle,
            f.clock,
            f.first_seq,
            f.last_seq,
            view_selector.view_at(run=run, step=f.step),
        )
        for f in run.frames.order_by("step")
    ]
    events = list(run.events.order_by("seq").values_list("data", flat=True))
    return {"frames": frames, "events": events, "head": (run.head_step, run.last_seq, run.status)}


def test_one_worker_keeps_its_engine_between_actions(workers: dict[str, Any]) -> None:
    run = _drive(workers, ["a"] * len(ACTIONS))
    cache = workers["caches"]["a"]
    assert run.status == Run.STATUS_SETTLED and run.head_step > len(ACTIONS)  # the play took several steps
    assert cache.rebuilds == 1 and cache.stale == 0  # built once, on the first step
    assert cache.hits == len(ACTIONS) - 1 and run.pk in cache


def test_two_workers_taking_turns_give_the_log_one_worker_gives(workers: dict[str, Any]) -> None:
    alone = _log(_drive(workers, ["a"] * len(ACTIONS)))
    workers["caches"] = {"a": EngineCache(4), "b": EngineCache(4)}
    turns = ["a", "b"] * 4
    shared = _log(_drive(workers, turns[: len(ACTIONS)]))
    a, b = workers["caches"]["a"], workers["caches"]["b"]
    assert a.stale >= 2 and b.stale >= 1  # each found its engine overtaken by the other and rebuilt it
    assert shared["head"] == alone["head"]
    assert shared["events"] == [dict(e) for e in alone["events"]]
    assert shared["frames"] == alone["frames"]


def test_least_recently_used_engine_is_evicted() -> None:
    cache = EngineCache(1)

    class FakeEngine:
        def __init__(self, run_id: int) -> None:
            self.run_id = run_id

    cache.put(FakeEngine(1))  # type: ignore[arg-type]
    cache.put(FakeEngine(2))  # type: ignore[arg-type]
    assert 2 in cache and 1 not in cache and len(cache) == 1


def test_frames_store_deltas_and_read_back_the_engine_view(
    workers: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(frame_views, "KEYFRAME_EVERY", 3)
    monkeypatch.setattr(keyframe_rule, "KEYFRAME_MAX", 5)
    run = _drive(workers, ["a"] * len(ACTIONS))
    stored = dict(run.frames.values_list("step", "view"))
    keys = [s for s in sorted(stored) if not frame_views.is_delta(stored[s])]
    # Keyframes 3 to 5 frames apart (by their size, at most KEYFRAME_MAX): chains of deltas to read.
    assert keys[0] == 0 and len(keys) > 1 and all(3 <= b - a <= 5 for a, b in zip(keys, keys[1:], strict=False))
    # The same units on a fresh engine, view by view, against what the selector puts together.
    sim = run_engine.load_simulation(run.scenario_yaml, run.seed)
    sim.sink.events = []
    expected = {0: frame_views.compact_view(run_engine.engine_view(sim))}
    for frame in run.frames.filter(step__gt=0).order_by("step"):
        run_engine.apply_unit(sim, frame.unit)
        sim.sink.events = []
        expected[frame.step] = frame_views.compact_view(run_engine.engine_view(sim))
    for step in sorted(expected, reverse=True):  # newest first: each read walks back to a keyframe
        view_selector.clear_cache()
        assert view_selector.view_at(run=run, step=step) == expected[step], step
    # A viewer that saw an earlier step (cached) and now asks for a later one: only the frames
    # after the cached view are applied to it, across keyframes or not.
    steps = sorted(expected)
    for seen in steps:
        for later in (s for s in steps if s > seen + 1):
            view_selector.clear_cache()
            view_selector.view_at(run=run, step=seen)
            assert view_selector.view_at(run=run, step=later) == expected[later], (seen, later)


def test_a_delta_is_small_next_to_the_view() -> None:
    nodes = [{"name": f"n{i}", "labels": {"zone": "a"}, "pods": []} for i in range(1000)]
    before = {"clock": 0.0, "nodes": nodes, "pods": [], "queues": {}}
    after = {**before, "clock": 1.0, "nodes": [dict(n, pods=["p"]) if n["name"] == "n7" else n for n in nodes]}
    delta = frame_views.diff(before, after, base=4)
    assert delta["delta"] == 4 and list(delta["nodes"]) == ["n7"] and "nodesOrder" not in delta
    assert frame_views.apply(before, delta) == after
    added = {**after, "nodes": [*after["nodes"], {"name": "new", "labels": {}, "pods": []}]}
    delta = frame_views.diff(after, added, base=5)
    assert list(delta["nodes"]) == ["new"] and len(delta["nodesOrder"]) == 1001
    assert frame_views.apply(after, delta) == added


def test_checkpoints_are_sparser_for_big_clusters(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_engine, "CHECKPOINT_EVERY", 20)
    assert run_engine.checkpoint_interval(4) == 20
    assert run_engine.checkpoint_interval(5000) == 220


def test_engines_weighing_enough_together_are_frozen_out_of_the_collectors_sight(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A cache whose engines together weigh FREEZE_WEIGHT (nodes + pods) freezes them (a full
    collection would walk them all, a quarter second for a dozen 100-node x 1,000-pod engines);
    an engine leaving thaws them, so its reference cycles can be collected."""
    import gc

    from playground.services.runs import cache as cache_module

    scenario = gallery_scenario("priority-preemption")
    runs = [svc.run_start(scenario=scenario, actor=OWNER) for _ in range(2)]
    cache = EngineCache(4, freeze_gc=True)
    gc.unfreeze()
    try:
        first = cache.get(runs[0])
        monkeypatch.setattr(cache_module, "FREEZE_WEIGHT", cache.weight_held() + 1)  # two engines' worth
        assert gc.get_freeze_count() == 0
        cache.get(runs[1])
        assert cache.weight_held() >= cache_module.FREEZE_WEIGHT and gc.get_freeze_count() > 0
        cache.drop(first.run_id)
        assert gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()
