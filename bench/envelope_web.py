"""The Kubernetes envelope in the browser: create, start, step and play a 5,000 x 150,000 run.

    python bench/generate_envelope.py          # bench/inputs/envelope-5000n-150000p.yaml, and the CLI's size
    gzip -k bench/inputs/envelope-5000n-150000p.yaml
    python bench/envelope_web.py [--input bench/inputs/envelope-5000n-150000p.yaml.gz] [--steps 20] [--json out.json]

Starts the real stack (Redis, one Celery worker, the web server, a temporary SQLite database:
bench/web_stack.py) with the default limits, and drives headless Chromium as the scenario's
owner would:

- create: on /scenarios/, choose the file (plain or gzip) and press "Create scenario"; until the
  scenario page has loaded (`s`; a big file is loaded by a worker meanwhile, behind the
  "checking" page: `post_answer_s` is when the POST answered, `checked_by_worker` whether it did);
- the worker prepares the run start in the background (`prepared_wait_s`: how long after the
  page it is done; a user reading the page gives it that time);
- start: press "Start run"; until the run page has loaded, then until its socket is live;
- first load: the run page opened again in a fresh tab (HTML bytes, load event, socket live);
- steps: click Step N times, click -> #run-step changed (p50/p95/max);
- play: at full speed for --play-seconds, the step counter sampled every 0.5 s;
- the worker's peak memory (VmHWM of its processes), the database per step (frames, events);
- checkpoint / restore, in this process: the run's latest checkpoint restored
  (`Simulation.restore`) and taken again (`sim.checkpoint()`), CPU and wall seconds, blob bytes.

Also the CPU seconds of each part of the stack per phase (`Stack.cpu_seconds`): on a shared
machine those, not the wall times, are the comparable figures. Every phase is bounded; figures
only, nothing is asserted.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.scenario_page import Wire, create_scenario, start_run, wait_prepared  # noqa: E402
from bench.web import db_state, pct, play, wait_idle  # noqa: E402
from bench.web_page import Browser, click_and_wait, first_load  # noqa: E402
from bench.web_stack import Stack  # noqa: E402

DEFAULT_INPUT = Path(__file__).resolve().parent / "inputs" / "envelope-5000n-150000p.yaml.gz"


def worker_memory(stack: Stack) -> dict[str, float]:
    """The Celery worker processes' resident memory now and at its peak (VmHWM), MiB."""
    import psutil

    now = peak = 0.0
    for child in stack.supervisor.children:
        if not child.name.startswith("celery"):
            continue
        root = psutil.Process(child.process.pid)
        for process in [root, *root.children(recursive=True)]:
            now = max(now, process.memory_info().rss / 2**20)
            try:
                status = Path(f"/proc/{process.pid}/status").read_text()
            except OSError:
                continue
            found = re.search(r"VmHWM:\s+(\d+) kB", status)
            if found:
                peak = max(peak, int(found.group(1)) / 1024)
    return {"rss_mib": round(now), "peak_mib": round(peak)}


def cpu_delta(stack: Stack, before: dict[str, float]) -> dict[str, float]:
    after = stack.cpu_seconds()
    return {role: round(after.get(role, 0.0) - before.get(role, 0.0), 2) for role in after}


def checkpoint_restore(run: Any) -> dict[str, Any]:
    """Restore the run's latest checkpoint and take it again, timed here (CPU and wall)."""
    from scheduler_core.simulation import Simulation

    checkpoint = run.checkpoints.order_by("-step").first()
    blob = bytes(checkpoint.blob)
    c0, w0 = time.process_time(), time.perf_counter()
    sim = Simulation.restore(blob)
    restore = (time.process_time() - c0, time.perf_counter() - w0)
    c0, w0 = time.process_time(), time.perf_counter()
    again = sim.checkpoint()
    take = (time.process_time() - c0, time.perf_counter() - w0)
    return {"step": checkpoint.step, "blob_bytes": len(blob), "again_bytes": len(again),
            "restore_cpu_s": round(restore[0], 2), "restore_wall_s": round(restore[1], 2),
            "checkpoint_cpu_s": round(take[0], 2), "checkpoint_wall_s": round(take[1], 2)}


def created_answer(page: Any) -> dict[str, Any]:
    """Watch the create form's POST: a big file is loaded by a worker (services.scenario_uploads),
    so the POST answers at once with the "checking" page, which moves on to the scenario page
    when the worker is done. `create.s` stays create-to-visible (create_scenario waits for the
    scenario page's address, never the checking page's); this adds `post_answer_s` (seconds from
    the POST's sending to its answer's first byte) and `checked_by_worker`, filled in as the page goes."""
    found: dict[str, Any] = {"post_answer_s": None, "checked_by_worker": False}

    def seen(response: Any) -> None:
        if response.request.method == "POST" and response.url.endswith("/scenarios/") \
                and found["post_answer_s"] is None:
            timing = response.request.timing  # milliseconds since the POST was sent
            found["post_answer_s"] = round(max(0.0, timing.get("responseStart", -1)) / 1000, 2)
            found["checked_by_worker"] = "/scenarios/checking/" in (response.headers.get("location") or "")

    page.on("response", seen)
    return found


