"""Load on read-only links: GET a shared scenario page and a run page pinned to a step at a fixed
rate, on loopback, for a bounded time, and report achieved rate, errors and latency.

    python bench/http_load.py --serve                        # own server (one daphne per core), 200/s, 30 s each
    python bench/http_load.py --serve --processes 1 --rate 50 --duration 10
    python bench/http_load.py --serve --app-dir /path/to/other/checkout --single-daphne   # the old way
    python bench/http_load.py --url http://127.0.0.1:8000/scenarios/<token>/ --rate 100

Open loop: request i is due at start + i/rate whatever happened to the earlier ones, and its
latency counts from when it was due (a server that falls behind shows it in p95, not in a lower
rate). Requests go over a pool of keep-alive HTTP/1.1 connections (opened as needed, at most
--connections); one that gets no complete answer within --timeout of being due (waiting for a
connection included) is an error, so a run never lasts much over --duration + --timeout. With --serve
the script makes a temporary SQLite database with one scenario and one run, starts the web
server on a free loopback port and stops it at the end (also on Ctrl-C).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
MAX_DURATION = 30.0


class Pool:
    def __init__(self, host: str, port: int, limit: int) -> None:
        self.host, self.port = host, port
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        self.slots = asyncio.Semaphore(limit)

    async def get(self, path: str, timeout: float) -> int:
        async with self.slots:
            conn = self.idle.pop() if self.idle else await asyncio.open_connection(self.host, self.port)
            reader, writer = conn
            try:
                status = await asyncio.wait_for(self._exchange(reader, writer, path), timeout)
            except BaseException:
                writer.close()
                raise
            self.idle.append(conn)
            return status

    async def _exchange(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str) -> int:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nConnection: keep-alive\r\n\r\n".encode())
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
        if "content-length" in headers:
            await reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding") == "chunked":
            while True:
                size = int((await reader.readline()).strip() or b"0", 16)
                await reader.readexactly(size + 2)
                if size == 0:
                    break
        return status


async def load(url: str, rate: float, duration: float, connections: int, timeout: float) -> dict[str, Any]:
    parts = urlsplit(url)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    pool = Pool(parts.hostname or "127.0.0.1", parts.port or 80, connections)
    latencies: list[float] = []
    errors: dict[str, int] = {}
    total = int(rate * duration)

    async def one(due: float) -> None:
        try:
            status = await asyncio.wait_for(pool.get(path, timeout), timeout)  # queueing counts too
            if status != 200:
                errors[f"HTTP {status}"] = errors.get(f"HTTP {status}", 0) + 1
                return
            latencies.append(time.monotonic() - due)
        except TimeoutError:
            errors["timeout"] = errors.get("timeout", 0) + 1
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError) as error:
            errors[type(error).__name__] = errors.get(type(error).__name__, 0) + 1

    start = time.monotonic() + 0.05
    tasks = []
    for i in range(total):
        due = start + i / rate
        delay = due - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(due)))
    await asyncio.gather(*tasks)
    elapsed = time.monotonic() - start
    ordered = sorted(latencies)

    def pct(q: float) -> float | None:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 1) if ordered else None

    return {
        "url": path,
        "rate_asked": rate,
        "duration_s": duration,
        "requests": total,
        "ok": len(latencies),
        "errors": sum(errors.values()),
        "error_kinds": errors,
        "achieved_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": pct(0.5),
        "p95_ms": pct(0.95),
        "p99_ms": pct(0.99),
        "max_ms": round(ordered[-1] * 1000, 1) if ordered else None,
        "mean_ms": round(statistics.fmean(ordered) * 1000, 1) if ordered else None,
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SETUP = """
import django, os, sys
django.setup()
from playground.ownership import Actor
from playground.services import scenarios
from playground.services.runs import actions as runs
actor = Actor(session_token="bench-owner")
text = sys.stdin.read()
sc = scenarios.scenario_create(actor=actor, name="shared link", yaml_text=text)
run = runs.run_start(scenario=sc, actor=actor)
print(sc.share_token, run.share_token)
"""


def serve(args: argparse.Namespace, tmp: Path) -> tuple[subprocess.Popen[bytes], str, str]:
    """Start the server with a fresh database holding one scenario and one run."""
    app = Path(args.app_dir).resolve()
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{tmp / 'db.sqlite3'}", DJANGO_SETTINGS_MODULE="config.settings")
    env.setdefault("DEBUG", "false")  # as deployed (DEBUG=true keeps every SQL query in memory)
    env["PYTHONPATH"] = str(app)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=app, env=env, check=True)
    scenario = (app / "playground" / "gallery" / "topology-spread.yaml").read_text()
    out = subprocess.run(
        [sys.executable, "-c", SETUP],
        cwd=app, env=env, input=scenario.encode(), check=True, capture_output=True,
    )
    scenario_token, run_token = out.stdout.decode().split()[-2:]
    port = free_port()
    if args.single_daphne:
        argv = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"]
    else:
        argv = [sys.executable, "-m", "playground.infra.web_processes", "--host", "127.0.0.1", "--port", str(port)]
        if args.processes:
            argv += ["--processes", str(args.processes)]
    log = open(tmp / "server.log", "wb")  # noqa: SIM115 (closed with the process)
    server = subprocess.Popen(argv, cwd=app, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            if server.poll() is not None:
                raise SystemExit(f"the server exited: see {tmp / 'server.log'}") from None
            time.sleep(0.3)
    time.sleep(1.0 if args.single_daphne else 2.0)  # every process listening
    return server, f"{base}/scenarios/{scenario_token}/", f"{base}/runs/{run_token}/?step=0"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", action="append", default=[], help="a page to load (repeatable)")
    parser.add_argument("--serve", action="store_true", help="start an own server with a scenario and a run")
    parser.add_argument("--app-dir", default=str(ROOT), help="the checkout the server runs from (--serve)")
    parser.add_argument("--single-daphne", action="store_true", help="one daphne process (the old way)")
    parser.add_argument("--processes", type=int, default=0, help="web processes (default: one per core)")
    parser.add_argument("--rate", type=float, default=200.0, help="requests per second")
    parser.add_argument("--duration", type=float, default=30.0, help=f"seconds per page (at most {MAX_DURATION:g})")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--timeout", type=float, default=5.0)
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args(argv)
    duration = min(args.duration, MAX_DURATION)
    server = None
    results = []
    with tempfile.TemporaryDirectory(prefix="http-load-") as tmp_name:
        try:
            urls = list(args.url)
            if args.serve:
                server, scenario_url, run_url = serve(args, Path(tmp_name))
                urls += [scenario_url, run_url]
            if not urls:
                parser.error("give --url or --serve")
            for url in urls:
                # Warm up every web process (its templates, its own cache, connections) first.
                asyncio.run(load(url, 25, 2, 8, args.timeout))
                result = asyncio.run(load(url, args.rate, duration, args.connections, args.timeout))
                results.append(result)
                print(
                    f"{result['url']}: {result['ok']}/{result['requests']} ok, {result['errors']} errors "
                    f"{result['error_kinds'] or ''}, {result['achieved_per_s']}/s of {args.rate:g}/s asked, "
                    f"p50 {result['p50_ms']} ms, p95 {result['p95_ms']} ms, max {result['max_ms']} ms",
                    flush=True,
                )
        finally:
            if server is not None:
                server.terminate()
                try:
                    server.wait(15)
                except subprocess.TimeoutExpired:
                    server.kill()
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
