"""Web-path benchmark: a run of a large cluster, live in a real browser, on the real stack.

    python bench/web.py [--sizes 100x200,1000x1000,5000x10000] [--steps 20] [--repeat 1]
                        [--viewers 100 --viewers-size 100x200] [--json out.json] [--append-results]

Starts Redis, one Celery worker and the web server on free loopback ports with a temporary SQLite DB
(bench/web_stack.py), and for each size NODESxPODS (bench/scenarios.py):
- creates the scenario and starts a run through the app's services, as its owner;
- opens the run page in headless Chromium: load time, HTML bytes, time until the socket is live;
- clicks Step N times: click -> #run-step changed latency (p50/p95), websocket bytes per step,
  the panels the page then read over HTTP per step (`fetches_per_step`), where a step's time goes
  (`step_parts_p50_ms`: click -> action queued, the worker's queued -> done, done -> DOM),
  the largest websocket message, socket (re)opens, web server tracebacks; a step whose page does not
  change within --step-timeout is reported as "never" and the remaining steps are queued
  server-side only (to measure the worker's time per step and the database growth);
- at --play-min-nodes and above: "play" at max speed, the step counter sampled every 0.5 s for
  --play-seconds (distinct values, longest stall), then pause;
then --viewers websocket clients watch one run of --viewers-size while it steps
(bench/web_viewers.py). Prints a markdown table and JSON; every phase is bounded in time.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import platform
import secrets
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.scenarios import parse_size, scenario_yaml  # noqa: E402
from bench.web_page import Browser, click_and_wait, first_load, sample_counter  # noqa: E402
from bench.web_report import markdown, results_section  # noqa: E402
from bench.web_stack import Stack  # noqa: E402
from bench.web_viewers import run_viewers  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "history" / "runs.md"


def owner() -> tuple[Any, tuple[str, str]]:
    """An Actor and the browser session cookie that makes the page treat the browser as it."""
    from django.conf import settings
    from django.contrib.sessions.backends.db import SessionStore

    from playground.ownership import SESSION_KEY, Actor

    token = secrets.token_urlsafe(24)
    session = SessionStore()
    session[SESSION_KEY] = token
    session.create()
    return Actor(session_token=token), (settings.SESSION_COOKIE_NAME, session.session_key or "")


def start_run(nodes: int, pods: int, actor: Any) -> tuple[Any, dict[str, float]]:
    from playground.services import scenarios as scenario_service
    from playground.services.runs import actions as run_service

    t0 = time.monotonic()
    text = scenario_yaml(nodes, pods)
    scenario = scenario_service.scenario_create(actor=actor, name=f"bench {nodes}x{pods}", yaml_text=text)
    t1 = time.monotonic()
    run = run_service.run_start(scenario=scenario, actor=actor)
    t2 = time.monotonic()
    return run, {"scenario_yaml_bytes": len(text), "scenario_create_s": round(t1 - t0, 2), "run_start_s": round(t2 - t1, 2)}


def db_state(stack: Stack, run: Any) -> dict[str, int]:
    from django.db import connection

    from playground.models import RunCheckpoint, RunEvent, RunFrame

    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COALESCE(SUM(LENGTH(view)), 0) FROM {RunFrame._meta.db_table} WHERE run_id = %s", [run.pk])
        view_bytes = int(cursor.fetchone()[0])
    return {
        "db_bytes": stack.db_bytes(),
        "frames": RunFrame.objects.filter(run=run).count(),
        "events": RunEvent.objects.filter(run=run).count(),
        "checkpoints": RunCheckpoint.objects.filter(run=run).count(),
        "frame_view_bytes": view_bytes,
    }


def head_step(run: Any) -> int:
    from playground.models import Run

    return int(Run.objects.filter(pk=run.pk).values_list("head_step", flat=True).first() or 0)


def wait_idle(run: Any, timeout: float) -> bool:
    """Wait until the run has no pending or running action; False after `timeout` s."""
    from playground.models import RunAction

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not RunAction.objects.filter(run=run, state__in=["pending", "running"]).exists():
            return True
        time.sleep(0.2)
    return False


def server_step_seconds(run: Any) -> list[float]:
    """Per Step action: queued -> done, as the worker recorded it (its queueing time included)."""
    from playground.models import RunAction

    rows = RunAction.objects.filter(run=run, kind=RunAction.KIND_STEP, done_at__isnull=False)
    return [(a.done_at - a.created_at).total_seconds() for a in rows.order_by("index")]


def step_parts(run: Any, clicked: list[float], latencies: list[float]) -> dict[str, float | None]:
    """Where a Step's click -> DOM time goes (medians over the steps after the first, which waits
    for the worker's warm-up): the page's POST until the action is queued, the worker (queued ->
    done, its queueing included), and done -> DOM (the news, the web server's render of the
    live update, the websocket and the browser's swap)."""
    from playground.models import RunAction

    rows = list(RunAction.objects.filter(run=run, kind=RunAction.KIND_STEP, done_at__isnull=False).order_by("index"))
    parts: dict[str, list[float]] = {"click_to_queued": [], "worker": [], "done_to_dom": []}
    for at, ms, action in list(zip(clicked, latencies, rows, strict=False))[1:]:
        queued, done = action.created_at.timestamp(), action.done_at.timestamp()
        parts["click_to_queued"].append((queued - at) * 1000)
        parts["worker"].append((done - queued) * 1000)
        parts["done_to_dom"].append((at + ms / 1000 - done) * 1000)
    return {name: round(statistics.median(values), 1) if values else None for name, values in parts.items()}


def panel_path(url: str, token: str) -> str:
    """The run page's panel a GET reads ("cluster", "pods", ...), "" for anything else."""
    marker = f"/runs/{token}/"
    if marker not in url:
        return ""
    rest = url.split(marker, 1)[1].split("?", 1)[0].strip("/")
    return rest or "page"


def fetch_counts(paths: list[str], steps: int) -> dict[str, float]:
    """How many times a step made the page read each panel over HTTP (the follow-up fetches)."""
    counts: dict[str, int] = {}
    for path in paths:
        counts[path] = counts.get(path, 0) + 1
    return {path: round(n / max(1, steps), 2) for path, n in sorted(counts.items())}


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))], 1)


