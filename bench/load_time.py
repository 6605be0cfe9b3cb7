"""Where loading a big scenario goes: read, YAML parse, strict checks, workload expansion, build.

    python bench/load_time.py bench/inputs/envelope-5000n-150000p.yaml [--runs 3] [--start]

Each run is a fresh interpreter that reads the file and calls `load_scenario_file` as the
command line does (its limits), once. The loader's stages are timed in place (wall and CPU of
this process) by wrapping the functions `load.py` calls, so the figures add up to the one load
that a user waits for: `parse` (decode_yaml: the text to documents, strict YAML guards included),
`check` (strict fields of the documents as written), `expand` (workload controllers), `flatten`
(kinds of every object; strict fields of those `check` did not see: the controllers' output),
`build` (objects, admission, cross checks). Prints one JSON line per run, with the child's peak
RSS. Machines shared with other work inflate the wall
times; the CPU times are the figures to compare. `--start` also builds the engine from the loaded
scenario (`Simulation(...)`: the API server's store, the cache, the queue, the controllers, as
`simulate` does before its first cycle) and reports that as `start_s` / `start_cpu_s`.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

STAGES = {"decode_yaml": "parse", "check_workload_documents": "check",
          "expand_workloads": "expand", "flatten_documents": "flatten",
          "build_scenario": "build"}


def _timed(fn: Callable[..., Any], name: str, wall: dict[str, float],
           cpu: dict[str, float]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        w0, c0 = time.perf_counter(), time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            wall[name] = wall.get(name, 0.0) + time.perf_counter() - w0
            cpu[name] = cpu.get(name, 0.0) + time.process_time() - c0
    return wrapper


def child(path: Path, start: bool = False) -> dict[str, Any]:
    from scheduler_core.loader import CLI_LIMITS, load_scenario_file
    from scheduler_core.loader import load as load_module
    from scheduler_core.simulation import Simulation

    wall: dict[str, float] = {}
    cpu: dict[str, float] = {}
    for attr, name in STAGES.items():
        setattr(load_module, attr, _timed(getattr(load_module, attr), name, wall, cpu))
    w0, c0 = time.perf_counter(), time.process_time()
    scenario = load_scenario_file(path, limits=CLI_LIMITS)
    total_wall, total_cpu = time.perf_counter() - w0, time.process_time() - c0
    other_wall = total_wall - sum(wall.values())
    other_cpu = total_cpu - sum(cpu.values())
    started: dict[str, float] = {}
    if start:
        w0, c0 = time.perf_counter(), time.process_time()
        Simulation(scenario)
        started = {"start_s": round(time.perf_counter() - w0, 2),
                   "start_cpu_s": round(time.process_time() - c0, 2)}
    return {"file": path.name, "bytes": path.stat().st_size, "nodes": len(scenario.nodes),
            "pods": len(scenario.pods), "total_s": round(total_wall, 2),
            "total_cpu_s": round(total_cpu, 2),
            **{f"{k}_s": round(v, 2) for k, v in wall.items()},
            **{f"{k}_cpu_s": round(v, 2) for k, v in cpu.items()},
            "read_and_other_s": round(other_wall, 2), "read_and_other_cpu_s": round(other_cpu, 2),
            **started,
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", type=Path)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--start", action="store_true", help="also time the engine's start")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.path, args.start)))
        return 0
    for _ in range(args.runs):
        proc = subprocess.run([sys.executable, __file__, str(args.path), "--child",
                               *(["--start"] if args.start else [])], capture_output=True,
                              text=True, cwd=ROOT, check=False)
        print(proc.stdout.strip() or proc.stderr.strip().splitlines()[-1], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
