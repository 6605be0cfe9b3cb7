"""Fingerprint the engine's observable output, to prove a change altered no behaviour.

Runs `python -m scheduler_core simulate` and `trace` for every conformance case and both
benchmark files, at seeds 0, 1 and 7, and records the SHA-256 of each output stream. Refactors
and speed work compare against the stored baseline:

    python bench/golden.py --write bench/golden-baseline.json   # before
    python bench/golden.py --check bench/golden-baseline.json   # after: exit 1 on any difference

The output is hashed as it streams, so a multi-gigabyte trace never sits in memory here.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
SEEDS = (0, 1, 7)


def inputs(include_bench: bool) -> list[Path]:
    files = sorted((SHARED / "conformance" / "cases").glob("*.yaml"))
    if include_bench:
        files += sorted((SHARED / "bench").glob("perf-*.yaml"))
    return files


def fingerprint(job: tuple[str, Path, int, list[str]]) -> tuple[str, str]:
    command, path, seed, extra = job
    proc = subprocess.Popen(
        [sys.executable, "-m", "scheduler_core", command, str(path), "--seed", str(seed), *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    digest = hashlib.sha256()
    assert proc.stdout is not None
    for chunk in iter(lambda: proc.stdout.read(1 << 20), b""):
        digest.update(chunk)
    rc = proc.wait()
    return f"{command} {path.name} seed={seed}", f"{digest.hexdigest()} rc={rc}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", type=Path)
    group.add_argument("--check", type=Path)
    ap.add_argument("--no-bench", action="store_true", help="conformance cases only")
    ap.add_argument("--no-trace-bench", action="store_true",
                    help="skip trace of the benchmark files (the slowest part)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--simulate-args", default="", help="extra flags for every call")
    args = ap.parse_args()
    extra = args.simulate_args.split()
    jobs = []
    for path in inputs(not args.no_bench):
        for seed in SEEDS:
            for command in ("simulate", "trace"):
                if command == "trace" and args.no_trace_bench and path.parent.name == "bench":
                    continue
                jobs.append((command, path, seed, extra))
    with ThreadPoolExecutor(args.jobs) as pool:
        got = dict(pool.map(fingerprint, jobs))
    if args.write:
        args.write.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
        print(f"wrote {len(got)} fingerprints to {args.write}")
        return 0
    want = json.loads(args.check.read_text())
    diff = sorted(k for k in got if k in want and got[k] != want[k])
    missing = sorted(k for k in want if k not in got)
    for key in diff:
        print(f"DIFFERS  {key}")
    print(f"{len(got) - len(diff)} of {len(got)} identical; {len(diff)} differ; "
          f"{len(missing)} in the baseline not run")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