def measure_size(stack: Stack, browser: Browser, nodes: int, pods: int, args: argparse.Namespace) -> dict[str, Any]:
    from playground.models import RunAction
    from playground.services.runs import actions as run_service

    actor, cookie = owner()
    result: dict[str, Any] = {"size": f"{nodes}x{pods}", "nodes": nodes, "pods": pods}
    run, timings = start_run(nodes, pods, actor)
    result.update(timings)
    before = db_state(stack, run)
    tracebacks_before = stack.log_count("web", "Traceback")
    page, sockets = browser.open(stack.url, cookie)
    if args.reduced_motion:  # the page swaps updates without View Transitions (what they cost, apart)
        page.emulate_media(reduced_motion="reduce")
    fetches: list[tuple[float, str]] = []  # (monotonic time, panel path) of the page's own HTTP reads
    page.on("request", lambda request: request.method == "GET"
            and fetches.append((time.monotonic(), panel_path(request.url, run.share_token))))
    try:
        result["first_load"] = first_load(page, f"/runs/{run.share_token}/", args.load_timeout)
        steps_start = time.monotonic()
        latencies: list[float] = []
        clicked: list[float] = []  # wall time of each click (the server's action times are wall times)
        never_at: int | None = None
        for i in range(args.steps):
            if time.monotonic() - steps_start > args.phase_timeout:
                break
            clicked.append(time.time())
            outcome = click_and_wait(page, "#btn-step", args.step_timeout)
            if outcome["ms"] is None:
                never_at = i + 1
                break
            latencies.append(outcome["ms"])
        dom_bytes = sockets.since(steps_start)
        server_only = 0
        if never_at is not None:  # the page stopped following: go on without it, bounded
            wait_idle(run, max(0.0, args.phase_timeout - (time.monotonic() - steps_start)))
            while never_at + server_only < args.steps and time.monotonic() - steps_start < args.phase_timeout:
                run_service.run_enqueue(run=run, actor=actor, kind=RunAction.KIND_STEP)
                if not wait_idle(run, max(1.0, args.phase_timeout - (time.monotonic() - steps_start))):
                    break
                server_only += 1
        idle = wait_idle(run, args.idle_timeout)
        after = db_state(stack, run)
        server = server_step_seconds(run)
        grown = max(1, after["frames"] - before["frames"])
        result.update(
            steps_requested=args.steps,
            dom_updates=len(latencies),
            dom_never_from_step=never_at,
            step_dom_p50_ms=pct(latencies, 0.5),
            step_dom_p95_ms=pct(latencies, 0.95),
            step_dom_max_ms=pct(latencies, 1.0),
            step_dom_ms=[round(ms) for ms in latencies],  # in click order: the first waits for the warm-up
            step_parts_p50_ms=step_parts(run, clicked, latencies),
            server_steps=len(server),
            server_step_median_s=round(statistics.median(server), 2) if server else None,
            server_step_max_s=round(max(server), 2) if server else None,
            ws_bytes_per_step=round(sum(dom_bytes) / max(1, len(latencies))) if latencies else None,
            ws_messages_in_steps=len(dom_bytes),
            ws_largest_message_bytes=max((size for _t, size in sockets.frames), default=0),
            ws_opened=sockets.opened,
            fetches_per_step=fetch_counts([path for when, path in fetches if when >= steps_start and path],
                                          len(latencies)),
            web_tracebacks=stack.log_count("web", "Traceback") - tracebacks_before,
            worker_idle_after_steps=idle,
            db_before=before,
            db_after=after,
            db_growth_per_step_bytes=round((after["db_bytes"] - before["db_bytes"]) / grown),
            frame_view_bytes_per_step=round((after["frame_view_bytes"] - before["frame_view_bytes"]) / grown),
            events_per_step=round((after["events"] - before["events"]) / grown, 1),
        )
        if nodes >= args.play_min_nodes and idle:
            result["play"] = play(page, run, actor, args)
    finally:
        page.context.close()
        wait_idle(run, args.idle_timeout)
    return result


