"""Write a Dynamic Resource Allocation benchmark input: the shape of bench/generate.py's files
(32 cpu / 128Gi nodes over four zones, pending pause pods with small requests) plus GPUs.

    python bench/generate_dra.py                          # 5,000 nodes x 10,000 pods
    python bench/generate_dra.py --nodes 500 --pods 1000 --out /tmp/x.yaml

Every tenth node publishes a ResourceSlice of 8 GPUs (attributes model/index, 80Gi memory); a
DeviceClass selects them with CEL; every tenth pod claims one GPU through a
ResourceClaimTemplate (one claim generated per pod by the resourceclaim controller). There are
more GPUs than GPU pods, so every pod fits and the run measures scheduling. Timed with
`python bench/run.py --child FILE --runs N` (bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

INPUTS = Path(__file__).resolve().parent / "inputs"
ZONES = ("zone-a", "zone-b", "zone-c", "zone-d")
REQUESTS = (("250m", "512Mi"), ("500m", "1Gi"), ("'1'", "2Gi"))
GPUS_PER_NODE = 8


def file_name(nodes: int, pods: int) -> str:
    return f"dra-{nodes}n-{pods}p.yaml"


def render(nodes: int, pods: int) -> str:
    node_w = max(5, len(str(nodes - 1)))
    pod_w = max(4, len(str(pods - 1)))
    docs = [
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.example.com}\n"
        "spec:\n  selectors:\n  - cel: {expression: 'device.driver == \"gpu.example.com\"'}\n",
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: one-gpu}\n"
        "spec:\n  spec:\n    devices:\n      requests:\n      - name: gpu\n        exactly:\n"
        "          deviceClassName: gpu.example.com\n          selectors:\n"
        "          - cel: {expression: 'device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"40Gi\")) >= 0'}\n",
    ]
    for i in range(nodes):
        name = f"node-{i:0{node_w}d}"
        docs.append(
            "apiVersion: v1\nkind: Node\nmetadata:\n"
            f"  name: {name}\n"
            f"  labels: {{kubernetes.io/hostname: {name}, topology.kubernetes.io/zone: {ZONES[i % 4]}}}\n"
            "status:\n  capacity: {cpu: '32', memory: 128Gi, pods: '110'}\n")
        if i % 10 == 0:
            devices = "".join(
                f"  - name: gpu-{g}\n    attributes: {{model: {{string: h100}}, index: {{int: {g}}}}}\n"
                "    capacity: {memory: {value: 80Gi}}\n" for g in range(GPUS_PER_NODE))
            docs.append(
                "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
                f"metadata: {{name: {name}-gpus}}\nspec:\n  driver: gpu.example.com\n  nodeName: {name}\n"
                f"  pool: {{name: {name}, generation: 1, resourceSliceCount: 1}}\n  devices:\n{devices}")
    for i in range(pods):
        cpu, mem = REQUESTS[i % 3]
        claims = ""
        claim_ref = ""
        if i % 10 == 0:
            claims = "  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]\n"
            claim_ref = ", claims: [{name: gpu}]"
        docs.append(
            "apiVersion: v1\nkind: Pod\n"
            f"metadata: {{name: pod-{i:0{pod_w}d}}}\n"
            f"spec:\n{claims}  containers:\n  - name: app\n    image: registry.k8s.io/pause:3.10\n"
            f"    resources: {{requests: {{cpu: {cpu}, memory: {mem}}}{claim_ref}}}\n")
    head = (f"# about: DRA throughput benchmark: {nodes} nodes, every tenth with 8 GPUs in a ResourceSlice; "
            f"{pods} pending pods, every tenth claiming one GPU from a template; every pod fits\n")
    return head + "---\n".join(docs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=10000)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    out = args.out or INPUTS / file_name(args.nodes, args.pods)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(args.nodes, args.pods))
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
