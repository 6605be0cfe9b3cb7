"""A scenario of few objects with a long Timeline has its run start computed by a worker.

Only the scenario's objects used to count toward `PREPARE_MIN_OBJECTS`: one node, one pod and a
200,000-action Timeline counted as 3 objects, and every Start of it loaded the whole timeline in
the web request (17-33 s; bench/timeline_start.py measures the phases). A timeline's actions now
count with the objects (`prepare.start_weight`): the upload has a worker prepare the start, and
a start that finds none asks a worker and waits, computing nothing itself.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from bench.timeline_start import timeline_yaml
from playground.models import PreparedStart, RunFrame
from playground.ownership import Actor
from playground.services import runs as run_service
from playground.services import scenarios as scenario_service
from playground.services.runs import actions, prepare
from playground.services.scenarios import PREPARE_MIN_OBJECTS

pytestmark = [pytest.mark.django_db]

ACTIONS = 20 * PREPARE_MIN_OBJECTS


@pytest.fixture
def computed_here(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The starts computed in this process (the web's part), by seed."""
    calls: list[int] = []
    real = prepare.compute_start

    def counted(text: str, seed: int, version: str, gates: str = "") -> Any:
        calls.append(seed)
        return real(text, seed, version, gates)

    monkeypatch.setattr(actions, "compute_start", counted)
    monkeypatch.setattr(prepare, "compute_start", counted)
    return calls


@pytest.mark.postgres  # the count is SQL of each database's own JSON functions
def test_timeline_actions_count_toward_the_weight(db: None) -> None:
    owner = Actor(session_token="timeline-weight")
    scenario = scenario_service.scenario_create(actor=owner, name="t", yaml_text=timeline_yaml(1500))
    assert scenario.kube_objects.count() == 3  # a node, a pod, the Timeline document
    assert prepare.start_weight(scenario.pk) == 3 + 1500


@pytest.mark.live
def test_a_long_timeline_start_is_computed_by_a_worker(
    transactional_db: None, celery_worker: Any, redis_url: str, settings: Any, computed_here: list[int]
) -> None:
    from config.celery import app

    settings.REDIS_URL = redis_url
    before = app.conf.broker_url
    app.conf.broker_url = redis_url
    try:
        owner = Actor(session_token="timeline-owner")
        scenario = scenario_service.scenario_create(actor=owner, name="long timeline",
                                                    yaml_text=timeline_yaml(ACTIONS))
        assert scenario.kube_objects.count() < PREPARE_MIN_OBJECTS
        deadline = time.monotonic() + 180
        while not PreparedStart.objects.filter(scenario=scenario).exists():  # the upload's preparation
            assert time.monotonic() < deadline, "no worker prepared the long timeline's start"
            time.sleep(0.2)
        PreparedStart.objects.all().delete()  # gone: the start has to ask a worker for it
        run = run_service.run_start(scenario=scenario, actor=owner)
        assert computed_here == []  # the request computed nothing: the worker did
        assert run.head_step == 0 and RunFrame.objects.filter(run=run).count() == 1
        kept = PreparedStart.objects.get(scenario=scenario)
        assert bytes(run.checkpoints.get(step=0).blob) == bytes(kept.checkpoint)
    finally:
        app.conf.broker_url = before
