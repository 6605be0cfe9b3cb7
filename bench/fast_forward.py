"""Fast-forward on the real stack: "Run to end" clicked in Chromium, until the page says settled.

    python bench/fast_forward.py --nodes 2000 --pods 4000 --json /tmp/ff.json

Starts the real stack (Redis, one Celery worker, the web server, a temporary SQLite database:
bench/web_stack.py, as bench/envelope_web.py does) and drives headless Chromium as the
scenario's owner would:

- create: a generated scenario (bench/generate.py's shape: N nodes, P pending pods that all
  fit) uploaded on /scenarios/; then "Start run" and the run page's socket live;
- fast-forward: press "Run to end" (#btn-run-end); `settled_s` is the time from the click until
  the page's status badge (#run-state) says "settled", as the user sees it; the status line's
  cycle is sampled meanwhile (`progress`: what the page showed on the way). When the page says a
  live update was too large to send ("reload the page"), the page is reloaded as it asks
  (`reloads`: when and what it said); `server_s` is the action's own time, queued to done;
  `ws_messages` / `ws_largest_bytes`: the websocket messages the page got meanwhile;
- outcome: `bound` pods at the head, `identical_to_simulate` (every pod's status and node equal
  to `python -m scheduler_core simulate` on the run's YAML and seed, run in this process's
  interpreter), frames and events stored, the database's growth;
- the final run page opened in a fresh tab: its HTML bytes and load time, `map_nodes` (elements
  with `data-node` inside the cluster map #run-map) and `map_pods_in_their_node` (bound pods whose
  chip `[data-pod="ns/name"]` is inside the map element of the node they are bound to). A page
  without the map reports 0 (`map_present` says whether #run-map was there).

Also the CPU seconds of each part of the stack during the fast-forward (`Stack.cpu_seconds`) and
the load average: on a shared machine those, not the wall times, are the comparable figures.
Figures only, nothing is asserted.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.generate import render  # noqa: E402
from bench.scenario_page import Wire, create_scenario, start_run  # noqa: E402
from bench.web import db_state  # noqa: E402
from bench.web_page import Browser, first_load  # noqa: E402
from bench.web_stack import ROOT, Stack  # noqa: E402

MAP_CHIPS = """() => {
  const map = document.querySelector('#run-map');
  const nodes = map ? map.querySelectorAll('[data-node]') : [];
  const where = {};
  if (map) for (const chip of map.querySelectorAll('[data-pod]')) {
    const node = chip.closest('[data-node]');
    if (node) where[chip.getAttribute('data-pod')] = node.getAttribute('data-node');
  }
  return {present: !!map, nodes: nodes.length, chips: where};
}"""


def cpu_delta(stack: Stack, before: dict[str, float]) -> dict[str, float]:
    """CPU seconds each part of the stack used since `before`."""
    after = stack.cpu_seconds()
    return {role: round(after.get(role, 0.0) - before.get(role, 0.0), 2) for role in after}


def simulated(yaml_text: str, seed: int) -> dict[str, tuple[str, str | None]]:
    """pod key -> (status, node) from the command line's `simulate` on the same YAML and seed."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as handle:
        handle.write(yaml_text)
    try:
        out = subprocess.run([sys.executable, "-m", "scheduler_core", "simulate", "--seed", str(seed), handle.name],
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(handle.name)
    return {f"{p['namespace']}/{p['name']}": (p["status"], p.get("node")) for p in json.loads(out)["pods"]}


def head_placements(run: Any) -> dict[str, tuple[str, str | None]]:
    """pod key -> (status, node) at the run's stored head (the frames' view, as pages read it)."""
    from playground.selectors.frame_views import view_at

    view = view_at(run=run, step=run.head_step)
    return {p["key"]: (p["status"], p.get("node")) for p in view.get("pods") or []}


def count_frames(page: Any) -> list[int]:
    """The sizes of the websocket messages `page` receives from now on (its sockets opened later too)."""
    frames: list[int] = []
    page.on("websocket", lambda ws: ws.on(
        "framereceived", lambda payload: frames.append(len(payload.encode() if isinstance(payload, str) else payload))))
    return frames


def fast_forward(page: Any, timeout_s: float, frames: list[int]) -> dict[str, Any]:
    """Click "Run to end"; seconds until the status badge says settled, with the cycle the page
    showed about every half second on the way, and the websocket messages it got meanwhile
    (`ws_messages`, `ws_largest_bytes`: a message that grows with the cluster shows here)."""
    first = len(frames)
    t0 = time.monotonic()
    page.locator("#btn-run-end").click()
    progress: list[tuple[float, str]] = []
    settled = False
    reloads: list[str] = []
    while time.monotonic() - t0 < timeout_s:
        state = page.evaluate("() => [(document.querySelector('#run-state') || {}).textContent,"
                              " (document.querySelector('#run-cycle') || {}).textContent,"
                              " (document.querySelector('#run-socket') || {}).textContent]")
        if not progress or progress[-1][1] != state[1]:
            progress.append((round(time.monotonic() - t0, 2), (state[1] or "").strip()))
        if (state[0] or "").strip() == "settled":
            settled = True
            break
        if "reload the page" in (state[2] or ""):  # a live update too large to send: do as it says
            reloads.append(f"{round(time.monotonic() - t0, 2)} s: {state[2].strip()}")
            page.reload(wait_until="load")
            continue
        page.wait_for_timeout(100)
    elapsed = time.monotonic() - t0
    return {"settled_s": round(elapsed, 2) if settled else None, "progress": progress[:60], "reloads": reloads,
            "ws_messages": len(frames) - first, "ws_largest_bytes": max(frames[first:], default=0)}


def measure(stack: Stack, browser: Browser, nodes: int, pods: int, timeout_s: float) -> dict[str, Any]:
    from playground.models import Run

    result: dict[str, Any] = {"nodes": nodes, "pods": pods, "load_average_before": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"perf-{nodes}n-{pods}p.yaml"
        path.write_text(render(nodes, pods))
        context = browser.chromium.new_context(base_url=stack.url)
        context.set_default_timeout(timeout_s * 1000)
        page = context.new_page()
        frames = count_frames(page)
        wire = Wire(page)
        try:
            result["create"] = create_scenario(page, wire, path, f"fast-forward {nodes}x{pods}")
            result["start"] = start_run(page, wire, timeout_s)
            print(f"[fast-forward] created {result['create'].get('s')} s, started {result['start'].get('s')} s",
                  file=sys.stderr, flush=True)
            run = Run.objects.get(share_token=re.search(r"/runs/([^/]+)/", page.url).group(1))
            before = db_state(stack, run)
            cpu = stack.cpu_seconds()
            ran = fast_forward(page, timeout_s, frames)
            result.update(ran)
            result["stack_cpu_s"] = cpu_delta(stack, cpu)
            print(f"[fast-forward] settled after {ran['settled_s']} s", file=sys.stderr, flush=True)
            run.refresh_from_db()
            action = run.actions.order_by("-index").first()
            if action is not None and action.done_at is not None:
                result["server_s"] = round((action.done_at - action.created_at).total_seconds(), 2)
            after = db_state(stack, run)
            result["db"] = {"frames": after["frames"] - before["frames"], "events": after["events"] - before["events"],
                            "db_growth_bytes": after["db_bytes"] - before["db_bytes"], "cycle": run.cycle,
                            "status": run.status}
            placed = head_placements(run)
            bound = {key: node for key, (status, node) in placed.items() if status == "Bound" and node}
            result["bound"] = len(bound)
            result["identical_to_simulate"] = placed == simulated(run.scenario_yaml, run.seed)

            tab = context.new_page()
            # A socket that never says "live" (its first update too large to send) is reported as None.
            result["final_page"] = first_load(tab, f"/runs/{run.share_token}/", min(timeout_s, 30.0))
            result["final_page"]["socket_says"] = tab.evaluate(
                "() => (document.querySelector('#run-socket') || {}).textContent || ''").strip()
            found = tab.evaluate(MAP_CHIPS)
            result["map_present"] = found["present"]
            result["map_nodes"] = found["nodes"]
            result["map_pods_in_their_node"] = sum(1 for key, node in bound.items() if found["chips"].get(key) == node)
            tab.close()
        finally:
            context.close()
    result["load_average_after"] = os.getloadavg()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--pods", type=int, default=4000)
    parser.add_argument("--timeout", type=float, default=600.0, help="s for any one phase")
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
        report["result"] = measure(stack, browser, args.nodes, args.pods, args.timeout)
    finally:
        browser.close()
        stack.stop()
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