def measure(stack: Stack, browser: Browser, path: Path, args: argparse.Namespace) -> dict[str, Any]:
    from playground.models import Run, RunAction

    timeout_s = args.timeout
    context = browser.chromium.new_context(base_url=stack.url)
    context.set_default_timeout(timeout_s * 1000)
    page = context.new_page()
    wire = Wire(page)
    result: dict[str, Any] = {"input": path.name, "input_bytes": path.stat().st_size,
                              "load_average_before": os.getloadavg()}
    try:
        cpu = stack.cpu_seconds()
        answered = created_answer(page)
        result["create"] = create_scenario(page, wire, path, f"envelope {path.stem}")
        result["create"].update(answered)
        result["create"]["stack_cpu_s"] = cpu_delta(stack, cpu)
        print(f"[envelope] create {result['create']}", file=sys.stderr, flush=True)
        scenario_url = page.url

        cpu = stack.cpu_seconds()
        result["prepared_wait_s"] = wait_prepared(scenario_url, timeout_s)
        result["prepare_stack_cpu_s"] = cpu_delta(stack, cpu)
        result["worker_memory_after_prepare"] = worker_memory(stack)
        print(f"[envelope] prepared after {result['prepared_wait_s']} s", file=sys.stderr, flush=True)

        cpu = stack.cpu_seconds()
        result["start"] = start_run(page, wire, timeout_s)
        result["start"]["stack_cpu_s"] = cpu_delta(stack, cpu)
        print(f"[envelope] start {result['start']}", file=sys.stderr, flush=True)
        run = Run.objects.get(share_token=re.search(r"/runs/([^/]+)/", page.url).group(1))
        run_url = f"/runs/{run.share_token}/"

        # the run page again, in a fresh tab of the owner's session
        tab = context.new_page()
        cpu = stack.cpu_seconds()
        result["first_load"] = first_load(tab, run_url, timeout_s)
        result["first_load"]["stack_cpu_s"] = cpu_delta(stack, cpu)  # the page, its fetches and the socket's hello
        tab.close()
        print(f"[envelope] first load {result['first_load']}", file=sys.stderr, flush=True)

        before = db_state(stack, run)
        cpu = stack.cpu_seconds()
        latencies: list[float] = []
        for _ in range(args.steps):
            outcome = click_and_wait(page, "#btn-step", args.step_timeout)
            if outcome["ms"] is None:
                break
            latencies.append(outcome["ms"])
        idle = wait_idle(run, timeout_s)
        after = db_state(stack, run)
        grown = max(1, after["frames"] - before["frames"])
        server = [(a.done_at - a.created_at).total_seconds() for a in RunAction.objects.filter(
            run=run, kind=RunAction.KIND_STEP, done_at__isnull=False)]
        result["steps"] = {
            "clicked": args.steps, "shown": len(latencies),
            "p50_ms": pct(latencies, 0.5), "p95_ms": pct(latencies, 0.95), "max_ms": pct(latencies, 1.0),
            "ms": [round(ms) for ms in latencies],
            "server_median_s": round(statistics.median(server), 3) if server else None,
            "stack_cpu_s": cpu_delta(stack, cpu), "idle_after": idle,
            "db_before": before, "db_after": after,
            "db_growth_per_step_bytes": round((after["db_bytes"] - before["db_bytes"]) / grown),
            "frame_view_bytes_per_step": round((after["frame_view_bytes"] - before["frame_view_bytes"]) / grown),
            "events_per_step": round((after["events"] - before["events"]) / grown, 1),
        }
        print(f"[envelope] steps {result['steps']}", file=sys.stderr, flush=True)
        if args.play_seconds > 0 and idle:
            cpu = stack.cpu_seconds()
            result["play"] = play(page, run, actor_of(page, stack), args)
            result["play"].pop("trace", None)
            result["play"]["stack_cpu_s"] = cpu_delta(stack, cpu)
            print(f"[envelope] play {result['play']}", file=sys.stderr, flush=True)
        result["worker_memory"] = worker_memory(stack)
        run.refresh_from_db()
        result["run_scenario_yaml_bytes"] = len(run.scenario_yaml.encode())
        result["checkpoint"] = checkpoint_restore(run)
        print(f"[envelope] checkpoint {result['checkpoint']}", file=sys.stderr, flush=True)
    finally:
        context.close()
    result["load_average_after"] = os.getloadavg()
    return result


def actor_of(page: Any, stack: Stack) -> Any:
    """The Actor the browser's session is (it created the scenario and the run)."""
    from django.conf import settings
    from django.contrib.sessions.backends.db import SessionStore

    from playground.ownership import SESSION_KEY, Actor

    cookie = next(c for c in page.context.cookies() if c["name"] == settings.SESSION_COOKIE_NAME)
    return Actor(session_token=SessionStore(session_key=cookie["value"])[SESSION_KEY])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", type=Path, default=DEFAULT_INPUT)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--step-timeout", type=float, default=30.0)
    parser.add_argument("--play-seconds", type=float, default=20.0)
    parser.add_argument("--idle-timeout", type=float, default=120.0)
    parser.add_argument("--timeout", type=float, default=300.0, help="s for any one phase")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args(argv)
    report: dict[str, Any] = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="minutes"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_implementation()} "
                   f"{platform.python_version()}",
    }
    stack = Stack(keep=args.keep).start()
    browser = Browser()
    try:
        browser.warm(stack.url)
        report["result"] = measure(stack, browser, args.input, args)
    finally:
        browser.close()
        stack.stop()
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
