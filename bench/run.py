"""Throughput benchmark: scheduler_core against upstream kube-scheduler's figures.

    python bench/run.py [--runs 5] [--all] [--only 15000n-1000p ...]

For each input, in a fresh subprocess (so one input's peak memory never mixes with another's),
it loads the scenario once, builds the simulation (setup: nodes and pods into the cache and
queue), then times `Simulation.run()` headless (no event listeners) from the first scheduling
cycle to the last binding, several times. It prints one JSON line per input: the median pods/s
over the runs, the ratio to upstream's median on the same input (re-measured side by side on
this kind of machine; ../shared/bench/README.md), the child's peak RSS, load and setup times,
and a SHA-256 of the `simulate` result of the first run, so speed is never bought with different
placements (compare it before and after a change). Numbers, not assertions: nothing here fails
a test run.

Inputs: the two shared files, plus inputs of the same shape written on demand by
bench/generate.py into bench/inputs/. `--all` adds 1,000 x 1,000 and 1,000 x 30,000.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED_BENCH = ROOT.parent / "shared" / "bench"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

# (nodes, pods) -> upstream kube-scheduler v1.35.4 median pods/s, from ../shared/bench/README.md.
UPSTREAM = {
    (500, 1000): 1439,
    (5000, 1000): 693,
    (5000, 10000): 498,
    (15000, 1000): 419,
    (1000, 1000): 756,
    (1000, 30000): 808,
}
DEFAULT = ((500, 1000), (5000, 1000), (5000, 10000), (15000, 1000))
EXTRA = ((1000, 1000), (1000, 30000))


def input_path(nodes: int, pods: int) -> Path:
    """The shared file when there is one, else the generated file (written if missing)."""
    import generate

    shared = SHARED_BENCH / generate.file_name(nodes, pods)
    return shared if shared.exists() else generate.ensure(nodes, pods)


def measure(path: Path, runs: int) -> dict:
    """Time one input in this process (the child's side)."""
    from scheduler_core.api.loader import CLI_LIMITS, load_scenario_file
    from scheduler_core.simulation import Simulation

    t0 = time.perf_counter()
    scenario = load_scenario_file(str(path), CLI_LIMITS)  # the command line's limits: 15,000 nodes
    load_s = time.perf_counter() - t0
    pending = sum(1 for p in scenario.pods if not p.node_name)
    rates, cpu_rates, setups = [], [], []
    bound = 0
    digest = ""
    for i in range(runs):
        t1 = time.perf_counter()
        sim = Simulation(scenario, seed=0)
        t2, c2 = time.perf_counter(), time.process_time()
        settled = sim.run()
        dt, cdt = time.perf_counter() - t2, time.process_time() - c2
        setups.append(t2 - t1)
        rates.append(pending / dt if dt > 0 else float("inf"))
        cpu_rates.append(pending / cdt if cdt > 0 else float("inf"))
        if i == 0:
            bound = sum(1 for r in sim.scheduler.cluster.records.values() if r.status == "Bound")
            text = json.dumps(sim.result(settled), indent=2, sort_keys=False)
            digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        del sim
    return {
        "pods": pending,
        "bound": bound,
        "load_seconds": round(load_s, 3),
        "setup_seconds": round(statistics.median(setups), 3),
        "runs_pods_per_s": [round(r, 1) for r in rates],
        "median_pods_per_s": round(statistics.median(rates), 1),
        # The same over this process's CPU time: steadier than wall time on a shared machine.
        "median_cpu_pods_per_s": round(statistics.median(cpu_rates), 1),
        # Peak resident memory of this child (scenario + engine state), in MiB.
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "result_sha256": digest,
    }


def run_child(nodes: int, pods: int, runs: int) -> dict:
    """Measure one input in a fresh interpreter and add the upstream comparison."""
    path = input_path(nodes, pods)
    proc = subprocess.run([sys.executable, __file__, "--child", str(path), "--runs", str(runs)],
                          capture_output=True, text=True, cwd=ROOT, check=False)
    if proc.returncode != 0:
        return {"input": f"{nodes}x{pods}", "error": proc.stderr.strip().splitlines()[-1:]}
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    up = UPSTREAM[(nodes, pods)]
    return {"input": f"{nodes}x{pods}", "file": path.name, **out, "upstream_pods_per_s": up,
            "ratio_vs_upstream": round(out["median_pods_per_s"] / up, 3)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--all", action="store_true", help="also 1,000 x 1,000 and 1,000 x 30,000")
    ap.add_argument("--only", nargs="*", default=None, metavar="NODESn-PODSp",
                    help="just these inputs, e.g. 15000n-1000p")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(measure(args.child, args.runs)))
        return 0
    sizes = list(DEFAULT) + (list(EXTRA) if args.all else [])
    if args.only:
        sizes = [s for s in UPSTREAM if f"{s[0]}n-{s[1]}p" in args.only]
    for nodes, pods in sizes:
        print(json.dumps(run_child(nodes, pods, args.runs)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
