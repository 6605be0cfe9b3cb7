"""What the first-difference comparison (scheduler_core.compare) costs on top of the two runs.

    .venv/bin/python bench/compare_cost.py                         # 300 nodes x 500 pods (the page's cap)
    .venv/bin/python bench/compare_cost.py --nodes 300 --pods 500 --repeat 3

Runs the generated scenario (bench/generate.py's shape) headless under v1.35 and v1.30 with
events recorded, then times folding each run's events into decisions (record_run) and comparing
them (compare_runs), best of --repeat. Prints one JSON line: the run and compare seconds, the
event counts and how many pods differ.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import render  # noqa: E402

from scheduler_core.api.loader import load_scenario_text  # noqa: E402
from scheduler_core.compare import compare_runs, record_run  # noqa: E402
from scheduler_core.simulation import Simulation  # noqa: E402


def _run(text: str, version: str) -> tuple[list[dict], object, float]:
    start = time.perf_counter()
    sim = Simulation(load_scenario_text(text, source="bench"), seed=1, record_events=True, kubernetes_version=version)
    while sim.step() not in ("settled", "max-time"):
        pass
    return sim.sink.events, sim.feature_gates, time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=300)
    ap.add_argument("--pods", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    text = render(args.nodes, args.pods)
    (ea, ga, ta), (eb, gb, tb) = _run(text, "v1.35"), _run(text, "v1.30")
    best = float("inf")
    diffs: list = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        diffs = compare_runs(record_run(ea), record_run(eb), (ga, gb), ("v1.35", "v1.30"))  # type: ignore[arg-type]
        best = min(best, time.perf_counter() - start)
    print(json.dumps({"nodes": args.nodes, "pods": args.pods, "run_s": [round(ta, 3), round(tb, 3)],
                      "events": [len(ea), len(eb)], "compare_s": round(best, 4), "pods_differing": len(diffs)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
