"""Write the storage-and-devices benchmark input: the plain input's cluster plus volumes and GPUs.

    python bench/generate_storage.py                                  # 5,000 x 10,000 into bench/inputs/
    python bench/generate_storage.py --nodes 500 --pods 1000 --out /tmp/x.yaml

The plain benchmark (bench/generate.py) measures scheduling with no volume and no device, so the
volume plugins and DynamicResources all take their Skip paths. This input makes them work, in the
proportions a real cluster with stateful services and a GPU pool has:

- nodes as in the plain input (32 cpu / 128Gi / 110 pods) but over three zones, each with a CSINode
  whose CSI driver may attach 39 volumes (a common cloud limit); every tenth node is a GPU node
  whose ResourceSlice publishes 8 GPUs (model and memory attributes);
- a WaitForFirstConsumer StorageClass with a CSI provisioner limited by allowedTopologies to the
  three zones, and an Immediate class whose PVs already exist, bound, each pinned to one zone;
- a DeviceClass selecting the driver's GPUs with a CEL expression and a ResourceClaimTemplate;
- pending pods with the plain input's requests, of which every third uses a PVC (two of three new
  claims provisioned on the chosen node, one of three already bound to a zonal PV) and every tenth
  asks for one GPU through the template.

Every pod fits, so the run measures the plugins' work and nothing else. The file is tens of
megabytes at 5,000 x 10,000, so it is generated on demand (bench/storage.py calls `ensure`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

INPUTS = Path(__file__).resolve().parent / "inputs"
DEFAULT = (5000, 10000)
ZONES = ("zone-a", "zone-b", "zone-c")
REQUESTS = (("250m", "512Mi"), ("500m", "1Gi"), ("'1'", "2Gi"))
CSI_DRIVER = "ebs.csi.example.com"
GPU_DRIVER = "gpu.example.com"
GPUS_PER_NODE = 8
GPU_NODE_EVERY = 10
VOLUME_LIMIT = 39


KINDS = ("both", "volumes", "devices")


def file_name(nodes: int, pods: int, only: str = "both") -> str:
    """perf-storage-<nodes>n-<pods>p.yaml beside the plain inputs (-volumes / -devices for one half)."""
    suffix = "" if only == "both" else f"-{only}"
    return f"perf-storage-{nodes}n-{pods}p{suffix}.yaml"


def _classes() -> list[str]:
    zones = ", ".join(ZONES)
    return [
        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: fast}\n"
        f"provisioner: {CSI_DRIVER}\nvolumeBindingMode: WaitForFirstConsumer\n"
        "allowedTopologies:\n- matchLabelExpressions:\n"
        f"  - key: topology.kubernetes.io/zone\n    values: [{zones}]\n",
        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: zonal}\n"
        f"provisioner: {CSI_DRIVER}\nvolumeBindingMode: Immediate\n",
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.example.com}\n"
        "spec:\n  selectors:\n  - cel:\n"
        f"      expression: device.driver == \"{GPU_DRIVER}\"\n",
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: one-gpu}\n"
        "spec:\n  spec:\n    devices:\n      requests:\n      - name: gpu\n"
        "        exactly: {deviceClassName: gpu.example.com}\n",
    ]


def _node(name: str, zone: str) -> list[str]:
    return [
        "apiVersion: v1\nkind: Node\nmetadata:\n"
        f"  name: {name}\n"
        f"  labels: {{kubernetes.io/hostname: {name}, topology.kubernetes.io/zone: {zone}}}\n"
        "status:\n  capacity: {cpu: '32', memory: 128Gi, pods: '110'}\n",
        "apiVersion: storage.k8s.io/v1\nkind: CSINode\n"
        f"metadata: {{name: {name}}}\n"
        f"spec:\n  drivers:\n  - name: {CSI_DRIVER}\n    nodeID: {name}\n"
        f"    topologyKeys: [topology.kubernetes.io/zone]\n    allocatable: {{count: {VOLUME_LIMIT}}}\n",
    ]


def _slice(name: str) -> str:
    devices = "".join(
        f"  - name: gpu-{g}\n    attributes:\n      model: {{string: a100}}\n      index: {{int: {g}}}\n"
        "    capacity:\n      memory: {value: 40Gi}\n" for g in range(GPUS_PER_NODE))
    return ("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
            f"metadata: {{name: {name}-gpus}}\n"
            f"spec:\n  driver: {GPU_DRIVER}\n  nodeName: {name}\n"
            f"  pool: {{name: {name}, generation: 1, resourceSliceCount: 1}}\n  devices:\n{devices}")


def _claim_docs(i: int, claim: str) -> list[str]:
    """The PVC of pod i, and for a pre-bound claim its PV pinned to one zone."""
    if (i // 3) % 3 != 2:
        return ["apiVersion: v1\nkind: PersistentVolumeClaim\n"
                f"metadata: {{name: {claim}}}\n"
                "spec:\n  accessModes: [ReadWriteOnce]\n  storageClassName: fast\n"
                "  resources:\n    requests: {storage: 10Gi}\n"]
    zone = ZONES[i % len(ZONES)]
    pv = f"pv-{claim}"
    return [
        "apiVersion: v1\nkind: PersistentVolume\n"
        f"metadata:\n  name: {pv}\n  labels: {{topology.kubernetes.io/zone: {zone}}}\n"
        "spec:\n  capacity: {storage: 10Gi}\n  accessModes: [ReadWriteOnce]\n  storageClassName: zonal\n"
        f"  csi: {{driver: {CSI_DRIVER}, volumeHandle: {pv}}}\n"
        f"  claimRef: {{namespace: default, name: {claim}}}\n"
        "  nodeAffinity:\n    required:\n      nodeSelectorTerms:\n      - matchExpressions:\n"
        f"        - {{key: topology.kubernetes.io/zone, operator: In, values: [{zone}]}}\n",
        "apiVersion: v1\nkind: PersistentVolumeClaim\n"
        f"metadata: {{name: {claim}}}\n"
        "spec:\n  accessModes: [ReadWriteOnce]\n  storageClassName: zonal\n"
        f"  volumeName: {pv}\n  resources:\n    requests: {{storage: 10Gi}}\n",
    ]


def render(nodes: int, pods: int, only: str = "both") -> str:
    """The whole scenario as YAML text (deterministic: the same sizes give the same bytes).

    `only="volumes"` leaves out the GPUs (slices and claims), `only="devices"` the PVCs, so each
    half can be measured alone against upstream's figure for it; the cluster is otherwise the same.
    """
    volumes = only in ("both", "volumes")
    devices = only in ("both", "devices")
    node_w = max(5, len(str(nodes - 1)))
    pod_w = max(4, len(str(pods - 1)))
    head = (f"# about: storage and devices benchmark: {nodes} nodes (3 zones, a GPU node in "
            f"{GPU_NODE_EVERY}) x {pods} pending pods; every third pod mounts a PVC, every "
            f"{GPU_NODE_EVERY}th claims a GPU; every pod fits\n")
    docs = _classes()
    for i in range(nodes):
        name = f"node-{i:0{node_w}d}"
        docs.extend(_node(name, ZONES[i % len(ZONES)]))
        if devices and i % GPU_NODE_EVERY == 0:
            docs.append(_slice(name))
    for i in range(pods):
        cpu, mem = REQUESTS[i % 3]
        name = f"pod-{i:0{pod_w}d}"
        extra_spec = ""
        container_claims = ""
        if volumes and i % 3 == 0:
            claim = f"data-{name}"
            docs.extend(_claim_docs(i, claim))
            extra_spec += f"  volumes:\n  - name: data\n    persistentVolumeClaim: {{claimName: {claim}}}\n"
        if devices and i % GPU_NODE_EVERY == 1:
            extra_spec += "  resourceClaims:\n  - name: gpu\n    resourceClaimTemplateName: one-gpu\n"
            container_claims = "      claims:\n      - name: gpu\n"
        docs.append(
            "apiVersion: v1\nkind: Pod\n"
            f"metadata: {{name: {name}}}\n"
            "spec:\n  containers:\n  - name: app\n    image: registry.k8s.io/pause:3.10\n"
            f"    resources:\n      requests: {{cpu: {cpu}, memory: {mem}}}\n{container_claims}{extra_spec}")
    return head + "---\n".join(docs)


def ensure(nodes: int, pods: int, directory: Path = INPUTS, only: str = "both") -> Path:
    """The input's path, writing it first if it is missing."""
    path = directory / file_name(nodes, pods, only)
    if not path.exists():
        directory.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(render(nodes, pods, only), encoding="utf-8")
        tmp.replace(path)
    return path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=DEFAULT[0])
    ap.add_argument("--pods", type=int, default=DEFAULT[1])
    ap.add_argument("--out", type=Path, help="file to write (default: bench/inputs/<name>)")
    ap.add_argument("--only", choices=KINDS, default="both",
                    help="volumes: no GPU slices or claims; devices: no PVCs (default: both)")
    args = ap.parse_args()
    if args.nodes < 1 or args.pods < 0:
        ap.error("--nodes must be at least 1 and --pods at least 0")
    if args.out:
        args.out.write_text(render(args.nodes, args.pods, args.only), encoding="utf-8")
        print(args.out)
    else:
        print(ensure(args.nodes, args.pods, only=args.only))
    return 0


if __name__ == "__main__":
    sys.exit(main())
