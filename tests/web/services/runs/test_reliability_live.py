"""Faults during a run, with real processes: Redis restarted under a working worker, a worker's
pool process SIGKILLed mid-play. The run finishes by itself and its stored events equal a
headless run of the same scenario and seed (each once, in order)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from playground.launcher import celery_worker_argv, find_redis_server, free_port, redis_ping, spawn, stop_process_group
from playground.models import Run, RunAction, RunFrame
from playground.ownership import Actor
from playground.services import scenarios as scenario_service
from playground.services.runs import actions as svc
from playground.services.runs import dispatch
from playground.services.runs import dispatch as run_dispatch
from playground.services.runs import engine as run_engine
from tests.web.services.runs.test_runs_live import _many_pods_yaml, _wait

pytestmark = pytest.mark.live

OUTAGE = float(os.environ.get("RELIABILITY_REDIS_OUTAGE", "6"))  # seconds Redis is down


class RedisServer:
    """A redis-server on a fixed port that a test can stop and start again."""

    def __init__(self, data_dir: Path, log_dir: Path) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.data_dir, self.log_dir = data_dir, log_dir
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        log = (self.log_dir / f"redis-{self.port}-{self.starts}.log").open("wb")
        argv = [find_redis_server(), "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", str(self.data_dir)]
        self.process = spawn(argv, output=log)
        _wait(lambda: redis_ping(self.url), 20, "redis-server")

    def stop(self) -> None:
        if self.process is not None:
            stop_process_group(self.process)
            self.process = None

    def kill(self) -> None:
        """SIGKILL: no goodbye to the clients, as when a machine or container dies."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


@pytest.fixture
def own_redis(tmp_path: Path, live_logs_dir: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path, live_logs_dir)
    server.start()
    yield server
    server.stop()


def _start_worker(env: dict[str, str], queue: str, name: str, log_dir: Path, redis_url: str,
                  pool: str = "solo", concurrency: int = 1) -> tuple[Any, Path]:
    from celery import Celery

    hostname = f"{name}-{os.getpid()}@localhost"
    log_path = log_dir / f"{name}.log"
    argv = celery_worker_argv(pool=pool, hostname=hostname, queues=(queue,))
    if pool == "prefork":
        argv.append(f"--concurrency={concurrency}")
    process = spawn(argv, env=env, output=log_path.open("wb"))
    probe = Celery("probe", broker=redis_url)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert process.poll() is None, log_path.read_text()
            if probe.control.ping(destination=[hostname], timeout=0.5):
                return process, log_path
        raise AssertionError(f"worker {name} did not start")
    finally:
        probe.close()


def _playing_run(settings: Any, monkeypatch: pytest.MonkeyPatch, redis_url: str, queue: str,
                 owner: Actor, pods: int = 40) -> tuple[Run, Any]:
    from celery import Celery

    settings.REDIS_URL = redis_url
    sender = Celery("sender", broker=redis_url)
    monkeypatch.setattr(
        dispatch, "schedule",
        lambda run_id, index, **_: sender.send_task("playground.advance_run", args=(run_id, index), queue=queue),
    )
    scenario = scenario_service.scenario_create(actor=owner, name="many pods", yaml_text=_many_pods_yaml(pods=pods))
    run = svc.run_start(scenario=scenario, actor=owner)
    Run.objects.filter(pk=run.pk).update(speed=10.0)  # 10 steps/s: the play lasts several seconds
    return run, sender


def _assert_complete_and_equal_to_headless(run: Run) -> None:
    run.refresh_from_db()
    assert run.status == Run.STATUS_SETTLED
    stored = list(run.events.order_by("seq").values_list("data", flat=True))
    assert [e["seq"] for e in stored] == list(range(1, len(stored) + 1))  # no gap, no duplicate
    sim = run_engine.load_simulation(run.scenario_yaml, run.seed)
    sim.run(run.max_time)
    assert stored == sim.sink.events
    steps = list(RunFrame.objects.filter(run=run).order_by("step").values_list("step", flat=True))
    assert steps == list(range(0, run.head_step + 1))


