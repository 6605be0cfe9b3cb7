"""No run can hold a worker: a task past its time limit stops, says so on its run page, and the
same worker process serves the next task (playground/tasks/limits.py), with a real solo worker
(the pool `./dev run` uses, where Celery's own time limits do nothing).

The long action is a legitimate one: "let the clock run" an hour on 100 nodes whose 500 pods
fit none of them, while a Timeline cordons and uncordons a node every second. Each uncordon sends
every pod back through a scheduling cycle, so the action runs its 20,000 units: about 140 s of
CPU on this machine, where the limits here are a few seconds.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from playground.launcher import stop_process_group
from playground.models import Run, RunAction
from playground.ownership import SESSION_KEY, Actor
from playground.services import scenarios as scenario_service
from playground.services.runs import actions as svc
from playground.services.runs import errors as run_errors
from tests.web.broker import switch_broker
from tests.web.services.runs.test_reliability_live import RedisServer, _start_worker
from tests.web.services.runs.test_runs_live import _many_pods_yaml, _wait

pytestmark = pytest.mark.live

OWNER = Actor(session_token="time-limit-owner")


def long_clock_yaml(nodes: int = 100, pods: int = 500, actions: int = 200) -> str:
    """`nodes` nodes, `pods` pods too big for any of them, and a Timeline toggling n1's cordon."""
    docs = [f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i + 1}}}\n"
            "status: {capacity: {cpu: '4', memory: 16Gi, pods: '110'}}\n" for i in range(nodes)]
    docs += [f"apiVersion: v1\nkind: Pod\nmetadata: {{name: big{i + 1}}}\n"
             "spec: {containers: [{name: c, image: pause, resources: {requests: {cpu: '64'}}}]}\n"
             for i in range(pods)]
    lines = [f"- {{at: {i + 1}, action: {'uncordon' if i % 2 else 'cordon'}, node: n1}}" for i in range(actions)]
    docs.append("apiVersion: playground.kube-scheduler.dev/v1\nkind: Timeline\nactions:\n" + "\n".join(lines) + "\n")
    return "---\n".join(docs)


@pytest.fixture
def own_redis(tmp_path: Path, live_logs_dir: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path, live_logs_dir)
    server.start()
    yield server
    server.stop()


def _page(client: Any, run: Run) -> str:
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    return client.get(f"/runs/{run.share_token}/").content.decode()


