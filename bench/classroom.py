"""A classroom on one server: thirty students, one big play, a hundred viewers; then scale-out.

    .venv/bin/python bench/classroom.py                        # the classroom (2 min) + scale-out
    .venv/bin/python bench/classroom.py --students 5 --viewers 10 --duration 20 --scale-steps 5   # a quick look
    .venv/bin/python bench/classroom.py --json out.json --append-results --note "load 4 from others"

Everything is on loopback and bounded in count and time. It starts the stack `./dev run` starts
(playground.launcher's helpers: a private Redis, one single-process Celery worker per core,
one web process per core) on free ports with a temporary SQLite database, and:

1. `--students` students (30), each a browser session over HTTP + the run page's websocket:
   arriving over `--arrival` seconds (30), fork a gallery scenario, start a run, then for
   `--duration` seconds each alternate Step and Play, reading each result for `--think`
   seconds (1 s: a quick student; 0 is a closed loop tighter than any class, also reported)
   (once the run has settled both still go through the queue and the worker). Step latency =
   the Step post sent -> the student's websocket pushes a state with nothing queued.
2. One more student uploads a `--big` (500x4000) scenario, starts a run and plays it.
3. A teacher uploads a 40-node x 400-pod scenario, starts a run and steps it every 2 s while
   `--viewers` (100) websocket clients watch it: delivery = the step's action done (database)
   -> each viewer's push showing it; every viewer's event-log rows are checked (each event
   once, none missing).
4. At the end every student run's stored events are compared with a headless run of the same
   scenario and seed (the same prefix: none lost, none duplicated, none different).

Then the scale-out figure: the same stack with one worker process and with two (as ./dev run
starts them: single-process workers on the shared queue); `--scale-runs` runs of a 100-node x 1000-pod scenario get
`--scale-steps` Step actions each, all queued through the app's service while the workers
consume nothing (Celery's cancel_consumer), then released at once; steps per second = steps done
/ the time from the first done to the last (engines warmed first). One worker, then two,
`--scale-pairs` times (3): a phase lasts seconds and moves by ±20 % from draw to draw, so the
median of the pairs' ratios is the figure. `--postgres` runs each phase on a private PostgreSQL server (tests/postgres_server.py:
the database a class's server runs on) instead of the temporary SQLite file.
"""

from __future__ import annotations

import argparse
import asyncio
import http.cookiejar
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

STEP_RE = re.compile(r'id="run-step">(\d+)<')
STATE_RE = re.compile(r'id="run-state"[^>]*>([a-z]+)<')
QUEUED_MARK = 'id="run-queued"'  # the "N actions queued" badge: absent once the run's actions are done
GALLERY_SLUG = "percentage-of-nodes-to-score"
STEP_TIMEOUT = 15.0


# ---- a browser over HTTP ---------------------------------------------------------------------------


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class Browser:
    """One student's browser: its cookies (session, CSRF), plain and htmx posts."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({}), urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect()
        )

    def _open(self, request: urllib.request.Request) -> tuple[int, dict[str, str], str]:
        try:
            with self.opener.open(request, timeout=60) as response:
                headers = {k.lower(): v for k, v in response.headers.items()}
                return response.status, headers, response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as error:
            headers = {k.lower(): v for k, v in error.headers.items()}
            return error.code, headers, error.read().decode("utf-8", "replace")

    def get(self, path: str) -> tuple[int, dict[str, str], str]:
        return self._open(urllib.request.Request(self.base + path))

    def csrf(self) -> str:
        return next((c.value for c in self.jar if c.name == "csrftoken"), "")

    def post(self, path: str, data: dict[str, str] | None = None, *, htmx: bool = False,
             body: bytes | None = None, content_type: str = "") -> tuple[int, dict[str, str], str]:
        headers = {"X-CSRFToken": self.csrf()}
        if htmx:
            headers["HX-Request"] = "true"
        if body is None:
            body = urllib.parse.urlencode(data or {}).encode()
            content_type = "application/x-www-form-urlencoded"
        headers["Content-Type"] = content_type
        return self._open(urllib.request.Request(self.base + path, data=body, headers=headers, method="POST"))

    def cookie_header(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)

    def upload_scenario(self, name: str, yaml_text: str) -> str:
        """New scenario from a file (multipart), as the home page's form; returns its path."""
        boundary = uuid.uuid4().hex
        parts = []
        for key, value in (("name", name), ("seed", "0"), ("csrfmiddlewaretoken", self.csrf())):
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n')
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}.yaml"\r\n'
            f"Content-Type: application/yaml\r\n\r\n{yaml_text}\r\n--{boundary}--\r\n"
        )
        status, headers, text = self.post("/scenarios/", body="".join(parts).encode(),
                                          content_type=f"multipart/form-data; boundary={boundary}")
        if status != 302:
            raise RuntimeError(f"upload refused: {status} {text[:300]}")
        return headers["location"]