def test_the_worker_survives_a_redis_restart_mid_play(
    transactional_db: None, live_env: dict[str, str], own_redis: RedisServer, live_logs_dir: Path,
    settings: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Redis stopped (SIGTERM, a long outage) and killed (SIGKILL, restarted at once, twice) under
    a prefork worker that is executing a play (its message unacknowledged: the case that used to
    end the worker with "AttributeError: 'NoneType' object has no attribute 'hostname'"). The
    same worker process (same PID) finishes the play by itself, every event once."""
    queue = f"runs-redis-{os.getpid()}"
    env = dict(live_env, REDIS_URL=own_redis.url, PLAYGROUND_RUNS_QUEUE=queue, PLAYGROUND_SWEEP_SECONDS="2")
    owner = Actor(session_token="redis-owner")
    run, sender = _playing_run(settings, monkeypatch, own_redis.url, queue, owner, pods=120)
    worker, log_path = _start_worker(env, queue, "redis-restart-worker", live_logs_dir, own_redis.url,
                                     pool="prefork", concurrency=2)  # as ./dev run starts it on 2 cores
    pid = worker.pid

    def connections() -> int:
        return log_path.read_text(errors="replace").count("Connected to ")

    try:
        play = svc.run_enqueue(run=run, actor=owner, kind=RunAction.KIND_PLAY)
        frames = 8
        for outage, kill in ((0.3, True), (OUTAGE, False), (0.3, True)):
            _wait(lambda f=frames: RunFrame.objects.filter(run=run).count() >= f, 60, "the play to move")
            assert RunAction.objects.get(pk=play.pk).state == RunAction.STATE_RUNNING, "the play ended too soon"
            connected = connections()
            own_redis.kill() if kill else own_redis.stop()
            time.sleep(outage)  # the worker notices: its connection, the lock, the notifications fail
            own_redis.start()  # empty: no queue, no lock, nothing remembered
            # The same worker reconnects (a worker that crashed on the way would shut down instead).
            _wait(lambda c=connected: connections() > c or "Unrecoverable" in log_path.read_text(), 60,
                  "the worker to reconnect")
            assert "Unrecoverable error" not in log_path.read_text(), log_path.read_text()[-3000:]
            frames = RunFrame.objects.filter(run=run).count() + 8  # it moves on after the restart
        _wait(lambda: RunAction.objects.get(pk=play.pk).state == RunAction.STATE_DONE, 120,
              "the play to finish after the restarts")
        assert worker.poll() is None and worker.pid == pid, "the worker exited:\n" + log_path.read_text()[-3000:]
        assert "Unrecoverable error" not in log_path.read_text()
    finally:
        stop_process_group(worker)
        sender.close()
    _assert_complete_and_equal_to_headless(run)


def _pool_children(pid: int) -> list[int]:
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    children.append(int(entry.name))
            except OSError:
                continue
    return children


def test_a_pool_process_killed_mid_play_is_recovered_without_a_new_action(
    transactional_db: None, live_env: dict[str, str], own_redis: RedisServer, live_logs_dir: Path,
    settings: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The issue's case: the worker's main process lives on, its busy pool process is SIGKILLed
    (its task is lost). Nobody presses anything: the worker's sweeper re-queues the run once its
    lock expires, and the play finishes with every event once, in order."""
    queue = f"runs-poolkill-{os.getpid()}"
    env = dict(live_env, REDIS_URL=own_redis.url, PLAYGROUND_RUNS_QUEUE=queue, PLAYGROUND_RUN_LOCK_TTL="2",
               PLAYGROUND_SWEEP_SECONDS="2")
    owner = Actor(session_token="poolkill-owner")
    run, sender = _playing_run(settings, monkeypatch, own_redis.url, queue, owner)
    worker, log_path = _start_worker(env, queue, "poolkill-worker", live_logs_dir, own_redis.url, pool="prefork")
    try:
        play = svc.run_enqueue(run=run, actor=owner, kind=RunAction.KIND_PLAY)
        _wait(lambda: RunFrame.objects.filter(run=run).count() >= 8, 30, "the play to get going")
        (child,) = _pool_children(worker.pid)
        os.kill(child, signal.SIGKILL)
        at_kill = RunFrame.objects.filter(run=run).count()
        assert RunAction.objects.get(pk=play.pk).state == RunAction.STATE_RUNNING and at_kill < 45
        _wait(lambda: RunAction.objects.get(pk=play.pk).state == RunAction.STATE_DONE, 120,
              "the play to finish by itself")
        assert worker.poll() is None
        assert "queueing it again" in log_path.read_text()
    finally:
        stop_process_group(worker)
        sender.close()
    _assert_complete_and_equal_to_headless(run)


def test_a_run_stuck_on_a_silent_extender_does_not_delay_another_run(
    transactional_db: None, live_env: dict[str, str], own_redis: RedisServer, live_logs_dir: Path,
    settings: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two workers as ./dev run starts them (the runs queue, the extender queue). A run whose
    extender accepts connections and never answers plays on the extender worker, bounded by the
    time budget; meanwhile another user's run steps at once on the other worker."""
    import socket

    from celery import Celery

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(50)
    silent_url = f"http://127.0.0.1:{silent.getsockname()[1]}"
    queue = f"runs-starve-{os.getpid()}"
    env = dict(live_env, REDIS_URL=own_redis.url, PLAYGROUND_RUNS_QUEUE=queue, EXTENDER_ALLOWED_URLS=silent_url + "/",
               EXTENDER_TIME_BUDGET="4", PLAYGROUND_SWEEP_SECONDS="86400")  # no sweeps of other tests' runs
    settings.REDIS_URL = own_redis.url
    settings.PLAYGROUND_RUNS_QUEUE = queue
    settings.EXTENDER_ALLOWED_URLS = [silent_url + "/"]
    sender = Celery("sender", broker=own_redis.url)
    monkeypatch.setattr(dispatch, "schedule", lambda run_id, index, **_: sender.send_task(
        "playground.advance_run", args=(run_id, index), queue=run_dispatch.queue_for(run_id)))
    slow_owner, other = Actor(session_token="slow-owner"), Actor(session_token="other-user")
    extender_yaml = (
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nextenders:\n"
        f"- urlPrefix: {silent_url}\n  filterVerb: filter\n  httpTimeout: 5s\n---\n" + _many_pods_yaml(pods=20)
    )
    slow = svc.run_start(scenario=scenario_service.scenario_create(
        actor=slow_owner, name="silent extender", yaml_text=extender_yaml), actor=slow_owner)
    fast = svc.run_start(scenario=scenario_service.scenario_create(
        actor=other, name="plain", yaml_text=_many_pods_yaml(pods=5)), actor=other)
    assert run_dispatch.queue_for(slow.pk) == f"{queue}.extenders" and run_dispatch.queue_for(fast.pk) == queue
    runs_worker, _ = _start_worker(env, queue, "starve-runs-worker", live_logs_dir, own_redis.url)
    ext_worker, _ = _start_worker(env, f"{queue}.extenders", "starve-ext-worker", live_logs_dir, own_redis.url)
    try:
        play = svc.run_enqueue(run=slow, actor=slow_owner, kind=RunAction.KIND_PLAY)
        _wait(lambda: RunAction.objects.get(pk=play.pk).state == RunAction.STATE_RUNNING, 30, "the slow play")
        started = time.monotonic()
        step = svc.run_enqueue(run=fast, actor=other, kind=RunAction.KIND_STEP)
        _wait(lambda: RunAction.objects.get(pk=step.pk).state == RunAction.STATE_DONE, 30, "the other run's step")
        waited = time.monotonic() - started
        assert waited < 3.0, waited  # not behind the 5 s extender timeouts
        assert RunAction.objects.get(pk=play.pk).state == RunAction.STATE_RUNNING  # still waiting on it
        # The budget bounds the slow play: after 4 s its extender calls fail at once (20 pods x 5 s
        # would hold the worker 100 s per round), so it keeps moving and a pause is honoured.
        def budget_errors() -> list[dict[str, Any]]:
            calls = slow.events.filter(type="extender_call").order_by("seq").values_list("data", flat=True)
            return [c for c in calls if "time budget" in (c.get("error") or "")]

        _wait(lambda: len(budget_errors()) >= 5, 30, "the budget to be spent")
        first, *spent = budget_errors()  # the call that ran out of budget waited; none after it
        assert first["latency_ms"] < 5000 and all(c["latency_ms"] < 100 for c in spent), [first, *spent]
        svc.run_pause(run=slow, actor=slow_owner)
        _wait(lambda: RunAction.objects.get(pk=play.pk).state == RunAction.STATE_DONE, 30, "the pause")
    finally:
        stop_process_group(runs_worker)
        stop_process_group(ext_worker)
        sender.close()
        silent.close()


def _start_web(env: dict[str, str], log_dir: Path, name: str) -> tuple[Any, str]:
    from playground.launcher import http_ok, web_server_argv

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    process = spawn(web_server_argv("127.0.0.1", port), env=dict(env, WEB_PROCESSES="1"),
                    output=(log_dir / f"{name}.log").open("wb"))
    _wait(lambda: process.poll() is not None or http_ok(url + "/"), 60, "the web server")
    assert process.poll() is None, (log_dir / f"{name}.log").read_text()
    return process, url


def _socket_messages(url: str, token: str, seconds: float, *, until: str = "") -> list[tuple[float, str]]:
    """Open the run page's websocket (a real client, as a browser does), say hello, and collect
    what arrives for `seconds` (or until a message contains `until`): (arrival time, text)."""
    import asyncio

    import websockets

    async def collect() -> list[tuple[float, str]]:
        got: list[tuple[float, str]] = []
        ws_url = url.replace("http://", "ws://") + f"/ws/runs/{token}/"
        async with websockets.connect(ws_url, origin=url, open_timeout=10, max_size=None) as socket:
            await socket.send('{"seen": 0, "step": "", "cycle": ""}')
            deadline = time.monotonic() + seconds
            while (left := deadline - time.monotonic()) > 0:
                try:
                    text = await asyncio.wait_for(socket.recv(), left)
                except TimeoutError:
                    break
                got.append((time.monotonic(), str(text)))
                if until and until in str(text):
                    break
        return got

    # In a thread of its own: a browser test earlier in the session may leave an event loop
    # running in this one (Playwright's sync API), and asyncio.run refuses to nest.
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, collect()).result()


def test_a_dead_worker_shows_recovering_and_the_socket_survives_a_redis_restart(
    transactional_db: None, live_env: dict[str, str], own_redis: RedisServer, live_logs_dir: Path,
    settings: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The run page's view, through a real websocket client against the real web server:
    the pool process playing a run is SIGKILLed; within 2 s the page is told "recovering" (not
    "playing"); nobody acts, and the run resumes and finishes on the same worker (its main
    process is never restarted). Then Redis is killed and restarted: every websocket opened
    afterwards is accepted (none answers HTTP 500) and gets the run's panels."""
    import websockets

    queue = f"runs-recover-{os.getpid()}"
    env = dict(live_env, REDIS_URL=own_redis.url, PLAYGROUND_RUNS_QUEUE=queue, PLAYGROUND_SWEEP_SECONDS="86400")
    owner = Actor(session_token="recover-owner")
    run, sender = _playing_run(settings, monkeypatch, own_redis.url, queue, owner, pods=80)
    worker, log_path = _start_worker(env, queue, "recover-worker", live_logs_dir, own_redis.url, pool="prefork")
    web, url = _start_web(env, live_logs_dir, "recover-web")
    try:
        play = svc.run_enqueue(run=run, actor=owner, kind=RunAction.KIND_PLAY)
        _wait(lambda: RunFrame.objects.filter(run=run).count() >= 8, 30, "the play to get going")
        assert "playing" in _socket_messages(url, run.share_token, 3, until="playing")[-1][1]
        (child,) = _pool_children(worker.pid)
        os.kill(child, signal.SIGKILL)
        killed_at = time.monotonic()
        assert RunAction.objects.get(pk=play.pk).state == RunAction.STATE_RUNNING
        seen = _socket_messages(url, run.share_token, 4, until=">recovering<")
        told = [at for at, text in seen if ">recovering<" in text]
        assert told, [text[:300] for _, text in seen]
        print(f"recovering shown {told[0] - killed_at:.2f} s after the kill")
        assert told[0] - killed_at < 2.0, told[0] - killed_at
        _wait(lambda: RunAction.objects.get(pk=play.pk).state == RunAction.STATE_DONE, 120,
              "the play to finish by itself")
        assert worker.poll() is None

        own_redis.kill()
        time.sleep(0.5)
        own_redis.start()
        for _ in range(5):  # each a new connection; none may be refused
            try:
                messages = _socket_messages(url, run.share_token, 5, until="run-status")
            except websockets.exceptions.InvalidStatus as error:
                raise AssertionError(f"the websocket was refused after the restart: {error}") from None
            assert any("run-status" in text for _, text in messages)
    finally:
        stop_process_group(web)
        stop_process_group(worker)
        sender.close()
    _assert_complete_and_equal_to_headless(run)
