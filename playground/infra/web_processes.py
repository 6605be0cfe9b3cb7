"""Serve the site from several ASGI server processes that share one listening socket.

One server process is one Python interpreter: one core. A read-only link opened by a class at
once needs every core, so this binds the address once and starts `--processes` servers
(default: one per core) on that socket (`--fd`); the kernel hands each new connection to one of
them. Every process serves both HTTP and the websockets (they all share the Channels layer in
Redis), so the address, the URLs and the pages stay the same as with one process.

The server is uvicorn with its C HTTP parser (httptools) and event loop (uvloop): on this
project's read-only pages it answers 200 requests/s on two cores with p95 in tens of
milliseconds, where daphne's HTTP stack saturated at about 170/s (bench/history/2026-11-22_to_2026-11-28.md). daphne
stays installed for `manage.py runserver`.

    python -m playground.infra.web_processes --host 0.0.0.0 --port 8000 [--processes 2]

A process that exits is started again (with a pause if it keeps failing); SIGTERM or SIGINT
stops them all, and if this process is killed outright the kernel kills them
(playground.infra.parent_death).

The processes share one PROMETHEUS_MULTIPROC_DIR (a fresh temporary directory unless the
environment names one, emptied at start) so /metrics, whichever process answers it, reports
every process's requests and websocket connections (prometheus_client's multiprocess mode).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from playground.infra.parent_death import die_with_parent

RESTART_PAUSE = 1.0  # seconds before starting a process that exited again


def process_count() -> int:
    """WEB_PROCESSES, or one per core."""
    try:
        return max(1, int(os.environ.get("WEB_PROCESSES", "") or 0) or (os.cpu_count() or 1))
    except ValueError:
        return os.cpu_count() or 1


def listen(host: str, port: int, backlog: int = 1024) -> socket.socket:
    """A listening TCP socket the children inherit. SO_REUSEADDR: a restart does not wait for
    the old connections' TIME_WAIT; a port really in use fails here, loudly."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit TCP_NODELAY: a response written as headers then body is not
    # held back by Nagle's algorithm waiting for the client's delayed ACK (~40 ms per request).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(backlog)
    sock.set_inheritable(True)
    return sock


# Incoming websocket messages are a page's tiny re-sync requests: refuse anything large.
WS_MAX_BYTES = 64 * 1024
KEEP_ALIVE_S = 75  # as nginx's default
WS_PROTOCOL = "playground.infra.websocket_deflate:SharedDeflateWebSocketProtocol"


def server_argv(fd: int) -> list[str]:
    """One server process on the inherited socket `fd`. Django's ASGI handler has no lifespan
    support, so the lifespan protocol is off; access logs are left to a proxy in front. Idle
    keep-alive connections stay open KEEP_ALIVE_S (uvicorn's 5 s default closes connections
    a client is about to reuse, and the request on it fails). Websockets use uvicorn's sans-I/O
    implementation of the `websockets` library (its older one printed a DeprecationWarning at
    every start), with each message compressed once for all its connections
    (playground.infra.websocket_deflate)."""
    return [
        sys.executable, "-m", "uvicorn", "config.asgi:application", "--fd", str(fd),
        "--http", "httptools", "--loop", "uvloop", "--ws", WS_PROTOCOL, "--ws-max-size", str(WS_MAX_BYTES),
        "--lifespan", "off", "--no-access-log", "--log-level", "warning", "--timeout-keep-alive", str(KEEP_ALIVE_S),
    ]


def web_argv(host: str, port: int, processes: int | None = None) -> list[str]:
    """The command that serves the site on host:port with `processes` server processes."""
    argv = [sys.executable, "-m", "playground.infra.web_processes", "--host", host, "--port", str(port)]
    if processes:
        argv += ["--processes", str(processes)]
    return argv


class _Stop(Exception):
    pass


def _stop(signum: int, frame: object) -> None:
    raise _Stop


def metrics_dir() -> tuple[str, bool]:
    """The directory the processes keep their metrics in, emptied; True when made here (and so
    removed at the end)."""
    given = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
    if given:
        Path(given).mkdir(parents=True, exist_ok=True)
        for stale in Path(given).glob("*.db"):  # a previous server's processes
            stale.unlink()
        return given, False
    made = tempfile.mkdtemp(prefix="playground-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = made
    return made, True


def _process_gone(directory: str, pid: int) -> None:
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(pid, directory)


def serve(host: str, port: int, processes: int) -> int:
    sock = listen(host, port)
    fd = sock.fileno()
    directory, made = metrics_dir()
    children: list[subprocess.Popen[bytes] | None] = [None] * processes
    started = [0.0] * processes
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _stop)
    print(f"Serving http://{host}:{port}/ with {processes} web process(es)", flush=True)
    try:
        while True:
            for i, child in enumerate(children):
                if child is not None and child.poll() is None:
                    continue
                if child is not None:
                    _process_gone(directory, child.pid)
                    print(f"web process {i} exited with code {child.returncode}; starting it again", flush=True)
                    if time.monotonic() - started[i] < 5:
                        time.sleep(RESTART_PAUSE)
                started[i] = time.monotonic()
                # Killed by the kernel if this process dies without stopping them (parent_death).
                children[i] = subprocess.Popen(server_argv(fd), pass_fds=(fd,), preexec_fn=die_with_parent())
            time.sleep(0.5)
    except _Stop:
        return 0
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, signal.SIG_IGN)
        for child in children:
            if child is not None and child.poll() is None:
                child.terminate()
        deadline = time.monotonic() + 10
        for child in children:
            if child is not None:
                try:
                    child.wait(max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    child.kill()
        sock.close()
        if made:
            shutil.rmtree(directory, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--processes", type=int, default=process_count())
    args = parser.parse_args(argv)
    try:
        return serve(args.host, args.port, max(1, args.processes))
    except OSError as error:
        print(f"error: cannot listen on {args.host}:{args.port}: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
