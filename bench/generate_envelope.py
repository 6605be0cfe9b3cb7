"""Write inputs at the Kubernetes envelope: a cluster dump of realistic shape, at any size.

    python bench/generate_envelope.py                          # both sizes, into bench/inputs/
    python bench/generate_envelope.py --nodes 500 --pods 15000 --out /tmp/x.yaml
    python bench/generate_envelope.py --nodes 65000 --pods 92000 --bound 90000 --out /tmp/late.yaml

The two sizes of the envelope issue: 5,000 nodes x 150,000 pods (the published envelope, at
most 110 pods per node) and 65,000 nodes x 100,000 pods (the largest managed clusters, for the
command line). The shape is that of a dump (`kubectl get -o yaml` of nodes, priority classes,
DaemonSets, ReplicaSets and their pending pods, each pod listed with its ReplicaSet as
controller owner), deterministic for a size (no randomness: every choice cycles):

- nodes in three zones, 32 cpu / 128Gi / 110 pods; one in 50 is a GPU node (label
  pool=gpu, taint nvidia.com/gpu=present:NoSchedule), one in 10 a high-memory node
  (pool=highmem, 256Gi);
- a priority ladder: system-node-critical for the DaemonSets, then high / default (the global
  default) / low / batch (negative);
- two DaemonSets that tolerate every taint (one pod per node, made by the loader) when both
  together take at most a tenth of the pods;
- the other pods in ReplicaSets of 12 to 1,200 replicas, cycling through: plain (upstream's
  default topology spreading applies), soft zone + hostname spreading (ScheduleAnyway),
  preferred anti-affinity on the hostname, a nodeSelector for high-memory nodes, GPU pods
  (toleration + nodeSelector), and, in small sets only, hard zone spreading (DoNotSchedule)
  and required anti-affinity on the hostname;
- requests from 100m / 128Mi to 1 cpu / 2Gi; every pod fits.

`--bound N` writes the first N listed pods already running (`spec.nodeName`, round robin over
the nodes, as a dump taken late in a run shows them) and leaves the rest pending: the same sets,
labels and constraints, so the pending pods cost what the last pods of a full run cost (the
spreading and affinity counts see the bound pods) without scheduling the first N.

Files are tens of megabytes, so they are written on demand (git-ignored), like bench/generate.py's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

INPUTS = Path(__file__).resolve().parent / "inputs"
SIZES = ((5000, 150000), (65000, 100000))
ZONES = ("zone-a", "zone-b", "zone-c")
REQUESTS = (("100m", "128Mi"), ("250m", "256Mi"), ("500m", "512Mi"), ("250m", "1Gi"), ("'1'", "2Gi"))
PRIORITIES = (("high", 10000), ("default", 1000), ("low", 100), ("batch", -10))
# Replicas per set, cycled; small sets carry the hard constraints.
SET_SIZES = (1200, 300, 60, 12, 600, 120, 24, 900, 30, 12)
# What each set's pods carry, cycled with the set number.
KINDS = ("plain", "soft-spread", "plain", "preferred-anti", "plain", "highmem", "soft-spread", "plain", "gpu",
         "plain")
HARD_KINDS = ("hard-spread", "required-anti")


def file_name(nodes: int, pods: int) -> str:
    return f"envelope-{nodes}n-{pods}p.yaml"


def _node(i: int, width: int) -> str:
    name = f"node-{i:0{width}d}"
    pool, taint, memory = "general", "", "128Gi"
    if i % 50 == 7:
        pool = "gpu"
        taint = "spec:\n  taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]\n"
    elif i % 10 == 3:
        pool, memory = "highmem", "256Gi"
    return ("apiVersion: v1\nkind: Node\nmetadata:\n"
            f"  name: {name}\n"
            f"  labels: {{kubernetes.io/hostname: {name}, topology.kubernetes.io/zone: {ZONES[i % 3]}, "
            f"node.kubernetes.io/pool: {pool}}}\n"
            f"{taint}"
            f"status:\n  capacity: {{cpu: '32', memory: {memory}, pods: '110'}}\n")


def _priority_classes() -> list[str]:
    docs = []
    for name, value in PRIORITIES:
        default = "globalDefault: true\n" if name == "default" else ""
        docs.append(f"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {{name: {name}}}\n"
                    f"value: {value}\n{default}")
    return docs


def _daemon_set(name: str) -> str:
    return ("apiVersion: apps/v1\nkind: DaemonSet\n"
            f"metadata: {{name: {name}, namespace: kube-system}}\n"
            f"spec:\n  selector: {{matchLabels: {{app: {name}}}}}\n"
            f"  template:\n    metadata: {{labels: {{app: {name}}}}}\n"
            "    spec:\n      priorityClassName: system-node-critical\n"
            "      tolerations: [{operator: Exists}]\n"
            "      containers:\n      - name: agent\n        image: registry.k8s.io/pause:3.10\n"
            "        resources: {requests: {cpu: 50m, memory: 64Mi}}\n")


def _pod_spec_extra(kind: str, app: str) -> str:
    """The lines a set's pods carry under spec (2-space indented), before containers."""
    if kind == "soft-spread":
        return ("  topologySpreadConstraints:\n"
                f"  - {{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway, "
                f"labelSelector: {{matchLabels: {{app: {app}}}}}}}\n"
                f"  - {{maxSkew: 2, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, "
                f"labelSelector: {{matchLabels: {{app: {app}}}}}}}\n")
    if kind == "hard-spread":
        return ("  topologySpreadConstraints:\n"
                f"  - {{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, "
                f"labelSelector: {{matchLabels: {{app: {app}}}}}}}\n")
    if kind == "preferred-anti":
        return ("  affinity:\n    podAntiAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n"
                "      - weight: 100\n        podAffinityTerm:\n          topologyKey: kubernetes.io/hostname\n"
                f"          labelSelector: {{matchLabels: {{app: {app}}}}}\n")
    if kind == "required-anti":
        return ("  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
                "      - topologyKey: kubernetes.io/hostname\n"
                f"        labelSelector: {{matchLabels: {{app: {app}}}}}\n")
    if kind == "highmem":
        return "  nodeSelector: {node.kubernetes.io/pool: highmem}\n"
    if kind == "gpu":
        return ("  nodeSelector: {node.kubernetes.io/pool: gpu}\n"
                "  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]\n")
    return ""


