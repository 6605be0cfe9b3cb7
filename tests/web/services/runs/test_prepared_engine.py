"""The engine a worker computed for a scenario's prepared start is handed to the run started
from it (services/runs/prepared_engine.py): the run's warm-up restores no checkpoint, its worker
is the run's home, and the run goes on exactly as one whose engine was restored."""

from __future__ import annotations

from typing import Any

import pytest

from playground.models import RunAction
from playground.services.runs import actions as svc
from playground.services.runs import dispatch, fleet, prepare, prepared_engine
from playground.services.runs import worker as run_worker
from playground.services.runs.cache import EngineCache
from playground.services.runs.engine import Engine
from tests.web.services.runs.test_runs_services import OWNER, gallery_scenario

pytestmark = [pytest.mark.django_db]

HOME = "home.prepared-engine-test"


@pytest.fixture
def redis(redis_url: str, settings: Any, channel_layer: Any) -> Any:
    settings.REDIS_URL = redis_url
    prepared_engine.clear()
    yield
    prepared_engine.clear()


def _steps(run: Any, cache: EngineCache, count: int, monkeypatch: pytest.MonkeyPatch, capture: Any) -> list[dict]:
    monkeypatch.setattr(dispatch, "schedule", lambda run_id, index, **_: run_worker.advance_run(run_id, cache=cache))
    for _ in range(count):
        with capture(execute=True):
            svc.run_enqueue(run=run, actor=OWNER, kind=RunAction.KIND_STEP)
    run.refresh_from_db()
    return [{k: v for k, v in e.items()} for e in run.events.order_by("seq").values_list("data", flat=True)]


def test_the_prepared_engine_is_the_runs_and_steps_as_a_restored_one(
    redis: None, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    scenario = gallery_scenario("priority-preemption")
    prepare.prepare_start(scenario=scenario, home=HOME)  # what the worker's task does
    adopted_run = svc.run_start(scenario=scenario, actor=OWNER)
    from playground.infra import redis_client

    assert redis_client.shared().get(fleet._home_key(adopted_run.pk)) == HOME.encode()  # warmed where it is

    cache = EngineCache()
    real_rebuild = Engine.rebuild
    monkeypatch.setattr(Engine, "rebuild", classmethod(lambda cls, run: pytest.fail("the engine was rebuilt")))
    engine = cache.get(adopted_run)
    assert engine.run_id == adopted_run.pk and engine.token == adopted_run.share_token and not engine.dirty
    adopted = _steps(adopted_run, cache, 4, monkeypatch, django_capture_on_commit_callbacks)
    assert cache.rebuilds == 1 and cache.hits >= 4  # the one "rebuild" was the hand-over

    monkeypatch.setattr(Engine, "rebuild", real_rebuild)
    restored_run = svc.run_start(scenario=scenario, actor=OWNER)  # the same prepared start, no engine kept now
    restored = _steps(restored_run, EngineCache(), 4, monkeypatch, django_capture_on_commit_callbacks)
    assert adopted_run.head_step == restored_run.head_step == 4
    assert adopted == restored


def test_a_kept_engine_serves_only_its_own_start(
    redis: None, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    scenario = gallery_scenario("priority-preemption")
    prepare.prepare_start(scenario=scenario, home=HOME)
    other = svc.run_start(scenario=gallery_scenario("percentage-of-nodes-to-score"), actor=OWNER)
    assert prepared_engine.adopt(other) is None  # another content: rebuilt as before
    run = svc.run_start(scenario=scenario, actor=OWNER)
    _steps(run, EngineCache(), 1, monkeypatch, django_capture_on_commit_callbacks)
    run.refresh_from_db()
    assert run.head_step == 1 and prepared_engine.adopt(run) is None  # handed over once, to its own start