@pytest.mark.parametrize(("soft", "hard", "setting", "kind", "pool"), [
    ("5", "60", "PLAYGROUND_TASK_SOFT_TIME_LIMIT", "soft", "solo"),
    ("0", "10", "PLAYGROUND_TASK_TIME_LIMIT", "hard", "solo"),  # no soft limit: only the hard one can stop it
    # The extender runs' worker uses the prefork pool: there the pool's child exits and is replaced.
    ("0", "10", "PLAYGROUND_TASK_TIME_LIMIT", "hard", "prefork"),
])
def test_an_action_past_the_time_limit_stops_and_the_worker_serves_the_next_task(
    transactional_db: None, live_env: dict[str, str], own_redis: RedisServer, live_logs_dir: Path,
    settings: Any, client: Any, soft: str, hard: str, setting: str, kind: str, pool: str,
) -> None:
    queue = f"runs-limits-{os.getpid()}"
    env = dict(live_env, REDIS_URL=own_redis.url, PLAYGROUND_RUNS_QUEUE=queue, PLAYGROUND_SWEEP_SECONDS="86400",
               PLAYGROUND_TASK_SOFT_TIME_LIMIT=soft, PLAYGROUND_TASK_TIME_LIMIT=hard)
    settings.REDIS_URL = own_redis.url
    settings.PLAYGROUND_RUNS_QUEUE = queue
    settings.CELERY_BROKER_URL = own_redis.url
    from config.celery import app

    switch_broker(app, own_redis.url)
    slow = svc.run_start(
        scenario=scenario_service.scenario_create(actor=OWNER, name="slow", yaml_text=long_clock_yaml()), actor=OWNER)
    other = svc.run_start(
        scenario=scenario_service.scenario_create(actor=OWNER, name="small", yaml_text=_many_pods_yaml(nodes=3, pods=5)),
        actor=OWNER)
    worker, log_path = _start_worker(env, queue, f"limits-{kind}-{pool}", live_logs_dir, own_redis.url, pool=pool)
    try:
        pid = worker.pid
        long = svc.run_enqueue(run=slow, actor=OWNER, kind=RunAction.KIND_ADVANCE_CLOCK, params={"seconds": 3600})
        _wait(lambda: RunAction.objects.get(pk=long.pk).state == RunAction.STATE_FAILED, 120,
              f"the long action to be stopped\n{log_path.read_text(errors='replace')[-3000:]}")
        result = RunAction.objects.get(pk=long.pk).result
        limit = soft if kind == "soft" else hard
        assert f"{limit} s" in result and setting in result, result
        slow.refresh_from_db()
        assert slow.head_step == 0  # nothing of the stopped action was kept
        html = _page(client, slow)
        assert 'id="run-action-error"' in html and setting in html

        step = svc.run_enqueue(run=other, actor=OWNER, kind=RunAction.KIND_STEP)
        _wait(lambda: RunAction.objects.get(pk=step.pk).state == RunAction.STATE_DONE, 120,
              f"the next task\n{log_path.read_text(errors='replace')[-3000:]}")
        assert worker.poll() is None and worker.pid == pid  # the same worker (its main process) served it
        # The stopped run works on: its next Step (a cycle, not the long action) is done.
        again = svc.run_enqueue(run=slow, actor=OWNER, kind=RunAction.KIND_STEP)
        _wait(lambda: RunAction.objects.get(pk=again.pk).state == RunAction.STATE_DONE, 120, "the slow run's Step")
        if kind == "hard":
            assert "restarting this worker process" in log_path.read_text(errors="replace")
    finally:
        stop_process_group(worker)
        switch_broker(app, live_env["REDIS_URL"])


def test_a_preparation_past_its_limit_fails_the_start_waiting_for_it(
    transactional_db: None, live_env: dict[str, str], own_redis: RedisServer, live_logs_dir: Path,
    settings: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A big start's preparation stopped by PLAYGROUND_PREPARE_SOFT_TIME_LIMIT makes the start
    that waits for it fail with that line: the web request does not compute it instead."""
    from bench.timeline_start import timeline_yaml
    from playground.services.runs import actions, prepare

    computed_here: list[int] = []
    real = prepare.compute_start
    monkeypatch.setattr(actions, "compute_start", lambda *a, **k: computed_here.append(1) or real(*a, **k))
    queue = f"runs-prepare-limit-{os.getpid()}"
    env = dict(live_env, REDIS_URL=own_redis.url, PLAYGROUND_RUNS_QUEUE=queue, PLAYGROUND_SWEEP_SECONDS="86400",
               PLAYGROUND_PREPARE_SOFT_TIME_LIMIT="1")
    settings.REDIS_URL = own_redis.url
    settings.PLAYGROUND_RUNS_QUEUE = queue
    from config.celery import app

    switch_broker(app, own_redis.url)
    worker, log_path = _start_worker(env, queue, "limits-prepare", live_logs_dir, own_redis.url)
    try:
        scenario = scenario_service.scenario_create(actor=OWNER, name="long timeline", yaml_text=timeline_yaml(200_000))
        with pytest.raises(run_errors.RunError) as refused:
            svc.run_start(scenario=scenario, actor=OWNER)
        assert "could not be prepared" in str(refused.value) and "PLAYGROUND_PREPARE_SOFT_TIME_LIMIT" in str(
            refused.value), str(refused.value)
        assert computed_here == []
        assert worker.poll() is None
    finally:
        stop_process_group(worker)
        switch_broker(app, live_env["REDIS_URL"])
