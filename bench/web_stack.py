"""The real stack for the web benchmark: Redis, one Celery worker, the web server, a temporary SQLite DB.

The same processes `./dev run` starts (through playground.launcher's helpers), on free loopback
ports, with a database file in a temporary directory that is deleted afterwards. This process
configures Django on that database too, so the benchmark creates scenarios and runs through the
app's own services and reads the rows the worker writes. `stop()` (also run at exit and on
SIGTERM/SIGINT) ends every child process group it started.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

STARTUP_TIMEOUT = 90.0


class Stack:
    """Start with `start()`; `url` is the web server's base URL, `logs` the servers' log files."""

    def __init__(self, keep: bool = False, worker_argvs: list[list[str]] | None = None,
                 env: dict[str, str] | None = None, database_url: str | None = None) -> None:
        """`worker_argvs`: the Celery workers to start (default: one solo worker); `env`: more
        environment for every process (e.g. quotas); `database_url`: an existing (empty)
        database to use instead of a temporary SQLite file (e.g. a private PostgreSQL server)."""
        self.database_url = database_url
        from playground.launcher import Supervisor

        self.keep = keep
        self.worker_argvs = worker_argvs
        self.extra_env = dict(env or {})
        self.tmp = Path(tempfile.mkdtemp(prefix="webbench-"))
        self.db_path = self.tmp / "bench.sqlite3"
        self.supervisor = Supervisor()
        self.url = ""
        self.redis_url = ""
        self.logs: dict[str, Path] = {}
        self._open_logs: list[Any] = []
        self._stopped = False

    def _log(self, name: str) -> Any:
        path = self.tmp / f"{name}.log"
        self.logs[name] = path
        handle = path.open("wb")
        self._open_logs.append(handle)
        return handle

    def start(self) -> Stack:
        from playground.launcher import (
            celery_worker_argv,
            celery_worker_ready,
            free_port,
            http_ok,
            start_redis,
            wait_until,
            web_server_argv,
        )

        atexit.register(self.stop)
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, self._on_signal)
        self.redis_url = start_redis(self.supervisor, data_dir=self.tmp, output=self._log("redis"))
        env = {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DJANGO_ENV": "development",
            "DEBUG": "true",  # in development the web server serves the static files (htmx) only with DEBUG
            "REDIS_URL": self.redis_url,
            "DATABASE_URL": self.database_url or f"sqlite:///{self.db_path}",
            "PYTHONUNBUFFERED": "1",
            "LOG_LEVEL": "WARNING",
            "DJANGO_ALLOW_ASYNC_UNSAFE": "true",
            **self.extra_env,
        }
        os.environ.update(env)
        os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
        import django
        from django.core.management import call_command

        django.setup()
        call_command("migrate", interactive=False, verbosity=0)
        child_env = dict(os.environ)
        hostname = f"webbench-{os.getpid()}@localhost"
        argvs = self.worker_argvs or [celery_worker_argv(pool="solo", hostname=hostname)]
        workers = [
            self.supervisor.start(f"celery worker {i}", argv, env=child_env, output=self._log("celery" if i == 0 else f"celery{i}"))
            for i, argv in enumerate(argvs)
        ]
        worker = workers[0]
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        web = self.supervisor.start("web", web_server_argv("127.0.0.1", port), env=child_env, output=self._log("web"))
        wait_until(lambda: http_ok(self.url + "/"), timeout=STARTUP_TIMEOUT, what="web server", alive=lambda: web.poll() is None)
        wait_until(
            lambda: celery_worker_ready(self.redis_url),
            timeout=STARTUP_TIMEOUT,
            what="celery worker",
            alive=lambda: worker.poll() is None,
        )
        return self

    def _on_signal(self, signum: int, frame: object) -> None:
        self.stop()
        raise SystemExit(128 + signum)

    def log_count(self, name: str, needle: str) -> int:
        """How many lines of a server's log contain `needle` (e.g. tracebacks so far)."""
        path = self.logs.get(name)
        if path is None or not path.exists():
            return 0
        with path.open("rb") as handle:
            return sum(1 for line in handle if needle.encode() in line)

    def cpu_seconds(self) -> dict[str, float]:
        """CPU time (user + system) used so far by each role's processes, children included:
        "web", "worker" (Celery), "redis". Read before and after a phase, the difference says
        which part of the stack the cores went to."""
        import psutil

        totals: dict[str, float] = {}
        for child in self.supervisor.children:
            role = "worker" if child.name.startswith("celery") else child.name
            try:
                root = psutil.Process(child.process.pid)
                for process in [root, *root.children(recursive=True)]:
                    times = process.cpu_times()
                    totals[role] = totals.get(role, 0.0) + times.user + times.system
            except psutil.Error:  # it just exited
                continue
        return totals

    def db_bytes(self) -> int:
        """The SQLite database's size on disk, write-ahead log included."""
        return sum(p.stat().st_size for p in self.tmp.glob("bench.sqlite3*") if p.is_file())

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        try:
            from django.db import connections

            connections.close_all()
        except Exception:  # Django may not be set up yet
            pass
        self.supervisor.stop_all(timeout=10)
        for handle in self._open_logs:
            handle.close()
        if not self.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)