def _path(location: str) -> str:
    return urllib.parse.urlparse(location).path


# ---- a run page's websocket ----------------------------------------------------------------------------


@dataclass
class Socket:
    """What one run page's websocket has shown: its step and state, with a wake-up on change."""

    step: int = -1
    state: str = ""
    idle_at: float = 0.0  # when a push last showed no action queued or running (time.monotonic())
    changed: threading.Condition = field(default_factory=threading.Condition)
    error: str = ""
    future: Any = None

    def wait(self, predicate: Any, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self.changed:
            while not predicate(self):
                left = deadline - time.monotonic()
                if left <= 0 or self.error:
                    return False
                self.changed.wait(left)
        return True


async def _follow(socket: Socket, url: str, origin: str, cookies: str) -> None:
    import websockets

    try:
        async with websockets.connect(url, origin=origin, additional_headers={"Cookie": cookies}, max_size=None,
                                      open_timeout=60, ping_interval=None) as ws:
            await ws.send(json.dumps({"seen": 0, "step": "", "cycle": ""}))
            async for message in ws:
                text = message if isinstance(message, str) else message.decode()
                step, state = STEP_RE.search(text), STATE_RE.search(text)
                now = time.monotonic()
                with socket.changed:
                    if state and QUEUED_MARK not in text:
                        socket.idle_at = now
                    if step:
                        socket.step = max(socket.step, int(step.group(1)))
                    if state:
                        socket.state = state.group(1)
                    socket.changed.notify_all()
    except asyncio.CancelledError:
        raise
    except Exception as error:
        with socket.changed:
            socket.error = f"{type(error).__name__}: {error}"[:200]
            socket.changed.notify_all()


class Loop:
    """An asyncio loop in a thread, for every websocket of the benchmark."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def open(self, base: str, run_path: str, browser: Browser | None) -> Socket:
        socket = Socket()
        token = run_path.rstrip("/").rsplit("/", 1)[-1]
        url = base.replace("http://", "ws://") + f"/ws/runs/{token}/"
        socket.future = asyncio.run_coroutine_threadsafe(
            _follow(socket, url, base, browser.cookie_header() if browser else ""), self.loop
        )
        return socket

    def close(self, socket: Socket) -> None:
        if socket.future is not None:
            self.loop.call_soon_threadsafe(socket.future.cancel)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)


# ---- the students --------------------------------------------------------------------------------------


@dataclass
class Student:
    index: int
    latencies: list[float] = field(default_factory=list)
    timeouts: int = 0
    plays: int = 0
    runs: list[str] = field(default_factory=list)  # run share tokens
    refusals: list[str] = field(default_factory=list)
    error: str = ""
    # Per Step, in order (wall clock, time.time()): sent, the post answered, the push showed it
    # done (None: timed out); matched with the action's stored times afterwards (`_phases`).
    marks: list[tuple[float, float, float | None]] = field(default_factory=list)


def _start_run(browser: Browser, scenario_path: str) -> str:
    status, headers, text = browser.post(scenario_path.rstrip("/") + "/runs/")
    if status != 302:
        raise RuntimeError(f"start refused: {status} {text[:200]}")
    run_path = _path(headers["location"])
    browser.get(run_path)  # the page: the worker builds the engine meanwhile
    return run_path


def student(index: int, base: str, loop: Loop, until: float, think: float = 0.0) -> Student:
    """Fork the gallery scenario, start a run, then alternate Step and Play until `until`. An
    action is done when the run page's websocket pushes a state with nothing queued (a settled
    run's Step and Play with nothing queued before them are recorded done by the web request:
    then it is the post and the push).
    `think`: seconds the student looks at the result before the next press."""
    me = Student(index)
    browser = Browser(base)
    socket: Socket | None = None
    try:
        status, headers, _ = browser.get(f"/gallery/{GALLERY_SLUG}/")
        gallery_path = _path(headers["location"])
        browser.get(gallery_path)  # sets the CSRF cookie
        status, headers, text = browser.post(gallery_path, {"action": "fork"})
        if status != 302:
            raise RuntimeError(f"fork refused: {status} {text[:200]}")
        run_path = _start_run(browser, _path(headers["location"]))
        me.runs.append(run_path.rstrip("/").rsplit("/", 1)[-1])
        socket = loop.open(base, run_path, browser)
        socket.wait(lambda s: s.step >= 0, STEP_TIMEOUT)
        while time.monotonic() < until:
            sent, sent_wall = time.monotonic(), time.time()
            status, _, text = browser.post(run_path, {"action": "step"}, htmx=True)
            answered_wall = time.time()
            if status != 200:
                me.refusals.append(f"step {status}: {text[:120]}")
                break
            if socket.wait(lambda s, t=sent: s.idle_at > t, STEP_TIMEOUT):
                me.latencies.append(time.monotonic() - sent)
                me.marks.append((sent_wall, answered_wall, sent_wall + me.latencies[-1]))
            else:
                me.timeouts += 1
                me.marks.append((sent_wall, answered_wall, None))
            time.sleep(think)
            if time.monotonic() >= until:
                break
            sent = time.monotonic()
            status, _, text = browser.post(run_path, {"action": "play"}, htmx=True)
            if status != 200:
                me.refusals.append(f"play {status}: {text[:120]}")
                break
            me.plays += 1
            socket.wait(lambda s, t=sent: s.idle_at > t, max(0.0, min(30.0, until - time.monotonic())))
            time.sleep(think)
    except Exception as error:
        me.error = f"{type(error).__name__}: {error}"[:300]
    finally:
        if socket is not None:
            if socket.error and not me.error:
                me.error = "websocket: " + socket.error
            loop.close(socket)
    return me


def big_student(base: str, loop: Loop, size: tuple[int, int], until: float) -> dict[str, Any]:
    from bench.scenarios import scenario_yaml

    browser = Browser(base)
    result: dict[str, Any] = {"size": f"{size[0]}x{size[1]}"}
    try:
        browser.get("/")
        started = time.monotonic()
        scenario_path = _path(browser.upload_scenario("big", scenario_yaml(*size)))
        result["create_s"] = round(time.monotonic() - started, 1)
        run_path = _start_run(browser, scenario_path)
        result["start_s"] = round(time.monotonic() - started - result["create_s"], 1)
        result["run"] = run_path.rstrip("/").rsplit("/", 1)[-1]
        socket = loop.open(base, run_path, browser)
        socket.wait(lambda s: s.step >= 0, 60)
        status, _, text = browser.post(run_path, {"action": "play"}, htmx=True)
        result["play_answer"] = status
        played_from = time.monotonic()
        socket.wait(lambda s: s.state == "settled", max(0.0, until - time.monotonic()))
        result["steps_played"] = max(0, socket.step)
        result["play_s"] = round(time.monotonic() - played_from, 1)
        result["settled"] = socket.state == "settled"
        loop.close(socket)
    except Exception as error:
        result["error"] = f"{type(error).__name__}: {error}"[:300]
    return result


# ---- the teacher and the viewers -----------------------------------------------------------------------


def teacher_and_viewers(base: str, viewers: int, until: float, every: float = 2.0) -> dict[str, Any]:
    from bench.scenarios import scenario_yaml
    from bench.web_viewers import CONNECTING_AT_ONCE, Viewer, _listen
    from playground.models import Run, RunAction

    browser = Browser(base)
    browser.get("/")
    scenario_path = _path(browser.upload_scenario("lesson", scenario_yaml(40, 400)))
    run_path = _start_run(browser, scenario_path)
    token = run_path.rstrip("/").rsplit("/", 1)[-1]
    run = Run.objects.get(share_token=token)
    wall_minus_mono = time.time() - time.monotonic()
    crowd = [Viewer(i) for i in range(viewers)]
    seen = run.last_seq  # the viewers join now: their log starts after what the page already shows

    async def watch() -> None:
        ready, counter, gate = asyncio.Event(), [0, viewers], asyncio.Semaphore(CONNECTING_AT_ONCE)
        url = base.replace("http://", "ws://") + f"/ws/runs/{token}/"
        tasks = [asyncio.create_task(_listen(v, url, base, seen, ready, counter, gate)) for v in crowd]
        try:
            await asyncio.wait_for(ready.wait(), 60)
        except TimeoutError:
            pass
        while time.monotonic() < until:
            await asyncio.to_thread(browser.post, run_path, {"action": "step"}, htmx=True)
            await asyncio.sleep(every)
        await asyncio.sleep(3.0)  # the last pushes land
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(watch())
    done = {
        a.last_step: a.done_at.timestamp()
        for a in RunAction.objects.filter(run=run, state=RunAction.STATE_DONE).exclude(last_step=None)
    }
    latencies = []
    missing = 0
    for viewer in crowd:
        for step, done_at in done.items():
            first = next((t for t, s in viewer.steps if s >= step), None)
            if first is None:
                missing += 1
            else:
                latencies.append(max(0.0, first + wall_minus_mono - done_at))
    run.refresh_from_db()
    expected = list(range(seen + 1, run.last_seq + 1))
    return {
        "viewers": viewers,
        "connected": sum(1 for v in crowd if v.messages),
        "steps": len(done),
        "delivery_p50_ms": _ms(_pct(latencies, 0.5)),
        "delivery_p95_ms": _ms(_pct(latencies, 0.95)),
        "delivery_max_ms": _ms(max(latencies) if latencies else None),
        "step_pushes_missing": missing,
        "viewers_with_every_event": sum(1 for v in crowd if sorted(set(v.seqs)) == expected),
        "viewers_with_duplicates": sum(1 for v in crowd if len(v.seqs) != len(set(v.seqs))),
        "viewers_out_of_order": sum(1 for v in crowd if any(a >= b for a, b in zip(v.seqs, v.seqs[1:], strict=False))),
        "viewer_errors": sorted({v.error for v in crowd if v.error})[:3],
    }


# ---- checks and figures --------------------------------------------------------------------------------


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000)


def check_runs(tokens: list[str]) -> dict[str, int]:
    """Each run's stored events: numbered 1..n once each, and equal to a headless run's first n."""
    from playground.models import Run
    from playground.services.runs import engine as run_engine

    checked = lost_or_duplicated = different = 0
    headless: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for token in tokens:
        run = Run.objects.filter(share_token=token).first()
        if run is None:
            continue
        stored = list(run.events.order_by("seq").values_list("data", flat=True))
        checked += 1
        if [e["seq"] for e in stored] != list(range(1, len(stored) + 1)):
            lost_or_duplicated += 1
            continue
        key = (run.scenario_yaml, run.seed)
        if key not in headless:
            sim = run_engine.load_simulation(run.scenario_yaml, run.seed)
            sim.run(run.max_time)
            headless[key] = sim.sink.events
        if stored != headless[key][: len(stored)]:
            different += 1
    return {"runs_checked": checked, "runs_with_lost_or_duplicated_events": lost_or_duplicated,
            "runs_different_from_headless": different}


def _phases(crowd: list[Student]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Where a student's Step waited: the post (sent -> answered), the queue and the worker
    (the action stored -> done, from the database), the push (done -> the page showed it).
    Each student's k-th Step is its run's k-th stored Step action. Also the five slowest steps,
    with their wall-clock times (to find in the servers' logs, `--keep`)."""
    from playground.models import RunAction

    parts: dict[str, list[float]] = {"post": [], "queue_and_worker": [], "push": []}
    slowest: list[dict[str, Any]] = []
    for s in crowd:
        if not s.runs:
            continue
        steps = list(RunAction.objects.filter(run__share_token=s.runs[0], kind=RunAction.KIND_STEP)
                     .order_by("index").values_list("created_at", "done_at"))
        for (sent, answered, shown), (created, done) in zip(s.marks, steps, strict=False):
            parts["post"].append(answered - sent)
            if done is not None:
                parts["queue_and_worker"].append(done.timestamp() - created.timestamp())
                if shown is not None:
                    parts["push"].append(shown - done.timestamp())
                    slowest.append({"student": s.index, "sent": time.strftime("%H:%M:%S", time.gmtime(sent))
                                    + f".{int(sent % 1 * 1000):03d}", "total_ms": _ms(shown - sent),
                                    "post_ms": _ms(answered - sent), "worker_ms": _ms(done.timestamp() - created.timestamp()),
                                    "push_ms": _ms(shown - done.timestamp())})
    slowest.sort(key=lambda row: -row["total_ms"])
    phases = {name: {"p50_ms": _ms(_pct(v, 0.5)), "p95_ms": _ms(_pct(v, 0.95)), "max_ms": _ms(max(v) if v else None)}
              for name, v in parts.items()}
    return phases, slowest[:5]


