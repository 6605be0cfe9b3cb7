"""Fair workers, with a real Celery worker (one process, so any unfairness shows): one client's
plays do not hold the worker while another client waits for a Step. A play runs in slices and
yields when others wait (playground/services/runs/worker.py); a client's first waiting action
is served before the backlog of another (dispatch.action_priority)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from playground.launcher import stop_process_group
from playground.models import Run, RunAction, RunFrame
from playground.ownership import Actor
from playground.services import scenarios as scenario_service
from playground.services.runs import actions as svc
from tests.web.broker import switch_broker
from tests.web.services.runs.test_reliability_live import RedisServer, _start_worker
from tests.web.services.runs.test_runs_live import _many_pods_yaml, _wait

pytestmark = pytest.mark.live


@pytest.fixture
def own_redis(tmp_path: Path, live_logs_dir: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path, live_logs_dir)
    server.start()
    yield server
    server.stop()


@pytest.mark.parametrize("slice_seconds", ["0.5", "100000"])
def test_another_clients_step_is_served_while_plays_run(
    transactional_db: None, live_env: dict[str, str], own_redis: RedisServer, live_logs_dir: Path,
    settings: Any, slice_seconds: str,
) -> None:
    queue = f"runs-fair-{os.getpid()}"
    # A play gives its process to a client's waiting action between two of its steps, whatever
    # its slice (the turn plays take with each other): with slices of 100000 s, plays that took
    # turns only between slices made B's steps wait until both plays had ended.
    env = dict(live_env, REDIS_URL=own_redis.url, PLAYGROUND_RUNS_QUEUE=queue, PLAYGROUND_SWEEP_SECONDS="86400",
               PLAYGROUND_PLAY_SLICE_SECONDS=slice_seconds)
    settings.REDIS_URL = own_redis.url
    settings.PLAYGROUND_RUNS_QUEUE = queue
    settings.CELERY_BROKER_URL = own_redis.url
    from config.celery import app

    switch_broker(app, own_redis.url)
    a, b = Actor(session_token="fair-client-a"), Actor(session_token="fair-client-b")
    big = scenario_service.scenario_create(actor=a, name="big", yaml_text=_many_pods_yaml(nodes=40, pods=1500))
    small = scenario_service.scenario_create(actor=b, name="small", yaml_text=_many_pods_yaml(nodes=3, pods=20))
    plays_runs = [svc.run_start(scenario=big, actor=a) for _ in range(2)]
    other = svc.run_start(scenario=small, actor=b)
    worker, log_path = _start_worker(env, queue, "fair-worker", live_logs_dir, own_redis.url)  # solo: one process
    try:
        plays = [svc.run_enqueue(run=r, actor=a, kind=RunAction.KIND_PLAY) for r in plays_runs]

        def frames(run: Run) -> int:
            return RunFrame.objects.filter(run=run).count()

        # A's plays move (with short slices both, taking turns on the one process; with endless
        # slices the one holding the process), neither finishes soon.
        moved = all if slice_seconds == "0.5" else any
        _wait(lambda: moved(frames(r) > 30 for r in plays_runs), 90, "the plays to move")
        steps = [svc.run_enqueue(run=other, actor=b, kind=RunAction.KIND_STEP) for _ in range(3)]
        for step in steps:
            _wait(lambda s=step: RunAction.objects.get(pk=s.pk).state == RunAction.STATE_DONE, 60, "B's step")
            states = [RunAction.objects.get(pk=p.pk).state for p in plays]
            assert RunAction.STATE_DONE not in states, "B's step waited for A's plays to end"
        assert worker.poll() is None
        if slice_seconds == "0.5":  # the plays' later slices ran on the worker's lower-ranked thread
            main = os.getpriority(os.PRIO_PROCESS, worker.pid)
            threads = [os.getpriority(os.PRIO_PROCESS, int(t)) for t in os.listdir(f"/proc/{worker.pid}/task")]
            assert min(main + 10, 19) in threads and main < min(main + 10, 19), (main, threads)
        for run in plays_runs:
            svc.run_pause(run=run, actor=a)
        _wait(lambda: all(RunAction.objects.get(pk=p.pk).state == RunAction.STATE_DONE for p in plays), 60,
              "the plays to pause")
        assert other.frames.count() == 4
    finally:
        stop_process_group(worker)
        switch_broker(app, live_env["REDIS_URL"])
