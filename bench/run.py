"""Throughput benchmark: scheduler_core against upstream kube-scheduler's figures.

    python bench/run.py [--runs 3] [--files ../shared/bench/perf-500n-1000p.yaml ...]

For each input it loads the scenario once, then times `Simulation.run()` headless (no event
listeners) from the first scheduling cycle to the last binding, several times, and reports the
median pods/s and its ratio to upstream's figure (../shared/bench/README.md: v1.35.4 in-process,
parallelism 1, same machine size). It also checks every pod got bound, so speed is never bought
with different placements. Numbers, not assertions: nothing here fails a test run.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scheduler_core.api.loader import load_scenario_file  # noqa: E402
from scheduler_core.simulation import Simulation  # noqa: E402

# Upstream pods/s (two runs each), from ../shared/bench/README.md.
UPSTREAM = {
    "perf-500n-1000p.yaml": (847, 970),
    "perf-5000n-1000p.yaml": (389, 416),
}


def bench_file(path: Path, runs: int) -> dict:
    t0 = time.perf_counter()
    scenario = load_scenario_file(str(path))
    load_s = time.perf_counter() - t0
    pending = sum(1 for p in scenario.pods if not p.node_name)
    rates = []
    bound = 0
    for _ in range(runs):
        sim = Simulation(scenario, seed=0)
        t1 = time.perf_counter()
        sim.run()
        dt = time.perf_counter() - t1
        rates.append(pending / dt if dt > 0 else float("inf"))
        bound = sum(1 for r in sim.scheduler.cluster.records.values() if r.status == "Bound")
    med = statistics.median(rates)
    up = UPSTREAM.get(path.name)
    up_med = statistics.median(up) if up else None
    return {
        "file": path.name,
        "pods": pending,
        "bound": bound,
        "load_seconds": round(load_s, 3),
        "runs_pods_per_s": [round(r, 1) for r in rates],
        "median_pods_per_s": round(med, 1),
        "upstream_median_pods_per_s": up_med,
        "ratio_vs_upstream": round(med / up_med, 3) if up_med else None,
        # Peak resident memory of this process so far (scenario + engine state), in MiB.
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--files", nargs="*", default=[str(ROOT.parent / "shared" / "bench" / n) for n in UPSTREAM])
    args = ap.parse_args()
    for f in args.files:  # smallest first, so each peak RSS reads as that input's footprint
        print(json.dumps(bench_file(Path(f), args.runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