def _own_cpu() -> float:
    """This (the benchmark client's) process's CPU seconds so far."""
    times = os.times()
    return times.user + times.system


def _cpu_split(after: dict[str, float], before: dict[str, float], client: float, wall: float) -> dict[str, Any]:
    """CPU seconds by role over the classroom phase, and the average cores each kept busy: the
    client shares the server's cores, so its part is not the server's."""
    seconds = {role: round(after[role] - before.get(role, 0.0), 1) for role in sorted(after)}
    seconds["client"] = round(client, 1)
    return {"wall_s": round(wall, 1), "seconds": seconds,
            "cores": {role: round(value / wall, 2) for role, value in seconds.items()} if wall > 0 else {}}


def classroom(args: argparse.Namespace) -> dict[str, Any]:
    from bench.web_stack import Stack
    from playground.launcher import runs_worker_argvs

    stack = Stack(keep=args.keep, worker_argvs=runs_worker_argvs(),  # ./dev run's workers
                  database_url=_database_url(args)).start()
    loop = Loop()
    try:
        from playground.services import gallery

        gallery.seed()
        cpu_before, client_before, wall_before = stack.cpu_seconds(), _own_cpu(), time.monotonic()
        until = time.monotonic() + args.duration + 30  # setup included: each student's own window below
        results: dict[str, Any] = {}
        with ThreadPoolExecutor(max_workers=args.students + 2) as pool:
            big = pool.submit(big_student, stack.url, loop, args.big, until + 30)
            lesson = pool.submit(teacher_and_viewers, stack.url, args.viewers, time.monotonic() + args.duration)
            time.sleep(5)  # the big upload and the lesson are under way
            students = []
            for i in range(args.students):  # a class arrives over half a minute, not in one instant
                students.append(pool.submit(student, i, stack.url, loop, time.monotonic() + args.duration, args.think))
                time.sleep(args.arrival / max(1, args.students))
            crowd = [s.result() for s in students]
            results["viewers"] = lesson.result()
            results["big"] = big.result()
        rows = []
        for s in crowd:
            rows.append({
                "student": s.index, "steps": len(s.latencies), "plays": s.plays, "runs": len(s.runs),
                "p50_ms": _ms(_pct(s.latencies, 0.5)), "p95_ms": _ms(_pct(s.latencies, 0.95)),
                "max_ms": _ms(max(s.latencies) if s.latencies else None), "timeouts": s.timeouts,
                "refusals": s.refusals[:2], "error": s.error,
            })
        results["students"] = rows
        every = [x for s in crowd for x in s.latencies]
        results["all_steps"] = {
            "steps": len(every), "p50_ms": _ms(_pct(every, 0.5)), "p95_ms": _ms(_pct(every, 0.95)),
            "max_ms": _ms(max(every) if every else None),
            "worst_student_p95_ms": max((r["p95_ms"] or 0 for r in rows), default=None),
            "worst_student_max_ms": max((r["max_ms"] or 0 for r in rows), default=None),
            "timeouts": sum(s.timeouts for s in crowd),
        }
        results["cpu"] = _cpu_split(stack.cpu_seconds(), cpu_before, _own_cpu() - client_before,
                                    time.monotonic() - wall_before)
        results["phases"], results["slowest_steps"] = _phases(crowd)
        results["events"] = check_runs([t for s in crowd for t in s.runs])
        results["tracebacks"] = stack.log_count("web", "Traceback") + stack.log_count("celery", "Traceback")
        return results
    finally:
        loop.stop()
        stack.stop()


