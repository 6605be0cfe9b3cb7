"""What the event stream costs: `trace` against `simulate` on the same file, in fresh processes.

    python bench/trace.py                                  # both benchmark files, 3 runs each
    python bench/trace.py --files ../shared/bench/perf-500n-1000p.yaml --runs 1
    python bench/trace.py --append-results --note "..."    # also append the table to bench/history/runs.md
    python bench/trace.py --root /path/to/other/checkout   # measure another version of the engine
    python bench/trace.py --files F --runs 2 --run-phase   # also the run alone, load left out
    python bench/trace.py --files F --runs 2 --run-phase-only   # only the run alone

Each run is `python -m scheduler_core simulate|trace FILE` in a new process (no warm caches
shared between the two); its output is read through a pipe and counted, not kept. For each
file it reports the median wall time, the median CPU time (user + system: steadier than wall
time on a shared machine) and the largest peak RSS of each command (the child's rusage from
wait4), their ratios, the trace's size, and how soon its first event arrived
(a streamed trace starts at once; one held to the end arrives all at the end). The goal
(issue: the event stream costs little): `trace` at most 1.5x the time and 3x the memory of
`simulate`. Numbers, not assertions.

`--run-phase` also times what each command costs per pod: in fresh processes, the scenario
loaded, then only the run (the engine's cycles; for trace, every event encoded and written to
/dev/null), CPU seconds. At 65,000 nodes a file of 2,000 pods spends more on loading than on
running, so the whole-process ratio says little about 100,000 pods; the run's ratio does.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH_FILES = [ROOT.parent / "shared" / "bench" / "perf-500n-1000p.yaml",
               ROOT.parent / "shared" / "bench" / "perf-5000n-1000p.yaml"]
TIME_GOAL, MEMORY_GOAL = 1.5, 3.0


@dataclass
class Sample:
    seconds: float
    cpu_s: float
    peak_rss_mib: float
    out_bytes: int
    first_byte_s: float | None
    rc: int


def run_once(root: Path, command: str, path: Path) -> Sample:
    """One fresh process; its stdout is drained in 1 MiB reads and counted."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "scheduler_core", command, str(path)], cwd=root,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    total, first = 0, None
    fd = proc.stdout.fileno()
    while chunk := os.read(fd, 1 << 20):
        if first is None:
            first = time.perf_counter() - t0
        total += len(chunk)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return Sample(seconds, cpu, usage.ru_maxrss / 1024, total, first, proc.returncode)


def measure(root: Path, path: Path, runs: int) -> dict[str, list[Sample]]:
    """simulate and trace alternately, `runs` times each (so machine load hits both alike)."""
    got: dict[str, list[Sample]] = {"simulate": [], "trace": []}
    for _ in range(runs):
        for command in ("simulate", "trace"):
            sample = run_once(root, command, path)
            if sample.rc != 0:
                raise SystemExit(f"{command} {path.name} exited {sample.rc}")
            got[command].append(sample)
            print(f"  {command:8s} {path.name}: {sample.seconds:.2f} s ({sample.cpu_s:.2f} s CPU), "
                  f"{sample.peak_rss_mib:.0f} MiB, "
                  f"{sample.out_bytes / 2**20:.1f} MiB out", file=sys.stderr)
    return got


def row(path: Path, got: dict[str, list[Sample]]) -> tuple[str, bool]:
    sim, tr = got["simulate"], got["trace"]
    t_sim = statistics.median(s.seconds for s in sim)
    t_tr = statistics.median(s.seconds for s in tr)
    c_sim = statistics.median(s.cpu_s for s in sim)
    c_tr = statistics.median(s.cpu_s for s in tr)
    m_sim = max(s.peak_rss_mib for s in sim)
    m_tr = max(s.peak_rss_mib for s in tr)
    first = statistics.median(s.first_byte_s or 0.0 for s in tr)
    ok = t_tr / t_sim <= TIME_GOAL and m_tr / m_sim <= MEMORY_GOAL
    line = (f"| {path.name} | {t_sim:.2f} s ({c_sim:.2f} s CPU) / {m_sim:.0f} MiB | "
            f"{t_tr:.2f} s ({c_tr:.2f} s CPU) / {m_tr:.0f} MiB | "
            f"**{t_tr / t_sim:.2f}x** ({c_tr / c_sim:.2f}x CPU) | **{m_tr / m_sim:.2f}x** | "
            f"{tr[0].out_bytes / 2**20:.1f} MiB | "
            f"{first:.2f} s | {len(sim)} | {'yes' if ok else 'no'} |")
    return line, ok


