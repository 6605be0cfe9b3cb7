"""v1.30's preemption summary for nodes a PreFilterResult excludes: they were never filtered,
so they have no status; v1.30.6's nodesWherePreemptionMightHelp counts such nodes as "Preemption
is not helpful for scheduling" (only explicit Unschedulable nodes are dry-run), while the part
before "preemption:" does not count them at all (v1.35 lists them as "didn't satisfy plugin(s)")."""

from __future__ import annotations

from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

NODES = "".join(
    f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i}}}\nstatus: {{allocatable: {{cpu: '{1 if i == 1 else 4}'}}}}\n---\n"
    for i in range(1, 6))
PODS = """apiVersion: v1
kind: Pod
metadata: {name: big}
spec:
  nodeName: n1
  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: ds}
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchFields: [{key: metadata.name, operator: In, values: [n1]}]
  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
"""


def _message(version: str) -> str:
    sim = Simulation(load_scenario_text(NODES + PODS), kubernetes_version=version)
    sim.run()
    return next(p["message"] for p in sim.result(True)["pods"] if p["name"] == "ds")


def test_v130_counts_prefilter_excluded_nodes_as_not_helpful() -> None:
    assert _message("v1.30") == (
        "0/5 nodes are available: 1 Insufficient cpu. preemption: 0/5 nodes are available: "
        "1 No preemption victims found for incoming pod, 4 Preemption is not helpful for scheduling.")


def test_v135_lists_them_before_preemption_too() -> None:
    assert _message("v1.35") == (
        "0/5 nodes are available: 1 Insufficient cpu, 4 node(s) didn't satisfy plugin(s) [NodeAffinity]. "
        "no new claims to deallocate, preemption: 0/5 nodes are available: "
        "1 No preemption victims found for incoming pod, 4 Preemption is not helpful for scheduling.")
