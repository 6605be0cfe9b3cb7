"""How long `capacity` takes on a big cluster: 5,000 nodes and a 1,000-copy answer.

    .venv/bin/python bench/capacity.py [--nodes 5000] [--copies 1000] [--shape roomy|tight]

The cluster is written to a temporary file: `--nodes` nodes of 4 cpu / 16Gi in three zones
(one in 50 tainted NoSchedule, as a GPU pool would be), each running one pod bound in the
dump. The pod to copy asks for 1 cpu. Two shapes:

- roomy: the running pods take 1 cpu, so 14,700 copies would fit; `--max` stops the count at
  `--copies`. Each copy's filter walk finds its feasible nodes early.
- tight: 3 cpu on the first `--copies` untainted nodes, 4 cpu on the others, so exactly
  `--copies` copies fit and the next is stopped by the scheduler with "Insufficient cpu" and
  the taint. As the free nodes run out, each copy's walk passes thousands of full nodes (the
  scheduler's own cost: upstream walks them too).

Times are CPU (`time.process_time`: the machine's cores are shared), split into loading the
cluster (the loader and the Simulation's start, which `simulate` pays too) and the copies.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scheduler_core.loader import CLI_LIMITS, load_scenario_file  # noqa: E402
from scheduler_core.questions.capacity import count_capacity, read_pod_template  # noqa: E402
from scheduler_core.simulation import Simulation  # noqa: E402

ZONES = ("zone-a", "zone-b", "zone-c")
POD = """apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: "1", memory: 1Gi}}}]
"""


def cluster_text(nodes: int, copies: int, tight: bool = True) -> str:
    """The cluster dump: nodes, then the pod already running on each."""
    width = len(str(nodes))
    docs = []
    room = 0
    running = []
    for i in range(nodes):
        name = f"node-{i:0{width}d}"
        tainted = i % 50 == 7
        taint = "spec:\n  taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]\n" if tainted else ""
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels:\n"
                    f"    kubernetes.io/hostname: {name}\n    topology.kubernetes.io/zone: {ZONES[i % 3]}\n"
                    f"{taint}status:\n  capacity: {{cpu: '4', memory: 16Gi, pods: '110'}}\n")
        cpu = "4" if tight else "1"
        if tight and not tainted and room < copies:
            cpu, room = "3", room + 1
        running.append(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: run-{i}}}\nspec:\n  nodeName: {name}\n"
                       f"  containers: [{{name: c, image: x, resources: {{requests: {{cpu: '{cpu}', memory: 1Gi}}}}}}]\n")
    return "---\n".join(docs + running)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--copies", type=int, default=1000)
    ap.add_argument("--shape", choices=("roomy", "tight"), default="tight")
    args = ap.parse_args()
    tight = args.shape == "tight"
    with tempfile.TemporaryDirectory() as tmp:
        cluster = Path(tmp) / "cluster.yaml"
        cluster.write_text(cluster_text(args.nodes, args.copies, tight))
        pod = Path(tmp) / "pod.yaml"
        pod.write_text(POD)
        t0 = time.process_time()
        sim = Simulation(load_scenario_file(cluster, limits=CLI_LIMITS))
        t1 = time.process_time()
        answer = count_capacity(sim, read_pod_template(str(pod)), None if tight else args.copies)
        t2 = time.process_time()
    print(f"{args.shape}: {args.nodes:,} nodes, {args.nodes:,} running pods: {answer.count:,} copies "
          f"on {len(answer.per_node):,} nodes" + (f"; stopped by {answer.stopped_by}: {answer.stop_reason}"
                                                    if answer.stopped_by else f" (--max {args.copies})"))
    print(f"load + start: {t1 - t0:.2f} s CPU; copies: {t2 - t1:.2f} s CPU "
          f"({(t2 - t1) / max(answer.count, 1) * 1000:.2f} ms per copy); total {t2 - t0:.2f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