def _database_url(args: argparse.Namespace) -> str | None:
    """With --postgres the phase runs under tests.postgres_server, which set DATABASE_URL."""
    return os.environ.get("DATABASE_URL") if args.postgres else None


def scale_out(args: argparse.Namespace, concurrency: int) -> dict[str, Any]:
    """Steps per second of `concurrency` worker processes (single-process workers, as ./dev run).

    Every Step is queued while the workers take nothing (the queueing process's own CPU would
    otherwise be what is measured), then the workers take them: steps done over the time from
    the first of them done to the last (`seconds_from_release` also counts the workers'
    noticing their queues again)."""
    from bench.scenarios import scenario_yaml
    from bench.web_stack import Stack
    from playground.launcher import runs_worker_argvs

    stack = Stack(keep=args.keep, worker_argvs=runs_worker_argvs(concurrency),
                  env={"PLAYGROUND_NODE_STEPS_PER_HOUR": "0"}, database_url=_database_url(args)).start()
    try:
        from django.db.models import Max, Min

        from playground.models import RunAction
        from playground.ownership import Actor
        from playground.services import scenarios as scenario_service
        from playground.services.runs import actions as svc

        owner = Actor(session_token="scale-owner")
        scenario = scenario_service.scenario_create(actor=owner, name="scale", yaml_text=scenario_yaml(100, 1000))
        runs = [svc.run_start(scenario=scenario, actor=owner) for _ in range(args.scale_runs)]

        def done(ids: list[int]) -> int:
            return RunAction.objects.filter(pk__in=ids, state=RunAction.STATE_DONE).count()

        def wait_all(ids: list[int], timeout: float) -> None:
            started = time.monotonic()
            while time.monotonic() - started < timeout and done(ids) < len(ids):
                time.sleep(0.25)

        warm = [svc.run_enqueue(run=r, actor=owner, kind=RunAction.KIND_STEP).pk for r in runs]  # engines built
        wait_all(warm, 300)
        from playground.services.runs import fleet

        homes = [fleet.home_of(r.pk) for r in runs]
        spread = {h or "none": homes.count(h) for h in set(homes)}  # the runs' engines per worker process
        # The workers stop taking tasks while every Step is queued (this process queueing them
        # would otherwise be what is measured), then take them all at once.
        from config.celery import app

        consumed = {host: [q["name"] for q in queues] for host, queues in
                    (app.control.inspect(timeout=5).active_queues() or {}).items()}
        for host, names in consumed.items():
            for name in names:
                app.control.cancel_consumer(name, destination=[host], reply=True)
        actions = [svc.run_enqueue(run=r, actor=owner, kind=RunAction.KIND_STEP).pk
                   for _ in range(args.scale_steps) for r in runs]
        cpu_before = stack.cpu_seconds()
        queued_at, done_then = time.monotonic(), done(actions)
        for host, names in consumed.items():
            for name in names:
                app.control.add_consumer(name, destination=[host], reply=True)
        wait_all(actions, 600)
        elapsed = time.monotonic() - queued_at
        finished = done(actions)
        # The workers' own pace: from the first of these steps done to the last. The time from
        # the release (`elapsed`) also holds how long a worker takes to notice a queue it was
        # given back (kombu's Redis poll: about a second), which no worker pays while it serves.
        span = RunAction.objects.filter(pk__in=actions, state=RunAction.STATE_DONE).aggregate(
            first=Min("done_at"), last=Max("done_at"))
        working = (span["last"] - span["first"]).total_seconds() if span["first"] else 0.0
        cpu = {role: round(value - cpu_before.get(role, 0.0), 1) for role, value in stack.cpu_seconds().items()}
        return {"worker_processes": concurrency, "steps": finished - done_then, "seconds": round(working, 2),
                "steps_per_s": round((finished - done_then - 1) / working, 1) if working > 0 else 0.0,
                "seconds_from_release": round(elapsed, 1),
                "steps_per_s_from_release": round((finished - done_then) / elapsed, 1), "queued": len(actions),
                "done_while_queueing": done_then, "cpu_s": cpu, "homes_after_warm_up": spread,
                "database": "postgresql" if args.postgres else "sqlite"}
    finally:
        stack.stop()


