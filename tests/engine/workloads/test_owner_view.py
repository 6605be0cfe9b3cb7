"""The view names each pod's controller (deleted pods included) and the scalable Deployments."""

from __future__ import annotations

from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

SCENARIO = """
apiVersion: v1
kind: Node
metadata: {name: n1}
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
    spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: bare}
spec: {containers: [{name: c, image: nginx}]}
"""


def test_view_names_owners_and_deployments_before_and_after_scaling():
    sim = Simulation(load_scenario_text(SCENARIO), seed=0)
    view = sim.view()
    owners = {p["key"]: p["owner"] for p in view["pods"]}
    [deployment] = view["deployments"]
    rs = deployment["replicaSet"]
    assert deployment == {"key": "shop/web", "namespace": "shop", "name": "web", "replicaSet": rs, "replicas": 2}
    assert owners.pop("default/bare") is None
    assert set(owners.values()) == {f"ReplicaSet/{rs}"}
    sim.apply_manifest_action({"action": "scaleDeployment", "name": "web", "namespace": "shop", "replicas": 0})
    view = sim.view()
    gone = [p for p in view["pods"] if p["status"] == "Deleted"]
    assert len(gone) == 2 and {p["owner"] for p in gone} == {f"ReplicaSet/{rs}"}
    assert view["deployments"][0]["replicas"] == 0
    # A checkpoint keeps the owners.
    assert Simulation.restore(sim.checkpoint()).view()["pods"] == view["pods"]
