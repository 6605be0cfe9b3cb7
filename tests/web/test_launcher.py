"""`./dev run`'s launcher: the whole stack comes up, serves pages, and Ctrl-C leaves nothing behind."""

from __future__ import annotations

import os
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
        assert len(children) >= 3  # redis-server, celery worker, daphne

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
