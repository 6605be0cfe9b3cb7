"""scaleDeployment during a run: the ReplicaSet controller's pods, added and deleted."""

from __future__ import annotations

import pytest

from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import ActionError, Simulation

SCENARIO = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: "2", memory: 8Gi}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {capacity: {cpu: "2", memory: 8Gi}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: 600m}}}]}
"""


def _web(sim: Simulation) -> list:
    return sorted((p for p in sim.scheduler.cluster.pods.values() if p.labels.get("app") == "web"),
                  key=lambda p: p.creation_index)


def test_scale_up_then_down_deletes_unscheduled_then_newest():
    sim = Simulation(load_scenario_text(SCENARIO), seed=1)
    sim.run()
    first = [p.key for p in _web(sim)]
    act = sim.apply_manifest_action({"action": "scaleDeployment", "name": "web", "namespace": "shop",
                                     "replicas": 7}, index=0)
    assert len(act.params["created"]) == 5 and len(_web(sim)) == 7
    assert all(k.startswith("shop/web-") for k in act.params["created"])
    sim.run()
    # 2 CPU per node, 600m each: 3 fit per node, so one of the 7 stays unscheduled.
    unscheduled = [p.key for p in _web(sim) if not p.node_name]
    assert len(unscheduled) == 1
    act = sim.apply_manifest_action({"action": "scaleDeployment", "name": "web", "namespace": "shop",
                                     "replicas": 2}, index=1)
    assert act.params["deleted"][0] == unscheduled[0]
    # Same rank otherwise (3 of the set on each node): the newest go, the original two remain.
    assert [p.key for p in _web(sim)] == first


def test_scale_is_reproducible_and_unknown_deployment_is_refused():
    names = []
    for _ in range(2):
        sim = Simulation(load_scenario_text(SCENARIO), seed=1)
        sim.run()
        act = sim.apply_manifest_action({"action": "scaleDeployment", "name": "web",
                                         "namespace": "shop", "replicas": 4})
        names.append(act.params["created"])
    assert names[0] == names[1]
    with pytest.raises(ActionError, match='Deployment "default/nope"'):
        sim.apply_manifest_action({"action": "scaleDeployment", "name": "nope", "replicas": 1})
