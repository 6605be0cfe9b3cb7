"""What the run metrics cost: `simulate` with and without `--metrics`, and the metrics page of a
run stepped like the web steps it (one frame per cycle, the plugins timed per step as the worker
times them), rendered with its real template.

    python bench/metrics.py ../shared/bench/perf-5000n-1000p.yaml [--seed 0]

Prints the wall time of both commands, the events the metrics read, the time to recompute the
metrics over the whole stream, and the page's size and render time (bounded by MAX_POINTS, not
by the nodes or the steps).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _timed(argv: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    base = [sys.executable, "-m", "scheduler_core", "simulate", args.file, "--seed", str(args.seed)]
    plain = _timed(base)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "m.prom"
        with_metrics = _timed([*base, "--metrics", str(out)])
        size = out.stat().st_size
    print(f"simulate: {plain:.2f} s; with --metrics: {with_metrics:.2f} s ({with_metrics / plain:.2f}x); "
          f"exposition {size:,} bytes")

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.template.loader import render_to_string

    from playground.presenters.runs.metrics import metrics_page, wall_page
    from playground.selectors.run_metrics import MAX_POINTS, thin
    from scheduler_core.loader import CLI_LIMITS, load_scenario_file
    from scheduler_core.metrics import RunMetrics
    from scheduler_core.metrics.run_metrics import METRIC_EVENT_TYPES
    from scheduler_core.metrics.wall import PluginWallClock
    from scheduler_core.simulation import Simulation

    events: list[dict] = []
    sim = Simulation(load_scenario_file(args.file, limits=CLI_LIMITS), seed=args.seed, record_events=True,
                     event_writer=lambda ev: events.append(ev) if ev["type"] in METRIC_EVENT_TYPES else None)
    frames: list[int] = []  # the last event index of each step
    wall, walls = PluginWallClock(), []  # the engine's own time per step, as the worker stores it
    while True:
        with wall.attached(sim.scheduler.profiles):
            result = sim.step(3600.0)
        walls.append(wall.take_rows())
        frames.append(len(events))
        if result in ("settled", "max-time"):
            break
    t0 = time.perf_counter()
    metrics, points, i = RunMetrics(), [], 0
    for step, end in enumerate(frames):
        while i < end:
            metrics.feed(events[i])
            i += 1
        points.append({"step": step, **metrics.summary()})
    recompute = time.perf_counter() - t0
    t0 = time.perf_counter()
    context = metrics_page(points=thin(points, MAX_POINTS), metrics=metrics, run_url="/runs/x/", steps=len(points))
    totals, wall_points = PluginWallClock(), []
    for p, rows in zip(points, walls, strict=True):
        totals.add_rows(rows)
        wall_points.append({**p, "seconds": sum(r[3] for r in rows)})
    context.update(wall_page(thin(wall_points, MAX_POINTS), totals, "/runs/x/"))
    html = render_to_string("playground/runs/metrics.html", {
        **context, "run": {"scenario_name": Path(args.file).stem, "share_token": "x"},
        "frame": {"step": len(points) - 1, "cycle": metrics.last_cycle, "clock": metrics.last_time},
        "pinned": False, "run_url": "/runs/x/"})
    render = time.perf_counter() - t0
    print(f"steps {len(points):,}; metric events {len(events):,}; recomputed in {recompute:.2f} s; "
          f"page {len(html.encode()):,} bytes ({min(len(points), MAX_POINTS)} points), rendered in {render * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