def play(page: Any, run: Any, actor: Any, args: argparse.Namespace) -> dict[str, Any]:
    from playground.services.runs import actions as run_service

    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # it notifies: not in Playwright's loop thread
        pool.submit(run_service.run_set_speed, run=run, actor=actor, speed=0.0).result()
    page.locator("#btn-play").click()
    sampled = sample_counter(page, args.play_seconds, 0.5, db_head=lambda: head_step(run))
    run_service.run_pause(run=run, actor=actor)
    t0 = time.monotonic()
    sampled["paused_within_timeout"] = wait_idle(run, args.idle_timeout)
    sampled["pause_took_s"] = round(time.monotonic() - t0, 1)
    return sampled


def measure_viewers(stack: Stack, nodes: int, pods: int, args: argparse.Namespace) -> dict[str, Any]:
    from playground.models import Run, RunAction
    from playground.services.runs import actions as run_service

    actor, _cookie = owner()
    run, timings = start_run(nodes, pods, actor)
    ws_base = stack.url.replace("http://", "ws://")

    def enqueue() -> None:
        run_service.run_enqueue(run=run, actor=actor, kind=RunAction.KIND_STEP)

    def final_seq() -> int:
        return int(Run.objects.filter(pk=run.pk).values_list("last_seq", flat=True).first() or 0)

    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # its own event loop, away from Playwright's
        result = pool.submit(
            run_viewers,
            ws_url=f"{ws_base}/ws/runs/{run.share_token}/?seen={run.last_seq}",
            origin=stack.url,
            viewers=args.viewers,
            steps=args.steps,
            seen=run.last_seq,
            start_step=run.head_step,
            enqueue_step=enqueue,
            final_seq=final_seq,
            step_timeout=args.viewers_step_timeout,
            phase_timeout=args.phase_timeout,
        ).result()
    wait_idle(run, args.idle_timeout)
    return {"size": f"{nodes}x{pods}", **timings, **result}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100x200,1000x1000,5000x10000", help="NODESxPODS, comma separated")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each size")
    parser.add_argument("--step-timeout", type=float, default=30.0, help="s to wait for one step's page update")
    parser.add_argument("--phase-timeout", type=float, default=240.0, help="s for one size's steps, all in all")
    parser.add_argument("--load-timeout", type=float, default=120.0)
    parser.add_argument("--idle-timeout", type=float, default=120.0, help="s to wait for the worker to finish")
    parser.add_argument("--play-min-nodes", type=int, default=5000)
    parser.add_argument("--play-seconds", type=float, default=20.0)
    parser.add_argument("--viewers", type=int, default=100, help="0: skip the concurrent-viewers phase")
    parser.add_argument("--viewers-size", default="100x200")
    parser.add_argument("--viewers-step-timeout", type=float, default=120.0, help="s for one step to reach every viewer")
    parser.add_argument("--reduced-motion", action="store_true", help="the browser asks for reduced motion")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--append-results", action="store_true", help=f"append the tables to {RESULTS.name}")
    parser.add_argument("--heading", default="Web path (before #11 work)")
    parser.add_argument("--note", default="", help="a line for the results (e.g. the machine's load)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (DB, logs)")
    args = parser.parse_args(argv)
    sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]  # "" = the viewers phase only

    report: dict[str, Any] = {
        "date": datetime.date.today().isoformat(),
        "machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
        "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "sizes": [],
    }
    stack = Stack(keep=args.keep).start()
    browser = Browser()
    try:
        browser.warm(stack.url)  # a running browser; each run page below is still a fresh tab
        for nodes, pods in sizes:
            for attempt in range(args.repeat):
                print(f"[web bench] {nodes}x{pods} run {attempt + 1}/{args.repeat}", file=sys.stderr, flush=True)
                report["sizes"].append(measure_size(stack, browser, nodes, pods, args))
                print(json.dumps(report["sizes"][-1]), file=sys.stderr, flush=True)
        if args.viewers > 0:
            nodes, pods = parse_size(args.viewers_size)
            print(f"[web bench] {args.viewers} viewers on {nodes}x{pods}", file=sys.stderr, flush=True)
            report["viewers"] = measure_viewers(stack, nodes, pods, args)
    finally:
        browser.close()
        if args.keep:
            print(f"[web bench] kept {stack.tmp}", file=sys.stderr)
        stack.stop()
    text = markdown(report)
    print(text)
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    if args.append_results:
        with RESULTS.open("a") as handle:
            handle.write(results_section(report, heading=args.heading, note=args.note))
    return 0


if __name__ == "__main__":
    sys.exit(main())