RUN_PHASE = """
import sys, time
from scheduler_core.events.jsonl import event_line_writer
from scheduler_core.loader import CLI_LIMITS, load_scenario_file
from scheduler_core.simulation import Simulation
scenario = load_scenario_file(sys.argv[1], limits=CLI_LIMITS)
out = open('/dev/null', 'w', buffering=1 << 20) if sys.argv[2] == 'trace' else None
sim = Simulation(scenario, seed=0, record_events=out is not None,
                 event_writer=event_line_writer(out) if out is not None else None)
t0 = time.process_time()
sim.run(3600.0)
if out is not None:
    out.flush()
print(time.process_time() - t0)
"""


def run_phase(root: Path, command: str, path: Path) -> float:
    """CPU seconds of the run alone (the load left out), in a fresh process."""
    proc = subprocess.run([sys.executable, "-c", RUN_PHASE, str(path), command], cwd=root,
                          capture_output=True, text=True, check=True)
    return float(proc.stdout.strip().splitlines()[-1])


def run_phase_row(root: Path, path: Path, runs: int) -> str:
    """simulate and trace alternately, `runs` times each; the lowest CPU of each."""
    got: dict[str, list[float]] = {"simulate": [], "trace": []}
    for _ in range(runs):
        for command in got:
            got[command].append(run_phase(root, command, path))
            print(f"  run phase {command:8s} {path.name}: {got[command][-1]:.2f} s CPU", file=sys.stderr)
    sim, tr = min(got["simulate"]), min(got["trace"])
    return f"| {path.name} | {sim:.2f} s | {tr:.2f} s | **{tr / sim:.2f}x** | {runs} |"


RUN_PHASE_HEADER = ("| file | simulate's run (CPU) | trace's run (CPU) | ratio | runs |\n"
                    "|---|---|---|---|---|")


HEADER = ("| file | simulate: wall (CPU) / peak RSS | trace: wall (CPU) / peak RSS | time ratio | memory ratio | "
          "trace size | trace's first byte | runs | within 1.5x / 3x |\n"
          "|---|---|---|---|---|---|---|---|---|")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", nargs="*", type=Path, default=BENCH_FILES)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout whose engine to run")
    ap.add_argument("--append-results", action="store_true", help="append the table to bench/history/runs.md")
    ap.add_argument("--note", default="", help="a line printed above the appended table")
    ap.add_argument("--run-phase", action="store_true",
                    help="also time the run alone (load left out): the per-pod ratio")
    ap.add_argument("--run-phase-only", action="store_true",
                    help="time the run alone and skip the whole-process runs (late-run dumps load for long)")
    args = ap.parse_args()
    lines, all_ok = [], True
    for path in [] if args.run_phase_only else args.files:
        line, ok = row(path, measure(args.root.resolve(), path, args.runs))
        lines.append(line)
        all_ok &= ok
    table = HEADER + "\n" + "\n".join(lines) if lines else ""
    if args.run_phase or args.run_phase_only:
        phase = [run_phase_row(args.root.resolve(), path, args.runs) for path in args.files]
        table += ("\n\n" if table else "") + RUN_PHASE_HEADER + "\n" + "\n".join(phase)
    print(table)
    if args.append_results:
        with (ROOT / "bench" / "history" / "runs.md").open("a") as out:
            out.write(f"\n### `python bench/trace.py` ({time.strftime('%Y-%m-%d')})\n\n")
            if args.note:
                out.write(args.note + "\n\n")
            out.write(table + "\n")
    if lines:
        print(f"goal met at every size: {'yes' if all_ok else 'no'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