def scale_ratios(phases: list[dict[str, Any]]) -> list[float]:
    """Two workers' steps/s over one's, for each (one, two) pair of phases run one after the other
    (a phase lasts seconds: pairs, and their median, rather than one draw)."""
    ones = [p["steps_per_s"] for p in phases if p["worker_processes"] == 1]
    twos = [p["steps_per_s"] for p in phases if p["worker_processes"] == 2]
    return [two / one for one, two in zip(ones, twos, strict=False) if one]


def _markdown(result: dict[str, Any], note: str) -> str:
    c = result.get("classroom", {})
    lines = [f"\n## Classroom load test (bench/classroom.py), {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n"]
    if note:
        lines.append(f"Machine: {note}\n")
    if c:
        a, v, b, e = c["all_steps"], c["viewers"], c["big"], c["events"]
        lines += [
            f"{len(c['students'])} students x {result['args']['duration']} s (fork a gallery scenario, start a run, alternate Step and Play, "
            f"{result['args'].get('think', 0)} s reading each result), one "
            f"{b.get('size')} play, {v['viewers']} viewers of the teacher's run; `./dev run`'s workers (one process per core: 2).\n",
            "| student | steps | plays | runs | step p50 ms | p95 ms | max ms | timeouts | refused |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for r in c["students"]:
            lines.append(f"| {r['student']} | {r['steps']} | {r['plays']} | {r['runs']} | {r['p50_ms']} | {r['p95_ms']} "
                         f"| {r['max_ms']} | {r['timeouts']} | {len(r['refusals'])}{' ' + r['error'] if r['error'] else ''} |")
        lines += [
            "",
            f"All students: {a['steps']} steps, p50 {a['p50_ms']} ms, p95 {a['p95_ms']} ms, max {a['max_ms']} ms; "
            f"worst student p95 {a['worst_student_p95_ms']} ms, worst max {a['worst_student_max_ms']} ms; "
            f"{a['timeouts']} timeouts (> {STEP_TIMEOUT:.0f} s).",
            f"Viewers: {v['connected']}/{v['viewers']} connected, {v['steps']} steps, delivery p50 {v['delivery_p50_ms']} ms, "
            f"p95 {v['delivery_p95_ms']} ms, max {v['delivery_max_ms']} ms; step pushes missing {v['step_pushes_missing']}; "
            f"viewers with every event {v['viewers_with_every_event']}, with duplicates {v['viewers_with_duplicates']}, "
            f"out of order {v['viewers_out_of_order']}.",
            f"Big play {b.get('size')}: created in {b.get('create_s')} s, started in {b.get('start_s')} s, "
            f"{b.get('steps_played')} steps in {b.get('play_s')} s, settled: {b.get('settled')} {b.get('error', '')}",
            f"Events: {e['runs_checked']} student runs checked, {e['runs_with_lost_or_duplicated_events']} with lost or "
            f"duplicated events, {e['runs_different_from_headless']} different from headless; server tracebacks "
            f"{c['tracebacks']}.",
        ]
        if c.get("phases"):
            lines.append("Where a Step waited (p50 / p95 / max ms): " + "; ".join(
                f"{name} {v['p50_ms']} / {v['p95_ms']} / {v['max_ms']}" for name, v in c["phases"].items()) + ".")
        if c.get("cpu"):
            cores = c["cpu"]["cores"]
            lines.append("CPU over the phase (average cores busy, of 2): " + ", ".join(
                f"{role} {value}" for role, value in cores.items()) + f" ({c['cpu']['wall_s']} s).")
    s = result.get("scale_out", [])
    if s:
        lines += ["", f"Scale-out (100x1000 scenario, {s[0].get('database', 'sqlite')}; every Step queued through the service "
                  "while the workers took nothing, then released: steps / time from the first done to the last; "
                  "one and two worker processes alternately):", "",
                  "| worker processes | steps | seconds | steps/s | CPU s (worker, web, redis) | engines per worker |",
                  "| --- | --- | --- | --- | --- | --- |"]
        lines += [f"| {r['worker_processes']} | {r['steps']} | {r['seconds']} | {r['steps_per_s']} | "
                  f"{r.get('cpu_s', {}).get('worker')}, {r.get('cpu_s', {}).get('web')}, {r.get('cpu_s', {}).get('redis')} | "
                  f"{' / '.join(str(n) for n in sorted(r.get('homes_after_warm_up', {}).values(), reverse=True))} |"
                  for r in s]
        ratios = scale_ratios(s)
        if ratios:
            lines.append(f"\nTwo processes / one, pair by pair: {', '.join(f'{x:.2f}x' for x in ratios)}; "
                         f"median {statistics.median(ratios):.2f}x")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--viewers", type=int, default=100)
    parser.add_argument("--duration", type=float, default=120.0, help="seconds of stepping and playing (max 300)")
    parser.add_argument("--big", default="500x4000", help="NODESxPODS of the big play")
    parser.add_argument("--arrival", type=float, default=30.0, help="seconds over which the students arrive")
    parser.add_argument("--think", type=float, default=1.0,
                        help="seconds a student reads the result before the next press (0: press again at once)")
    parser.add_argument("--scale-runs", type=int, default=12)
    parser.add_argument("--scale-steps", type=int, default=40)
    parser.add_argument("--postgres", action="store_true",
                        help="each phase on a private PostgreSQL server (tests/postgres_server.py) instead of SQLite")
    parser.add_argument("--skip-classroom", action="store_true")
    parser.add_argument("--skip-scale", action="store_true")
    parser.add_argument("--scale-pairs", type=int, default=3,
                        help="how many times to measure one worker then two (the median ratio is reported)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--append-results", action="store_true")
    parser.add_argument("--note", default="")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--phase", choices=["classroom", "scale1", "scale2"], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.duration = min(args.duration, 300.0)
    args.students = min(args.students, 60)
    args.viewers = min(args.viewers, 200)
    nodes, pods = (int(x) for x in args.big.lower().split("x"))
    args.big = (nodes, pods)
    if args.phase:  # one phase in this process (each phase has its own stack and database)
        phase = classroom(args) if args.phase == "classroom" else scale_out(args, int(args.phase[-1]))
        print("RESULT " + json.dumps(phase, default=str), flush=True)
        return 0
    result: dict[str, Any] = {"args": {k: (list(v) if isinstance(v, tuple) else str(v) if isinstance(v, Path) else v)
                                       for k, v in vars(args).items()}}
    phases = ([] if args.skip_classroom else ["classroom"]) + (
        [] if args.skip_scale else ["scale1", "scale2"] * max(1, args.scale_pairs))
    for phase in phases:
        command = [sys.executable, __file__, *(argv if argv is not None else sys.argv[1:]), "--phase", phase]
        if args.postgres:  # a fresh server per phase, stopped and deleted after it
            command = [sys.executable, "-m", "tests.postgres_server", "--", *command]
        out = subprocess.run(command, capture_output=True, text=True, timeout=args.duration + 900, cwd=ROOT)
        line = next((x for x in reversed(out.stdout.splitlines()) if x.startswith("RESULT ")), None)
        if line is None:
            print(out.stdout[-2000:], out.stderr[-4000:], file=sys.stderr)
            raise SystemExit(f"phase {phase} failed")
        value = json.loads(line[len("RESULT "):])
        if phase == "classroom":
            result["classroom"] = value
            print(json.dumps(value["all_steps"]), json.dumps(value["viewers"]), json.dumps(value.get("cpu")),
                  json.dumps(value.get("phases")), flush=True)
        else:
            result.setdefault("scale_out", []).append(value)
            print(json.dumps(value), flush=True)
    text = _markdown(result, args.note)
    print(text)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, default=str))
    if args.append_results:
        with (ROOT / "bench" / "history" / "runs.md").open("a") as handle:
            handle.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
