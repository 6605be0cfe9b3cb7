"""A started run's engine is built ahead of its first Step at a lower CPU priority, so the
run page its owner is loading at that moment is served first (services.runs.background)."""

from __future__ import annotations

from typing import Any

import pytest

from playground.models import Run
from playground.services import runs as svc
from playground.services.runs import dispatch
from playground.services.runs import engine as run_engine
from playground.services.runs.background import BACKGROUND_NICE, run_in_background, thread_nice
from playground.services.runs.cache import EngineCache
from tests.web.test_runs_services import OWNER, gallery_scenario


def test_background_work_runs_at_a_lower_priority_and_hands_back_its_result() -> None:
    before = thread_nice()
    assert run_in_background(thread_nice) == min(19, before + BACKGROUND_NICE)
    assert thread_nice() == before  # the caller's own priority is untouched

    def fails() -> None:
        raise ValueError("bad checkpoint")

    with pytest.raises(ValueError, match="bad checkpoint"):
        run_in_background(fails)


@pytest.mark.django_db(transaction=True)  # the warm-up reads the run from its own thread's connection
def test_the_warm_up_builds_the_engine_in_the_background(
    monkeypatch: pytest.MonkeyPatch, redis_url: str, settings: Any, channel_layer: Any
) -> None:
    settings.REDIS_URL = redis_url
    monkeypatch.setattr(dispatch, "schedule", lambda run_id, index: None)  # no worker: called below
    run = svc.run_start(scenario=gallery_scenario("percentage-of-nodes-to-score"), actor=OWNER)
    seen: list[int] = []
    rebuild = run_engine.Engine.rebuild.__func__

    def watched(cls: type, run: Run) -> Any:
        seen.append(thread_nice())
        return rebuild(cls, run)

    monkeypatch.setattr(run_engine.Engine, "rebuild", classmethod(watched))
    cache = EngineCache(2)
    assert svc.advance_run(run.pk, cache=cache, warm=True) == 0  # nothing to execute, engine built
    assert run.pk in cache and cache.rebuilds == 1
    assert seen == [min(19, thread_nice() + BACKGROUND_NICE)]
