"""A scenario of few objects with a long Timeline has its run start computed by a worker.

Only the scenario's objects used to count toward `PREPARE_MIN_OBJECTS`: one node, one pod and a
200,000-action Timeline counted as 3 objects, and every Start of it loaded the whole timeline in
the web request (17-33 s; bench/timeline_start.py measures the phases). A timeline's actions now
count with the objects (`prepare.start_weight`): the upload has a worker prepare the start, and
a start that finds none asks a worker and waits, computing nothing itself.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.timeline_start import timeline_yaml
from playground.launcher import stop_process_group
from playground.models import PreparedStart, RunFrame
from playground.ownership import Actor
from playground.services import scenarios as scenario_service
from playground.services.runs import actions, prepare
from playground.services.runs import actions as run_service
from playground.services.runs.prepare import PREPARE_MIN_OBJECTS
from tests.web.broker import switch_broker
from tests.web.services.runs.test_reliability_live import RedisServer, _start_worker

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


@pytest.fixture
def own_redis(tmp_path: Path, live_logs_dir: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path, live_logs_dir)
    server.start()
    yield server
    server.stop()


@pytest.mark.live
def test_a_long_timeline_start_is_computed_by_a_worker(
    transactional_db: None, live_env: dict[str, str], own_redis: RedisServer, live_logs_dir: Path, settings: Any,
    computed_here: list[int],
) -> None:
    """On a Redis and a worker of its own (its queue too): nothing another test left behind in the
    session's broker or queues decides where this test's tasks go."""
    from config.celery import app

    queue = f"runs-timeline-start-{os.getpid()}"
    env = dict(live_env, REDIS_URL=own_redis.url, PLAYGROUND_RUNS_QUEUE=queue, PLAYGROUND_SWEEP_SECONDS="86400")
    settings.REDIS_URL = own_redis.url
    settings.PLAYGROUND_RUNS_QUEUE = queue
    settings.CELERY_BROKER_URL = own_redis.url
    before = switch_broker(app, own_redis.url)
    worker, _ = _start_worker(env, queue, "timeline-start", live_logs_dir, own_redis.url)
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
        stop_process_group(worker)
        switch_broker(app, before)
