"""Large scenarios of a realistic shape for the web benchmark (and anyone who needs a big cluster).

    python bench/scenarios.py --nodes 5000 --pods 10000 [--seed 0] [-o cluster.yaml]

A cluster of N nodes spread over three zones of one region, in node pools of different machine
sizes (labels: hostname, zone, region, instance type, pool), with a few tainted GPU nodes and a
few cordoned ones; three priority classes; M pending pods with mixed requests, some pinned to a
zone by nodeSelector, some tolerating the GPU taint, a few preferring a pool. Everything comes
from a seeded RNG, so the same arguments give the same text.

The text is kept compact (flow-style mappings, no container images) because the playground
stores a scenario as rows and exports it again as YAML, and the engine refuses more than 5 MB:
5,000 nodes x 10,000 pods must fit through that round trip.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ZONES = ("bench-a", "bench-b", "bench-c")
REGION = "bench-region"
# (pool, instance type, cpu, memory, share of the nodes)
POOLS = (
    ("general", "m.xlarge", "4", "16Gi", 0.45),
    ("compute", "c.2xlarge", "8", "16Gi", 0.30),
    ("memory", "r.2xlarge", "8", "64Gi", 0.20),
    ("gpu", "g.4xlarge", "16", "64Gi", 0.05),
)
PRIORITY_CLASSES = (("bench-low", 100), ("bench-default", 1000), ("bench-critical", 100000))
# (cpu, memory) requests of the pods, most of them small
REQUESTS = (
    ("50m", "64Mi"),
    ("100m", "128Mi"),
    ("250m", "256Mi"),
    ("500m", "512Mi"),
    ("500m", "1Gi"),
    ("1", "2Gi"),
    ("2", "4Gi"),
)
REQUEST_WEIGHTS = (20, 25, 20, 15, 10, 7, 3)
CORDONED_SHARE = 0.01


def _node(index: int, rng: random.Random) -> str:
    pick = rng.random()
    total = 0.0
    pool = POOLS[-1]
    for candidate in POOLS:
        total += candidate[4]
        if pick < total:
            pool = candidate
            break
    name = f"node-{index:05d}"
    zone = ZONES[index % len(ZONES)]
    labels = (
        f"kubernetes.io/hostname: {name}, topology.kubernetes.io/zone: {zone}, "
        f"topology.kubernetes.io/region: {REGION}, node.kubernetes.io/instance-type: {pool[1]}, pool: {pool[0]}"
    )
    spec = ""
    if pool[0] == "gpu":
        spec = "spec: {taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]}\n"
    elif rng.random() < CORDONED_SHARE:
        spec = "spec: {unschedulable: true}\n"
    return (
        f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{{labels}}}}}\n{spec}"
        f"status: {{capacity: {{cpu: '{pool[2]}', memory: {pool[3]}, pods: '110'}}}}\n"
    )


def _pod(index: int, rng: random.Random) -> str:
    cpu, memory = rng.choices(REQUESTS, weights=REQUEST_WEIGHTS)[0]
    app = f"app-{index % 50:02d}"
    priority = rng.choices(PRIORITY_CLASSES, weights=(30, 60, 10))[0][0]
    extra = []
    roll = rng.random()
    if roll < 0.10:
        extra.append(f"nodeSelector: {{topology.kubernetes.io/zone: {rng.choice(ZONES)}}}")
    elif roll < 0.13:
        extra.append("tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]")
    elif roll < 0.18:
        pool = rng.choice(POOLS[:3])[0]
        extra.append(
            "affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: "
            f"[{{weight: 50, preference: {{matchExpressions: [{{key: pool, operator: In, values: [{pool}]}}]}}}}]}}}}"
        )
    spec_extra = "".join(f"  {line}\n" for line in extra)
    return (
        f"apiVersion: v1\nkind: Pod\nmetadata: {{name: pod-{index:05d}, labels: {{app: {app}}}}}\n"
        f"spec:\n  priorityClassName: {priority}\n{spec_extra}"
        f"  containers: [{{name: c, resources: {{requests: {{cpu: '{cpu}', memory: {memory}}}}}}}]\n"
    )


def scenario_yaml(nodes: int, pods: int, seed: int = 0) -> str:
    """Multi-document YAML: the priority classes, `nodes` nodes, then `pods` pending pods."""
    if nodes < 1 or pods < 0:
        raise ValueError(f"need at least one node and no negative pod count (got {nodes} nodes, {pods} pods)")
    rng = random.Random(seed)
    docs = [
        f"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {{name: {name}}}\nvalue: {value}\n"
        for name, value in PRIORITY_CLASSES
    ]
    docs += [_node(i, rng) for i in range(nodes)]
    docs += [_pod(i, rng) for i in range(pods)]
    return "---\n".join(docs)


def parse_size(text: str) -> tuple[int, int]:
    """`1000x2000` -> (1000, 2000): nodes x pods."""
    try:
        nodes, pods = (int(part.replace("_", "").replace(",", "")) for part in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"size {text!r} is not NODESxPODS (e.g. 1000x2000)") from None
    return nodes, pods


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, required=True)
    parser.add_argument("--pods", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-o", "--output", type=Path, help="write here instead of stdout")
    args = parser.parse_args(argv)
    text = scenario_yaml(args.nodes, args.pods, args.seed)
    if args.output:
        args.output.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
