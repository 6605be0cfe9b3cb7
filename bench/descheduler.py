"""What one descheduling pass costs on a big cluster: N nodes running 4 pods each (a ReplicaSet's,
1 cpu of 4 requested per pod: 100%) plus N/5 empty nodes that just joined, with LowNodeUtilization
(and, with --all, every other strategy in the same profile). Reports the load time, the pass's
wall time and peak traced allocation, and how many pods it evicted; the scheduling of the
replacements is not part of it. Numbers, never assertions: current figures go to bench/RESULTS.md by hand.

    .venv/bin/python bench/descheduler.py --nodes 5000
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scheduler_core.descheduler.descheduler import run_descheduler  # noqa: E402
from scheduler_core.loader import CLI_LIMITS, load_scenario_text  # noqa: E402
from scheduler_core.simulation import Simulation  # noqa: E402

POLICY = """apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: bench
  pluginConfig:%s
  - name: LowNodeUtilization
    args:
      thresholds: {cpu: 20, memory: 20, pods: 20}
      targetThresholds: {cpu: 50, memory: 50, pods: 50}
  plugins:
    balance:
      enabled: [LowNodeUtilization%s]
    deschedule:
      enabled: [%s]
"""


def scenario(nodes: int, everything: bool) -> str:
    docs = []
    for i in range(nodes + nodes // 5):
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i}, labels: {{kubernetes.io/hostname: n{i}, "
                    f"zone: z{i % 3}}}}}\nstatus: {{capacity: {{cpu: '4', memory: 16Gi, pods: '110'}}}}\n")
    owner = "[{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: u-web, controller: true}]"
    for i in range(nodes):
        for k in range(4):
            docs.append(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}-{k}, labels: {{app: web}}, "
                        f"ownerReferences: {owner}}}\nspec: {{nodeName: n{i}, containers: [{{name: a, "
                        f"image: pause, resources: {{requests: {{cpu: '1', memory: 1Gi}}}}}}]}}\n")
    extra = ", RemoveDuplicates, RemovePodsViolatingTopologySpreadConstraint" if everything else ""
    deschedule = ("RemovePodsViolatingNodeTaints, RemovePodsViolatingNodeAffinity, "
                  "RemovePodsViolatingInterPodAntiAffinity") if everything else ""
    config = ("\n  - name: RemovePodsViolatingNodeAffinity\n    args: {nodeAffinityType: "
              "[requiredDuringSchedulingIgnoredDuringExecution]}") if everything else ""
    docs.append(POLICY % (config, extra, deschedule))
    return "---\n".join(docs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--all", action="store_true", help="every strategy, not LowNodeUtilization alone")
    args = parser.parse_args()
    text = scenario(args.nodes, args.all)
    t0 = time.perf_counter()
    sim = Simulation(load_scenario_text(text, source="bench", limits=CLI_LIMITS), record_events=False)
    loaded = time.perf_counter() - t0
    tracemalloc.start()
    t0 = time.perf_counter()
    result = run_descheduler(sim, sim.scenario.descheduler_policy)
    took = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    total = args.nodes + args.nodes // 5
    print(f"| {total:,} nodes, {args.nodes * 4:,} pods | {'all strategies' if args.all else 'LowNodeUtilization'} "
          f"| load {loaded:.1f} s | pass {took:.2f} s | peak {peak / 2**20:.0f} MiB | "
          f"{len(result.evicted):,} evicted, {len(result.recreated):,} recreated |")


if __name__ == "__main__":
    main()
