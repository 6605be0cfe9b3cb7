"""A large scenario for the scale tests: `nodes` nodes (some tainted, some cordoned, zone labels)
and `pods` small pods, as the multi-document YAML a user would import."""

from __future__ import annotations


def big_cluster_yaml(nodes: int, pods: int) -> str:
    """Every 7th node is tainted NoSchedule, every 11th is cordoned; pods fit anywhere else."""
    docs = []
    for i in range(nodes):
        spec = []
        if i % 7 == 3:
            spec.append("  taints: [{key: dedicated, value: gpu, effect: NoSchedule}]")
        if i % 11 == 5:
            spec.append("  unschedulable: true")
        docs.append(
            f"apiVersion: v1\nkind: Node\nmetadata:\n  name: node-{i:05d}\n"
            f"  labels: {{kubernetes.io/hostname: node-{i:05d}, topology.kubernetes.io/zone: zone-{i % 3}}}\n"
            + ("spec:\n" + "\n".join(spec) + "\n" if spec else "")
            + f"status: {{capacity: {{cpu: '{4 + i % 4}', memory: 16Gi, pods: '110'}}}}\n"
        )
    for i in range(pods):
        docs.append(
            f"apiVersion: v1\nkind: Pod\nmetadata: {{name: pod-{i:05d}}}\nspec:\n  containers:\n  - name: app\n"
            f"    image: registry.k8s.io/pause:3.10\n    resources: {{requests: {{cpu: 500m, memory: 256Mi}}}}\n"
        )
    return "---\n".join(docs)
