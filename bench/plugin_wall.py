"""What timing the plugins costs the web worker: the first N steps of a scenario, stepped as the
worker steps (one `Simulation.step` per unit), two engines in turn: without a clock and with the engine's
`PluginWallClock` attached around each step and its rows taken after it (`Engine.execute`), plus
attaching and detaching alone. Without a clock the engine runs exactly as before (nothing is wrapped).

    python bench/plugin_wall.py ../shared/bench/perf-5000n-1000p.yaml [--steps 300] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scheduler_core.loader import CLI_LIMITS, load_scenario_file  # noqa: E402
from scheduler_core.metrics.wall import PluginWallClock  # noqa: E402
from scheduler_core.simulation import Simulation  # noqa: E402


def _interleaved(file: str, seed: int, steps: int) -> tuple[float, float, int, int]:
    """Two engines of the same scenario stepped in turn, one plain and one timed, so that the
    shared machine's load changes weigh on both alike. Returns (plain s, timed s, calls, rows)."""
    plain = Simulation(load_scenario_file(file, limits=CLI_LIMITS), seed=seed, record_events=True,
                       event_writer=lambda ev: None)
    timed = Simulation(load_scenario_file(file, limits=CLI_LIMITS), seed=seed, record_events=True,
                       event_writer=lambda ev: None)
    profiles = timed.scheduler.profiles
    wall = PluginWallClock()
    plain_s = timed_s = 0.0
    calls = rows = 0
    clock = time.perf_counter
    for _ in range(steps):
        t0 = clock()
        result = plain.step(3600.0)
        t1 = clock()
        with wall.attached(profiles):
            timed.step(3600.0)
        step_rows = wall.take_rows()
        t2 = clock()
        plain_s += t1 - t0
        timed_s += t2 - t1
        calls += sum(r[4] for r in step_rows)
        rows += len(step_rows)
        if result in ("settled", "max-time"):
            break
    return plain_s, timed_s, calls, rows


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    plain, timed, calls, rows = _interleaved(args.file, args.seed, args.steps)
    print(f"{args.steps} steps: no clock {plain:.2f} s; a clock attached per step {timed:.2f} s "
          f"({timed / plain:.3f}x); {calls:,} timed calls, {rows / args.steps:.1f} rows stored a step")
    sim = Simulation(load_scenario_file(args.file, limits=CLI_LIMITS), seed=args.seed)
    n = 1000
    wall = PluginWallClock()
    t0 = time.perf_counter()
    for _ in range(n):
        with wall.attached(sim.scheduler.profiles):
            pass
    print(f"attach + detach alone: {(time.perf_counter() - t0) / n * 1e6:.0f} µs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
