"""Where the scheduling loop's time goes: cProfile of `Simulation.run()` on one input.

    python bench/profile_run.py ../shared/bench/perf-500n-1000p.yaml [--top 45] [--no-warm]

Loads the file with the command line's limits, runs the simulation once unprofiled (so one-time
imports, NumPy's among them, stay out of the profile; `--no-warm` keeps them in), then profiles a
second run from a fresh Simulation and prints, per function, its share of the profiled time
(cumulative and own) and its call count, largest cumulative first. Under the profiler every
Python call costs more: read the shares, not the seconds.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", type=Path)
    ap.add_argument("--top", type=int, default=45)
    ap.add_argument("--no-warm", action="store_true", help="profile the first run (imports included)")
    args = ap.parse_args()
    from scheduler_core.loader import CLI_LIMITS, load_scenario_file
    from scheduler_core.simulation import Simulation

    scenario = load_scenario_file(str(args.path), CLI_LIMITS)
    if not args.no_warm:
        Simulation(scenario, seed=0).run()
    sim = Simulation(scenario, seed=0)
    prof = cProfile.Profile()
    cpu = time.process_time()
    prof.enable()
    sim.run()
    prof.disable()
    cpu = time.process_time() - cpu
    stats = pstats.Stats(prof)
    total = stats.total_tt
    rows = []
    for (fn, line, name), (_cc, calls, own, cum, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        where = fn.split(str(ROOT) + "/")[-1]
        rows.append((cum, own, calls, f"{where}:{line}({name})"))
    rows.sort(reverse=True)
    print(f"profiled run: {cpu:.2f} s of process CPU, {total:.2f} s under the profiler")
    print("  cum %   own %     calls  function")
    for cum, own, calls, label in rows[:args.top]:
        print(f"{100 * cum / total:6.1f} {100 * own / total:7.1f} {calls:9d}  {label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
