"""Storage benchmark: the 5,000-node, 10,000-pod input with a third of the pods using
PersistentVolumeClaims, beside the plain one (the same nodes and pods without volumes).

    python bench/storage.py [--runs 3]

Of every three pods, one uses a claim, in turn: a WaitForFirstConsumer claim of a CSI class
allowed in three of the four zones (VolumeBinding provisions it: PreBind's selected-node
annotation, the provisioner's PV, the PV controller's binding), or a claim bound to a zonal PV
(VolumeBinding's node affinity check and VolumeZone's labels). Each input is timed in a fresh
interpreter by bench/run.py's child (same figures: pods/s over wall and CPU time, peak RSS, the
result's digest). Numbers, not assertions.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import generate  # noqa: E402

NODES, PODS = 5000, 10000
ZONES = generate.ZONES


def render_storage(nodes: int, pods: int) -> str:
    """The plain input's nodes and pods, a third of the pods with a claim, and the classes,
    claims and volumes they use."""
    base = generate.render(nodes, pods)
    head, *docs = base.split("\n---\n")
    out = [head]
    claims: list[str] = []
    for d in docs:
        if "\nkind: Pod\n" not in d:
            out.append(d)
            continue
        name = d.split("name: ", 1)[1].split("\n", 1)[0].split("}", 1)[0].strip()
        index = int(name.rsplit("-", 1)[1])
        if index % 3 == 0:
            claim = f"data-{index}"
            d = d.rstrip("\n") + f"\n  volumes:\n  - name: data\n    persistentVolumeClaim: {{claimName: {claim}}}\n"
            if index % 2 == 0:
                claims.append(f"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {{name: {claim}}}\nspec:\n"
                              "  accessModes: [ReadWriteOnce]\n  storageClassName: zonal\n"
                              "  resources: {requests: {storage: 10Gi}}\n")
            else:
                zone = ZONES[index % len(ZONES)]
                claims.append(f"apiVersion: v1\nkind: PersistentVolume\nmetadata: {{name: pv-{index}, labels: "
                              f"{{topology.kubernetes.io/zone: {zone}}}}}\nspec:\n  capacity: {{storage: 10Gi}}\n"
                              "  accessModes: [ReadWriteOnce]\n  storageClassName: zonal\n"
                              f"  csi: {{driver: ebs.csi.aws.com, volumeHandle: vol-{index}}}\n"
                              "  nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: "
                              f"[{{key: topology.kubernetes.io/zone, operator: In, values: [{zone}]}}]}}]}}}}\n")
                claims.append(f"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {{name: {claim}}}\nspec:\n"
                              "  accessModes: [ReadWriteOnce]\n  storageClassName: zonal\n"
                              f"  volumeName: pv-{index}\n  resources: {{requests: {{storage: 10Gi}}}}\n")
        out.append(d)
    allowed = ", ".join(ZONES[:3])
    cls = ("apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: zonal}\n"
           "provisioner: ebs.csi.aws.com\nvolumeBindingMode: WaitForFirstConsumer\nallowedTopologies:\n"
           f"- matchLabelExpressions:\n  - {{key: topology.kubernetes.io/zone, values: [{allowed}]}}\n")
    return "\n---\n".join([out[0], cls, *claims, *out[1:]]) + "\n"


def ensure() -> Path:
    path = generate.INPUTS / f"perf-storage-{NODES}n-{PODS}p.yaml"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_storage(NODES, PODS))
    return path


def child(path: Path, runs: int) -> dict:
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--child", str(path), "--runs", str(runs)],
                          capture_output=True, text=True, cwd=ROOT, check=False)
    if proc.returncode != 0:
        return {"file": path.name, "error": proc.stderr.strip().splitlines()[-3:]}
    return {"file": path.name, **json.loads(proc.stdout.strip().splitlines()[-1])}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    plain = generate.ensure(NODES, PODS)
    for path in (plain, ensure()):
        print(json.dumps(child(path, args.runs)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
