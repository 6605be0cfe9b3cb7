"""How long `simulate --why-pending` takes on a dump at the envelope: 5,000 nodes, 150,000 pods,
a tenth of them pending and unschedulable.

    .venv/bin/python bench/why_pending.py [--nodes 5000] [--pods 150000] [--pending 0.1] [--out FILE]
    .venv/bin/python bench/why_pending.py --out /tmp/wp.yaml --write-only   # then, end to end:
    farm-bench -n 3 --timeout 1800 -- .venv/bin/python -m scheduler_core simulate /tmp/wp.yaml --why-pending

The dump (written to a temporary file, or kept at `--out`) is a cluster as `kubectl get -o yaml`
shows it: nodes in three zones, 32 cpu / 128Gi / 110 pods, one in 50 a GPU node tainted
NoSchedule; nine tenths of the pods running (bound in the dump, round robin, 250m / 256Mi each)
and a tenth pending, none of which can be placed, for four reasons the scheduler words
differently, cycled pod by pod:

- too big: 40 cpu, more than any node has ("Insufficient cpu"; preemption cannot help);
- a nodeSelector for a pool no node has ("didn't match Pod's node affinity/selector");
- a nodeSelector for the GPU pool without the toleration (the taint on the GPU nodes, the
  selector on the others);
- a PersistentVolumeClaim that does not exist (rejected at PreFilter, before any node).

The run schedules only the pending pods (each tried once: nothing that happens can help them).
It reports CPU (`time.process_time`: the machine's cores are shared) for loading, the run with
the collection, and the report (grouping and the closest nodes), and the groups found.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scheduler_core.loader import CLI_LIMITS, load_scenario_file  # noqa: E402
from scheduler_core.questions.why_pending import PendingCollector  # noqa: E402
from scheduler_core.simulation import Simulation  # noqa: E402

ZONES = ("zone-a", "zone-b", "zone-c")
PENDING_KINDS = (
    "  containers: [{name: c, image: x, resources: {requests: {cpu: '40', memory: 1Gi}}}]\n",
    "  nodeSelector: {pool: tpu}\n"
    "  containers: [{name: c, image: x, resources: {requests: {cpu: 250m, memory: 256Mi}}}]\n",
    "  nodeSelector: {pool: gpu}\n"
    "  containers: [{name: c, image: x, resources: {requests: {cpu: 250m, memory: 256Mi}}}]\n",
    "  volumes: [{name: data, persistentVolumeClaim: {claimName: missing-data}}]\n"
    "  containers: [{name: c, image: x, resources: {requests: {cpu: 250m, memory: 256Mi}}}]\n",
)


def dump_text(nodes: int, pods: int, pending: float) -> str:
    """The cluster dump: nodes, running pods, then the pending ones."""
    width = len(str(nodes))
    docs = []
    for i in range(nodes):
        name = f"node-{i:0{width}d}"
        gpu = i % 50 == 7
        taint = "spec:\n  taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]\n" if gpu else ""
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels:\n"
                    f"    kubernetes.io/hostname: {name}\n    topology.kubernetes.io/zone: {ZONES[i % 3]}\n"
                    f"    pool: {'gpu' if gpu else 'general'}\n"
                    f"{taint}status:\n  capacity: {{cpu: '32', memory: 128Gi, pods: '110'}}\n")
    waiting = int(pods * pending)
    for i in range(pods - waiting):
        docs.append(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: run-{i}, namespace: apps, labels: {{app: a{i % 40}}}}}\n"
                    f"spec:\n  nodeName: node-{i % nodes:0{width}d}\n"
                    "  containers: [{name: c, image: x, resources: {requests: {cpu: 250m, memory: 256Mi}}}]\n")
    for i in range(waiting):
        docs.append(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: wait-{i}, namespace: apps}}\nspec:\n"
                    + PENDING_KINDS[i % len(PENDING_KINDS)])
    return "---\n".join(docs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=150_000)
    ap.add_argument("--pending", type=float, default=0.1)
    ap.add_argument("--out", default=None, help="keep the dump at this path")
    ap.add_argument("--write-only", action="store_true",
                    help="write the dump to --out and stop (to time `simulate --why-pending` on it)")
    args = ap.parse_args()
    if args.write_only and not args.out:
        ap.error("--write-only needs --out")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.out) if args.out else Path(tmp) / "dump.yaml"
        path.write_text(dump_text(args.nodes, args.pods, args.pending))
        if args.write_only:
            print(f"wrote {path}: {args.nodes:,} nodes x {args.pods:,} pods, {int(args.pods * args.pending):,} pending")
            return 0
        t0 = time.process_time()
        sim = Simulation(load_scenario_file(path, limits=CLI_LIMITS))
        t1 = time.process_time()
        collector = PendingCollector(sim)
        settled = collector.run()
        t2 = time.process_time()
        report = collector.report()
        t3 = time.process_time()
    print(f"{args.nodes:,} nodes x {args.pods:,} pods, {report['pending']:,} pending; settled: {settled}")
    for g in report["groups"]:
        print(f"  {g['pods']:>7,}  {g['reason']}  (plugins: {', '.join(g['plugins'])}; last tried in cycle "
              f"{g['lastTriedCycle']}; closest: {', '.join(c['node'] for c in g.get('closestNodes') or [])})")
    print(f"load + start: {t1 - t0:.1f} s CPU; run with the collection: {t2 - t1:.1f} s CPU; "
          f"report: {t3 - t2:.2f} s CPU; total {t3 - t0:.1f} s CPU")
    print(json.dumps({"load": round(t1 - t0, 2), "run": round(t2 - t1, 2), "report": round(t3 - t2, 2)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