def _sets(count: int) -> list[tuple[str, str, int]]:
    """(name, kind, replicas) of the ReplicaSets holding `count` pods."""
    out: list[tuple[str, str, int]] = []
    left = count
    i = 0
    while left > 0:
        size = SET_SIZES[i % len(SET_SIZES)]
        kind = KINDS[i % len(KINDS)]
        if size <= 12:
            kind = HARD_KINDS[(i // len(SET_SIZES)) % 2]
        if kind == "gpu":
            size = min(size, 60)
        size = min(size, left)
        out.append((f"svc-{i:04d}-7d9f8c6b5", kind, size))
        left -= size
        i += 1
    return out


def render(nodes: int, pods: int, bound: int = 0) -> str:
    """The whole scenario as YAML text; the first `bound` listed pods are bound round robin."""
    width = max(5, len(str(nodes - 1)))
    daemon_sets = ("node-agent", "log-shipper") if 2 * nodes * 10 <= pods else ()
    listed = pods - len(daemon_sets) * nodes
    sets = _sets(listed)
    docs = [_node(i, width) for i in range(nodes)]
    docs += _priority_classes()
    docs += [_daemon_set(name) for name in daemon_sets]
    for s, (name, _kind, replicas) in enumerate(sets):
        cpu, mem = REQUESTS[s % len(REQUESTS)]
        docs.append(
            "apiVersion: apps/v1\nkind: ReplicaSet\n"
            f"metadata: {{name: {name}, namespace: default, uid: uid-{name}}}\n"
            f"spec:\n  replicas: {replicas}\n  selector: {{matchLabels: {{app: {name}}}}}\n"
            f"  template:\n    metadata: {{labels: {{app: {name}}}}}\n"
            "    spec:\n      containers:\n      - name: app\n        image: registry.k8s.io/pause:3.10\n"
            f"        resources: {{requests: {{cpu: {cpu}, memory: {mem}}}}}\n")
    pod_w = max(6, len(str(pods)))
    n = 0
    for s, (name, kind, replicas) in enumerate(sets):
        cpu, mem = REQUESTS[s % len(REQUESTS)]
        extra = _pod_spec_extra(kind, name)
        priority = PRIORITIES[s % len(PRIORITIES)][0]
        head = (f"  labels: {{app: {name}, pod-template-hash: 7d9f8c6b5}}\n"
                f"  ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: {name}, uid: uid-{name}, "
                "controller: true}]\n"
                f"spec:\n  priorityClassName: {priority}\n{extra}"
                "  containers:\n  - name: app\n    image: registry.k8s.io/pause:3.10\n"
                f"    resources:\n      requests: {{cpu: {cpu}, memory: {mem}}}\n")
        for _ in range(replicas):
            body = head
            if n < bound:
                body = head.replace("spec:\n", f"spec:\n  nodeName: node-{n % nodes:0{width}d}\n", 1)
            docs.append(f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}-{n:0{pod_w}d}\n  namespace: default\n"
                        + body)
            n += 1
    running = f", the first {bound} running" if bound else ""
    about = (f"# about: the envelope: {nodes} nodes x {pods} pods{running} ({len(daemon_sets)} DaemonSets, "
             f"{len(sets)} ReplicaSets of listed pending pods; bench/generate_envelope.py)\n")
    return about + "---\n".join(docs)


def ensure(nodes: int, pods: int, directory: Path = INPUTS) -> Path:
    """The input's path, writing it first if it is missing."""
    path = directory / file_name(nodes, pods)
    if not path.exists():
        directory.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(render(nodes, pods), encoding="utf-8")
        tmp.replace(path)
    return path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int)
    ap.add_argument("--pods", type=int)
    ap.add_argument("--out", type=Path, help="file to write (default: bench/inputs/<name>)")
    ap.add_argument("--bound", type=int, default=0,
                    help="write the first N listed pods running, bound round robin (a dump late in a run)")
    args = ap.parse_args()
    if (args.nodes is None) != (args.pods is None):
        ap.error("give both --nodes and --pods, or neither")
    if args.nodes is None:
        for n, p in SIZES:
            print(ensure(n, p))
        return 0
    if args.nodes < 1 or args.pods < 0:
        ap.error("--nodes must be at least 1 and --pods at least 0")
    if not 0 <= args.bound <= args.pods:
        ap.error(f"--bound must be between 0 and --pods ({args.pods}), got {args.bound}")
    if args.bound and args.out is None:
        ap.error("--bound needs --out (the default names are the envelope's all-pending inputs)")
    out = args.out or INPUTS / file_name(args.nodes, args.pods)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(args.nodes, args.pods, args.bound), encoding="utf-8")
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
