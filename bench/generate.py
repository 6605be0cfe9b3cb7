"""Write benchmark inputs of the shared files' shape, at any size.

    python bench/generate.py                      # the two larger inputs, into bench/inputs/
    python bench/generate.py --nodes 500 --pods 1000 --out /tmp/x.yaml

The shape is that of ../shared/bench/perf-*.yaml exactly (this script reproduces both shared
files byte for byte, which is how the shape is checked): nodes of 32 cpu / 128Gi / 110 pods
spread round-robin over four zones, then pending pods of one `pause` container whose requests
cycle through 250m/512Mi, 500m/1Gi, 1/2Gi. Every pod fits, so the run measures scheduling and
nothing else. The larger files are many megabytes, so they are generated on demand rather than
committed (bench/run.py calls `ensure` before timing).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

INPUTS = Path(__file__).resolve().parent / "inputs"
# The inputs of issue-sized runs that are not in the shared directory: (nodes, pods).
LARGER = ((5000, 10000), (15000, 1000))
ZONES = ("zone-a", "zone-b", "zone-c", "zone-d")
REQUESTS = (("250m", "512Mi"), ("500m", "1Gi"), ("'1'", "2Gi"))


def file_name(nodes: int, pods: int) -> str:
    """The shared files' naming: perf-<nodes>n-<pods>p.yaml."""
    return f"perf-{nodes}n-{pods}p.yaml"


def render(nodes: int, pods: int) -> str:
    """The whole scenario as YAML text, byte-identical to the shared files at their sizes."""
    node_w = max(5, len(str(nodes - 1)))
    pod_w = max(4, len(str(pods - 1)))
    parts = [f"# about: throughput benchmark: {nodes} nodes (32 cpu / 128Gi, 4 zones) x {pods} "
             "pending pods with simple cpu/memory requests, default profile; every pod fits\n"]
    docs = []
    for i in range(nodes):
        name = f"node-{i:0{node_w}d}"
        docs.append(
            "apiVersion: v1\nkind: Node\nmetadata:\n"
            f"  name: {name}\n"
            f"  labels: {{kubernetes.io/hostname: {name}, topology.kubernetes.io/zone: {ZONES[i % 4]}}}\n"
            "status:\n  capacity: {cpu: '32', memory: 128Gi, pods: '110'}\n")
    for i in range(pods):
        cpu, mem = REQUESTS[i % 3]
        docs.append(
            "apiVersion: v1\nkind: Pod\n"
            f"metadata: {{name: pod-{i:0{pod_w}d}}}\n"
            "spec:\n  containers:\n  - name: app\n    image: registry.k8s.io/pause:3.10\n"
            f"    resources:\n      requests: {{cpu: {cpu}, memory: {mem}}}\n")
    parts.append("---\n".join(docs))
    return "".join(parts)


OWNED_SETS = 50
OWNED_ZONES = ("zone-a", "zone-b", "zone-c")


def owned_file_name(nodes: int, pods: int) -> str:
    """perf-owned-<nodes>n-<pods>p.yaml."""
    return f"perf-owned-{nodes}n-{pods}p.yaml"


def render_owned(nodes: int, pods: int, sets: int = OWNED_SETS) -> str:
    """The owned-pod shape: nodes as above but over three zones, `sets` ReplicaSets, and every pod
    listed with its ReplicaSet as controller ownerReference (uid on both, so the controller creates
    nothing more) and requests of 200m / 256Mi. Upstream's system-default topology spreading
    (hostname and zone, ScheduleAnyway) then applies to every pod, as in a real cluster."""
    node_w = max(5, len(str(nodes - 1)))
    pod_w = max(4, len(str(pods - 1)))
    parts = [f"# about: owned-pod throughput benchmark: {nodes} nodes (32 cpu / 128Gi, 3 zones) x {pods} "
             f"pending pods owned by {sets} ReplicaSets (default topology spreading applies); every pod fits\n"]
    docs = []
    for i in range(nodes):
        name = f"node-{i:0{node_w}d}"
        docs.append(
            "apiVersion: v1\nkind: Node\nmetadata:\n"
            f"  name: {name}\n"
            f"  labels: {{kubernetes.io/hostname: {name}, topology.kubernetes.io/zone: "
            f"{OWNED_ZONES[i % 3]}}}\n"
            "status:\n  capacity: {cpu: '32', memory: 128Gi, pods: '110'}\n")
    counts = [0] * sets
    for i in range(pods):
        counts[i % sets] += 1
    for s in range(sets):
        docs.append(
            "apiVersion: apps/v1\nkind: ReplicaSet\n"
            f"metadata: {{name: rs-{s:02d}, uid: rs-uid-{s:02d}}}\n"
            f"spec:\n  replicas: {counts[s]}\n  selector: {{matchLabels: {{app: rs-{s:02d}}}}}\n"
            f"  template:\n    metadata: {{labels: {{app: rs-{s:02d}}}}}\n"
            "    spec:\n      containers:\n      - name: app\n        image: registry.k8s.io/pause:3.10\n"
            "        resources:\n          requests: {cpu: 200m, memory: 256Mi}\n")
    for i in range(pods):
        s = i % sets
        docs.append(
            "apiVersion: v1\nkind: Pod\n"
            f"metadata:\n  name: pod-{i:0{pod_w}d}\n  labels: {{app: rs-{s:02d}}}\n"
            f"  ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: rs-{s:02d}, "
            f"uid: rs-uid-{s:02d}, controller: true}}]\n"
            "spec:\n  containers:\n  - name: app\n    image: registry.k8s.io/pause:3.10\n"
            "    resources:\n      requests: {cpu: 200m, memory: 256Mi}\n")
    parts.append("---\n".join(docs))
    return "".join(parts)


def ensure(nodes: int, pods: int, directory: Path = INPUTS, owned: bool = False) -> Path:
    """The input's path, writing it first if it is missing (`owned`: the owned-pod shape)."""
    path = directory / (owned_file_name(nodes, pods) if owned else file_name(nodes, pods))
    if not path.exists():
        directory.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(render_owned(nodes, pods) if owned else render(nodes, pods), encoding="utf-8")
        tmp.replace(path)
    return path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int)
    ap.add_argument("--pods", type=int)
    ap.add_argument("--out", type=Path, help="file to write (default: bench/inputs/<name>)")
    ap.add_argument("--owned", action="store_true",
                    help="the owned-pod shape: 3 zones, pods owned by 50 ReplicaSets")
    args = ap.parse_args()
    if (args.nodes is None) != (args.pods is None):
        ap.error("give both --nodes and --pods, or neither")
    if args.nodes is None:
        for n, p in LARGER:
            print(ensure(n, p))
        return 0
    if args.nodes < 1 or args.pods < 0:
        ap.error("--nodes must be at least 1 and --pods at least 0")
    name = owned_file_name if args.owned else file_name
    out = args.out or INPUTS / name(args.nodes, args.pods)
    out.parent.mkdir(parents=True, exist_ok=True)
    text = render_owned(args.nodes, args.pods) if args.owned else render(args.nodes, args.pods)
    out.write_text(text, encoding="utf-8")
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
