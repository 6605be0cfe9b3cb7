"""Where loading a big scenario goes: YAML parse against building the scenario.

    python bench/load_time.py bench/inputs/envelope-5000n-150000p.yaml [--runs 3]

Each run is a fresh interpreter that reads the file, then times `decode_yaml` (libyaml's C
parser through the strict loader: duplicate keys, depth and alias guards, marks kept for
located errors) and then `load_scenario_text` as the command line calls it (the same parse
again, plus validation, workload expansion and building the objects). Prints one JSON line per
run: parse seconds, whole load seconds, build = load - parse, peak RSS of the child.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def child(path: Path) -> dict:
    from scheduler_core.api.loader import CLI_LIMITS, load_scenario_text
    from scheduler_core.api.loader.yaml_input import decode_yaml

    text = path.read_text(encoding="utf-8")
    t0 = time.perf_counter()
    docs, _ = decode_yaml(text, str(path))
    parse = time.perf_counter() - t0
    n_docs = len(docs)
    del docs
    t1 = time.perf_counter()
    scenario = load_scenario_text(text, source=str(path), limits=CLI_LIMITS)
    load = time.perf_counter() - t1
    return {"file": path.name, "bytes": len(text), "documents": n_docs, "nodes": len(scenario.nodes),
            "pods": len(scenario.pods), "parse_s": round(parse, 2), "load_s": round(load, 2),
            "build_s": round(load - parse, 2),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", type=Path)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.path)))
        return 0
    for _ in range(args.runs):
        proc = subprocess.run([sys.executable, __file__, str(args.path), "--child"], capture_output=True,
                              text=True, cwd=ROOT, check=False)
        print(proc.stdout.strip() or proc.stderr.strip().splitlines()[-1], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
