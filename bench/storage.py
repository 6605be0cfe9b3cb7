"""Storage and devices benchmark: the 5,000 x 10,000 run with and without volumes and GPUs.

    python bench/storage.py [--runs 3] [--nodes 5000 --pods 10000]

Prints one JSON line per input, measured the way bench/run.py measures (a fresh interpreter per
input, `Simulation.run()` headless from the first cycle to the last binding, the child's peak
RSS): first the plain input (bench/generate.py, no volume, no device), then the same cluster with
PVCs on a third of the pods and a GPU claim on a tenth (bench/generate_storage.py), then each
half alone (`--only volumes`, `--only devices`). The last line gives the storage input's speed
and memory relative to the plain one. Upstream's figures for these inputs (side by side on this
machine) are in ../shared/bench/README.md. Numbers, never assertions.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))


def child(path: Path, runs: int) -> dict:
    """bench/run.py's measurement of one input, in a fresh interpreter."""
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--child", str(path),
                           "--runs", str(runs)], capture_output=True, text=True, cwd=ROOT, check=False)
    if proc.returncode != 0:
        return {"file": path.name, "error": proc.stderr.strip().splitlines()[-3:]}
    return {"file": path.name, **json.loads(proc.stdout.strip().splitlines()[-1])}


def main() -> int:
    import generate
    import generate_storage

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--nodes", type=int, default=generate_storage.DEFAULT[0])
    ap.add_argument("--pods", type=int, default=generate_storage.DEFAULT[1])
    args = ap.parse_args()
    plain = child(generate.ensure(args.nodes, args.pods), args.runs)
    print(json.dumps({"input": "plain", **plain}), flush=True)
    storage = child(generate_storage.ensure(args.nodes, args.pods), args.runs)
    print(json.dumps({"input": "storage+devices", **storage}), flush=True)
    for only in ("volumes", "devices"):
        half = child(generate_storage.ensure(args.nodes, args.pods, only=only), args.runs)
        print(json.dumps({"input": f"{only} only", **half}), flush=True)
    if "error" not in plain and "error" not in storage:
        print(json.dumps({
            "storage_vs_plain_speed": round(storage["median_pods_per_s"] / plain["median_pods_per_s"], 3),
            "storage_vs_plain_memory": round(storage["peak_rss_mib"] / plain["peak_rss_mib"], 3),
        }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
