"""What refusing an oversized scenario costs: time and memory, whatever the number written.

A workload's replicas are counted before any pod is built (scheduler_core/loader/bounds.py),
so refusing `replicas: 1000000000` should cost about what reading the file costs. Three inputs,
each refused (or, for the control, loaded):

- the command line, in a fresh process: `python -m scheduler_core simulate` on a 10^9-replica
  Deployment (wall time, the process's peak RSS);
- the loader in this process, with the web's default limits: the same Deployment, a 10^9
  Job parallelism, 25 DaemonSets over 5,000 nodes (counted one per eligible node) and a 10^9
  timeline scale (wall time, peak traced allocation);
- a control within the limits (a 20,000-replica Deployment, loaded) so the counting is seen to
  cost nothing next to the load itself.

    .venv/bin/python bench/refusal.py [--append-results]
"""

from __future__ import annotations

import argparse
import datetime
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scheduler_core.api.errors import ScenarioError  # noqa: E402
from scheduler_core.loader import load_scenario_text  # noqa: E402
from scheduler_core.loader.limits import SETTINGS_HINTS, Limits  # noqa: E402

BILLION = 1_000_000_000
NODE = "apiVersion: v1\nkind: Node\nmetadata: {{name: n{i}}}\nstatus: {{capacity: {{cpu: '4', memory: 8Gi}}}}"
TEMPLATE = ("  template:\n    metadata: {{labels: {{app: {name}}}}}\n"
            "    spec: {{containers: [{{name: c, image: pause}}]}}\n")


def workload(kind: str, name: str, extra: str, api: str = "apps/v1", selector: bool = True) -> str:
    sel = f"  selector: {{matchLabels: {{app: {name}}}}}\n" if selector else ""
    return f"apiVersion: {api}\nkind: {kind}\nmetadata: {{name: {name}}}\nspec:\n{extra}{sel}" + \
        TEMPLATE.format(name=name)


def inputs() -> dict[str, str]:
    one = NODE.format(i=0)
    nodes = "\n---\n".join(NODE.format(i=i) for i in range(5000))
    timeline = ("apiVersion: playground.kube-scheduler.dev/v1\nkind: Timeline\nactions:\n"
                f"- {{at: 1, action: scaleDeployment, name: web, replicas: {BILLION}}}\n")
    return {
        "Deployment, replicas 10^9": f"{one}\n---\n" + workload("Deployment", "web", f"  replicas: {BILLION}\n"),
        "Job, parallelism 10^9": f"{one}\n---\n" + workload("Job", "batch", f"  parallelism: {BILLION}\n",
                                                           api="batch/v1", selector=False),
        "25 DaemonSets x 5,000 nodes": nodes + "\n---\n" + "\n---\n".join(
            workload("DaemonSet", f"d{i}", "") for i in range(25)),
        "timeline scale to 10^9": f"{one}\n---\n" + workload("Deployment", "web", "  replicas: 1\n")
                                  + "---\n" + timeline,
        "control: Deployment, replicas 20,000 (loads)": f"{one}\n---\n"
                                                        + workload("Deployment", "web", "  replicas: 20000\n"),
    }


def _load(text: str) -> str:
    limits = Limits(hints=SETTINGS_HINTS)  # the web's defaults: 5,000 nodes, 20,000 pods
    try:
        scenario = load_scenario_text(text, source="bench.yaml", limits=limits)
        return f"loaded, {len(scenario.pods):,} pods"
    except ScenarioError as error:
        return "refused: " + error.reason.split(";")[0]


def in_process(text: str) -> tuple[float, float, str]:
    """Wall time of one load (untraced), then the peak traced allocation of another."""
    start = time.perf_counter()
    outcome = _load(text)
    elapsed = time.perf_counter() - start
    tracemalloc.start()
    _load(text)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return elapsed, peak, outcome


def command_line(text: str) -> tuple[float, float, int, str]:
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as fh:
        fh.write(text)
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "scheduler_core", "simulate", fh.name], cwd=ROOT,
                            capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    Path(fh.name).unlink()
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return elapsed, rss, result.returncode, result.stderr.strip()[:160]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--append-results", action="store_true", help="append the table to bench/history/runs.md")
    args = ap.parse_args()
    data = inputs()
    rows = ["| input | path | time | memory | outcome |", "| --- | --- | ---: | ---: | --- |"]
    elapsed, rss, code, stderr = command_line(data["Deployment, replicas 10^9"])
    rows.append(f"| Deployment, replicas 10^9 | `simulate` (fresh process) | {elapsed * 1000:.0f} ms | "
                f"{rss:.0f} MB peak RSS (whole process) | exit {code}: {stderr.split(': ', 3)[-1][:90]} |")
    for name, text in data.items():
        elapsed, peak, outcome = in_process(text)
        rows.append(f"| {name} | loader, web limits | {elapsed * 1000:.0f} ms | {peak:.1f} MB peak allocated | "
                    f"{outcome[:90]} |")
    table = "\n".join(rows)
    print(table)
    if args.append_results:
        stamp = datetime.date.today().isoformat()
        with open(ROOT / "bench" / "history" / "runs.md", "a") as fh:
            fh.write(f"\n## Refusing oversized workloads before building them ({stamp})\n\n"
                     "`python bench/refusal.py`: replicas are counted from the manifests before any pod "
                     "is built, so a refusal costs what reading the input costs.\n\n" + table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
