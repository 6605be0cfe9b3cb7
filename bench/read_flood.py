"""One client floods the live run page; what does another client's page cost meanwhile?

    python bench/read_flood.py                           # 200 requests/s for 30 s, the default read limit
    python bench/read_flood.py --reads-per-second 0      # the same with the read limit off
    python bench/read_flood.py --rate 100 --duration 10 --json /tmp/flood.json

Starts the real stack on loopback (Redis, a Celery worker, the web server's processes, a
temporary SQLite database: bench/web_stack.py, as `./dev run` starts them), makes a scenario and
a run of it (the gallery's topology-spread), steps it once, and then for --duration seconds:

- the flooder, one client without a session (as a script would be), GETs the live run page
  at --rate requests per second, open loop (request i is due at start + i/rate whatever the
  earlier ones did; its latency counts from then), over up to 64 keep-alive connections;
- the other client, the run's owner (its own session cookie), GETs the same page --other-rate
  times a second, its page rendered for it (owners' pages are never shared); --other reader:
  a read-only viewer with a session of its own instead.

Before that, the other client alone for a few seconds (its baseline); after it, the run steps
again and a hundred distinct read-only viewers (a session each) open its new live page at once:
how many renders that costs (the X-Read-Cache header: "miss" is a render, "hit" a shared one;
each web process keeps its own copy). Reports statuses, p50/p95/max latencies, and the web
processes' CPU.
Bounded: at most 30 s of flood, at most 500 requests/s, loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

MAX_DURATION = 30.0
MAX_RATE = 500.0


class Pool:
    """Keep-alive HTTP/1.1 connections to one loopback server; GET answers status, headers."""

    def __init__(self, host: str, port: int, limit: int, cookie: str = "") -> None:
        self.host, self.port, self.cookie = host, port, cookie
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        self.slots = asyncio.Semaphore(limit)

    async def get(self, path: str, timeout: float, cookie: str | None = None) -> tuple[int, dict[str, str]]:
        async with self.slots:
            conn = self.idle.pop() if self.idle else await asyncio.open_connection(self.host, self.port)
            reader, writer = conn
            try:
                answer = await asyncio.wait_for(self._exchange(reader, writer, path, cookie), timeout)
            except BaseException:
                writer.close()
                raise
            if answer[1].get("connection", "").lower() == "close":
                writer.close()
            else:
                self.idle.append(conn)
            return answer

    async def _exchange(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str, cookie: str | None
    ) -> tuple[int, dict[str, str]]:
        cookie = self.cookie if cookie is None else cookie
        lines = [f"GET {path} HTTP/1.1", f"Host: {self.host}:{self.port}", "Connection: keep-alive"]
        if cookie:
            lines.append(f"Cookie: {cookie}")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        head_lines = head.decode("latin-1").split("\r\n")
        status = int(head_lines[0].split()[1])
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in head_lines[1:] if line)}
        if "content-length" in headers:
            await reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding") == "chunked":
            while True:
                size = int((await reader.readline()).strip() or b"0", 16)
                await reader.readexactly(size + 2)
                if size == 0:
                    break
        return status, headers


def _summary(latencies: list[float], statuses: dict[str, int], asked: int, elapsed: float) -> dict[str, Any]:
    ordered = sorted(latencies)

    def pct(q: float) -> float | None:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 1) if ordered else None

    return {
        "requests": asked,
        "statuses": statuses,
        "answered_per_s": round(len(ordered) / elapsed, 1) if elapsed else None,
        "p50_ms": pct(0.5),
        "p95_ms": pct(0.95),
        "max_ms": round(ordered[-1] * 1000, 1) if ordered else None,
        "mean_ms": round(statistics.fmean(ordered) * 1000, 1) if ordered else None,
    }


async def open_loop(pool: Pool, path: str, rate: float, duration: float, timeout: float) -> dict[str, Any]:
    """GET `path` at `rate` a second for `duration` s; every answered request's latency (any
    status: a 429 is an answer too) from when it was due, and the count of each status."""
    latencies: list[float] = []
    ok_latencies: list[float] = []
    statuses: dict[str, int] = {}
    retry_after: set[str] = set()
    total = int(rate * duration)

    async def one(due: float) -> None:
        try:
            status, headers = await asyncio.wait_for(pool.get(path, timeout), timeout)
        except TimeoutError:
            statuses["timeout"] = statuses.get("timeout", 0) + 1
            return
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError) as error:
            statuses[type(error).__name__] = statuses.get(type(error).__name__, 0) + 1
            return
        took = time.monotonic() - due
        latencies.append(took)
        key = f"{status} {headers.get('x-read-cache', '')}".strip()
        statuses[key] = statuses.get(key, 0) + 1
        if status == 200:
            ok_latencies.append(took)
        if status == 429:
            retry_after.add(headers.get("retry-after", "(none)"))

    start = time.monotonic() + 0.05
    tasks = []
    for i in range(total):
        due = start + i / rate
        delay = due - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(due)))
    await asyncio.gather(*tasks)
    result = _summary(latencies, statuses, total, time.monotonic() - start)
    result["ok_p95_ms"] = _summary(ok_latencies, {}, 0, 1.0)["p95_ms"]
    result["retry_after_values"] = sorted(retry_after)
    return result


async def flood_and_measure(
    host: str, port: int, path: str, owner_cookie: str, args: argparse.Namespace
) -> dict[str, Any]:
    flooder = Pool(host, port, args.connections)
    other = Pool(host, port, 4, cookie=owner_cookie)
    baseline = await open_loop(other, path, args.other_rate, 5.0, args.timeout)
    flood, measured = await asyncio.gather(
        open_loop(flooder, path, args.rate, args.duration, args.timeout),
        open_loop(other, path, args.other_rate, args.duration, args.timeout),
    )
    return {"other_alone": baseline, "flooder": flood, "other_during_flood": measured}


async def hundred_readers(host: str, port: int, path: str, cookies: list[str], timeout: float) -> dict[str, int]:
    """Every viewer GETs the page once, all at once: the X-Read-Cache answers counted."""
    pool = Pool(host, port, 32)
    answers = await asyncio.gather(*(pool.get(path, timeout, cookie=c) for c in cookies), return_exceptions=True)
    counts: dict[str, int] = {}
    for answer in answers:
        if isinstance(answer, BaseException):
            key = type(answer).__name__
        else:
            status, headers = answer
            key = f"{status} {headers.get('x-read-cache', 'rendered for itself')}"
        counts[key] = counts.get(key, 0) + 1
    return counts


def _sessions(count: int, owner_token: str | None = None) -> list[str]:
    """Session cookies of `count` new visitors (the run's owner when `owner_token` is given)."""
    from django.contrib.sessions.backends.db import SessionStore

    from playground.ownership import SESSION_KEY

    cookies = []
    for i in range(count):
        store = SessionStore()
        store[SESSION_KEY] = owner_token or f"bench-reader-{i}"
        store.create()
        cookies.append(f"sessionid={store.session_key}")
    return cookies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, default=200.0, help=f"the flood's requests per second (at most {MAX_RATE:g})")
    parser.add_argument("--duration", type=float, default=30.0, help=f"seconds of flood (at most {MAX_DURATION:g})")
    parser.add_argument("--other-rate", type=float, default=4.0, help="the other client's requests per second")
    parser.add_argument("--other", choices=("owner", "reader"), default="owner",
                        help="the other client: the run's owner (its page rendered for it) or a read-only viewer")
    parser.add_argument("--reads-per-second", help="PLAYGROUND_READS_PER_SECOND for the server (default: the setting's)")
    parser.add_argument("--connections", type=int, default=64, help="the flooder's connections at most")
    parser.add_argument("--timeout", type=float, default=10.0, help="a request not answered by then is an error")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args(argv)
    args.rate = min(args.rate, MAX_RATE)
    args.duration = min(args.duration, MAX_DURATION)

    from web_stack import Stack

    env = {"PLAYGROUND_READS_PER_SECOND": args.reads_per_second} if args.reads_per_second is not None else {}
    stack = Stack(env=env).start()
    try:
        from django.conf import settings

        from playground.models import RunAction
        from playground.ownership import Actor
        from playground.services import scenarios
        from playground.services.runs import actions as runs

        owner = Actor(session_token="bench-owner")
        text = (ROOT / "playground" / "gallery" / "topology-spread.yaml").read_text()
        scenario = scenarios.scenario_create(actor=owner, name="read flood", yaml_text=text)
        run = runs.run_start(scenario=scenario, actor=owner)
        runs.run_enqueue(run=run, actor=owner, kind=RunAction.KIND_STEP)
        deadline = time.monotonic() + 60
        while run.actions.filter(state=RunAction.STATE_DONE).count() < 1 and time.monotonic() < deadline:
            time.sleep(0.2)
        parts = urlsplit(stack.url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        path = f"/runs/{run.share_token}/"
        owner_cookie = _sessions(1, owner.session_token if args.other == "owner" else "bench-other-reader")[0]
        web_cpu_before = stack.cpu_seconds().get("web", 0.0)
        own_cpu_before = time.process_time()
        started = time.monotonic()
        result = asyncio.run(flood_and_measure(host, port, path, owner_cookie, args))
        wall = time.monotonic() - started
        result["web_cpu_s_per_s"] = round((stack.cpu_seconds().get("web", 0.0) - web_cpu_before) / wall, 2)
        # The clients' own CPU, on the same cores here (a real flood comes from another machine).
        result["clients_cpu_s_per_s"] = round((time.process_time() - own_cpu_before) / wall, 2)
        result["load_average"] = Path("/proc/loadavg").read_text().split()[:3]  # the machine's, for context
        # The run moves (a new state: nobody has its page yet), then a hundred viewers at once.
        before = run.actions.filter(state=RunAction.STATE_DONE).count()
        runs.run_enqueue(run=run, actor=owner, kind=RunAction.KIND_STEP)
        deadline = time.monotonic() + 60
        while run.actions.filter(state=RunAction.STATE_DONE).count() <= before and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(1.5)  # past the flooder's window
        result["hundred_readers"] = asyncio.run(hundred_readers(host, port, path, _sessions(100), args.timeout))
        result["settings"] = {
            "PLAYGROUND_READS_PER_SECOND": args.reads_per_second
            or str(getattr(settings, "PLAYGROUND_READS_PER_SECOND", "(no such setting)")),
            "rate": args.rate,
            "duration_s": args.duration,
            "other_rate": args.other_rate,
            "other": args.other,
        }
    finally:
        stack.stop()
    for name in ("other_alone", "flooder", "other_during_flood"):
        r = result[name]
        print(f"{name}: {r['requests']} asked, {r['statuses']}, p50 {r['p50_ms']} ms, p95 {r['p95_ms']} ms, "
              f"max {r['max_ms']} ms" + (f", Retry-After {r['retry_after_values']}" if r["retry_after_values"] else ""))
    print(f"web processes' CPU during the flood: {result['web_cpu_s_per_s']} s per s, "
          f"this script's clients' {result['clients_cpu_s_per_s']} s per s "
          f"(the machine's load average then: {' '.join(result['load_average'])})")
    print(f"a hundred readers at once: {result['hundred_readers']}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
