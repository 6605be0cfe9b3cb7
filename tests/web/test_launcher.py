"""`./dev run`'s launcher: the whole stack comes up, serves pages, and Ctrl-C leaves nothing behind."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from playground.launcher import free_port

pytestmark = pytest.mark.live

ROOT = Path(__file__).resolve().parents[2]


def descendants(pid: int) -> set[int]:
    """Every live process below `pid`, read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_launcher_runs_the_stack_and_ctrl_c_stops_all_of_it(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "DEBUG", "DJANGO_ENV"}}
    env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", PYTHONUNBUFFERED="1")
    log_path = tmp_path / "launcher.log"
    with log_path.open("wb") as log:
        launcher = subprocess.Popen(
            [sys.executable, "-m", "playground.launcher", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 90
        while f"running at {url}" not in log_path.read_text(errors="replace"):
            assert launcher.poll() is None, log_path.read_text(errors="replace")
            assert time.monotonic() < deadline, log_path.read_text(errors="replace")
            time.sleep(0.2)

        with urllib.request.urlopen(url + "diagnostics/", timeout=10) as response:
            assert response.status == 200
        children = descendants(launcher.pid)
        assert len(children) >= 3  # redis-server, celery worker, web server

        launcher.send_signal(signal.SIGINT)
        assert launcher.wait(timeout=60) == 0
        time.sleep(0.2)
        assert [pid for pid in children if alive(pid)] == []
    finally:
        if launcher.poll() is None:  # the test failed early: SIGTERM also stops the children
            launcher.terminate()
            try:
                launcher.wait(timeout=60)
            except subprocess.TimeoutExpired:
                launcher.kill()
                launcher.wait()


def _launch(tmp_path: Path, *args: str) -> tuple[subprocess.Popen[bytes], Path]:
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "DEBUG", "DJANGO_ENV", "PORT"}}
    env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", PYTHONUNBUFFERED="1")
    log_path = tmp_path / "launcher.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen([sys.executable, "-m", "playground.launcher", *args], cwd=ROOT, env=env,
                                   stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    return process, log_path


def _wait_for(log_path: Path, text: str, process: subprocess.Popen[bytes], timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while text not in log_path.read_text(errors="replace"):
        assert process.poll() is None, log_path.read_text(errors="replace")
        assert time.monotonic() < deadline, log_path.read_text(errors="replace")
        time.sleep(0.2)


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def test_an_explicit_port_that_is_taken_fails_loudly(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        process, log_path = _launch(tmp_path, "--port", str(port))
        assert process.wait(timeout=60) == 1
    text = log_path.read_text()
    assert f"port {port} on 127.0.0.1 is taken" in text and "using" not in text


def test_a_time_wait_socket_does_not_make_a_port_taken() -> None:
    import socket

    from playground.launcher import port_is_free

    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    client = socket.create_connection(("127.0.0.1", port))
    conn, _ = server.accept()
    assert not port_is_free(port)  # a listener: taken
    conn.close()  # the server side closes first: its end of the connection enters TIME_WAIT
    server.close()
    client.recv(1)
    client.close()
    states = Path("/proc/net/tcp").read_text()
    assert f":{port:04X} " in states and " 06 " in states  # TIME_WAIT (state 06) on that port
    assert port_is_free(port)


def test_a_dead_worker_and_redis_are_restarted_and_the_launcher_says_so(tmp_path: Path) -> None:
    port = free_port()
    process, log_path = _launch(tmp_path, "--port", str(port))
    try:
        _wait_for(log_path, "running at", process)
        workers = [p for p in descendants(process.pid) if "celery" in _cmdline(p) and "-Q celery" in _cmdline(p)]
        main_worker = min(workers)  # the worker's main process (its pool children come later)
        os.kill(main_worker, signal.SIGKILL)
        _wait_for(log_path, "celery worker exited unexpectedly (exit code -9); restarting it", process, 30)
        redis_pid = next(p for p in descendants(process.pid) if "redis-server" in _cmdline(p))
        os.kill(redis_pid, signal.SIGKILL)
        _wait_for(log_path, "redis exited unexpectedly (exit code -9); restarting it", process, 30)
        # The stack works again: a diagnostics ping is answered by the restarted worker.
        from celery import Celery

        redis_url = re.search(r"Started redis-server at (\S+)", log_path.read_text()).group(1)
        probe = Celery("probe", broker=redis_url)  # the restarted Redis: same port
        deadline = time.monotonic() + 60
        while not probe.control.ping(timeout=1.0):
            assert time.monotonic() < deadline, log_path.read_text()
        probe.close()
        assert process.poll() is None
    finally:
        _stop(process)


def test_a_launcher_killed_with_sigkill_leaves_nothing_running(tmp_path: Path) -> None:
    """Each child runs in a session of its own, so a killed launcher's children (Redis, the
    workers, the web server and its processes, the sample extender) used to live on as orphans,
    still holding the port. They now end with it: none is left 5 s later."""
    port = free_port()
    process, log_path = _launch(tmp_path, "--port", str(port))
    started: set[int] = set()
    try:
        _wait_for(log_path, "running at", process)
        started = descendants(process.pid)
        commands = " | ".join(_cmdline(pid) for pid in started)
        assert "redis-server" in commands and "celery" in commands and "uvicorn" in commands, commands
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        deadline = time.monotonic() + 5
        while [pid for pid in started if alive(pid)] and time.monotonic() < deadline:
            time.sleep(0.1)
        left = {pid: _cmdline(pid) for pid in started if alive(pid)}
        assert left == {}
    finally:
        for pid in descendants(process.pid) | started:
            if alive(pid):  # whatever the launcher failed to take with it (the test failed)
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        _stop(process)
