"""Randomised scenarios mixing every feature: the engine must never crash, must settle, and its
placements must respect the hard constraints whatever the mix (resources, selectors, taints,
anti-affinity, spreading, preemption, evictions). These are invariants, not expected outputs."""

from __future__ import annotations

import random

import pytest
import yaml

from scheduler_core.framework.types import calculate_resource
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation


def _scenario(rng: random.Random) -> str:
    docs: list[dict] = []
    zones = ["a", "b", "c"][: rng.randint(1, 3)]
    for p, v in (("low", 10), ("mid", 100), ("high", 1000)):
        docs.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                     "metadata": {"name": p}, "value": v})
    n_nodes = rng.randint(1, 12)
    for i in range(n_nodes):
        node = {"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": f"n{i}", "labels": {"kubernetes.io/hostname": f"n{i}",
                                                         "topology.kubernetes.io/zone": rng.choice(zones),
                                                         "disk": rng.choice(["ssd", "hdd"])}},
                "spec": {},
                "status": {"capacity": {"cpu": str(rng.choice([1, 2, 4])), "memory": f"{rng.choice([2, 4, 8])}Gi",
                                        "pods": str(rng.choice([3, 10, 110]))}}}
        if rng.random() < 0.2:
            node["spec"]["taints"] = [{"key": "dedicated", "value": "x",
                                       "effect": rng.choice(["NoSchedule", "NoExecute", "PreferNoSchedule"])}]
        if rng.random() < 0.1:
            node["spec"]["unschedulable"] = True
        docs.append(node)
    docs.append({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
                 "spec": {"selector": {"app": "web"}}})
    if rng.random() < 0.5:
        docs.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "pdb"},
                     "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "db"}}}})
    for j in range(rng.randint(1, 25)):
        app = rng.choice(["web", "db", "batch"])
        spec: dict = {"containers": [{"name": "c", "image": rng.choice(["nginx", "redis:7"]),
                                      "resources": {"requests": {"cpu": rng.choice(["100m", "500m", "1", "1500m"]),
                                                                 "memory": rng.choice(["128Mi", "1Gi", "3Gi"])}}}]}
        if rng.random() < 0.5:
            spec["priorityClassName"] = rng.choice(["low", "mid", "high"])
        if rng.random() < 0.2:
            spec["nodeSelector"] = {"disk": rng.choice(["ssd", "hdd"])}
        if rng.random() < 0.2:
            spec["tolerations"] = [{"key": "dedicated", "operator": "Exists",
                                    **({"tolerationSeconds": rng.choice([0, 5, 30])} if rng.random() < 0.5 else {})}]
        if rng.random() < 0.2:
            spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}]}}
        if rng.random() < 0.2:
            spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                                  "whenUnsatisfiable": rng.choice(["DoNotSchedule", "ScheduleAnyway"]),
                                                  "labelSelector": {"matchLabels": {"app": app}}}]
        if rng.random() < 0.15:
            spec["nodeName"] = f"n{rng.randrange(n_nodes)}"
        docs.append({"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": f"p{j}", "labels": {"app": app}}, "spec": spec})
    return yaml.safe_dump_all(docs)


@pytest.mark.parametrize("seed", range(40))
def test_random_scenario_respects_hard_constraints(seed: int) -> None:
    rng = random.Random(seed)
    scenario = load_scenario_text(_scenario(rng), source=f"random-{seed}")
    sim = Simulation(scenario, seed=seed)
    assert sim.run(max_time=3600) is True
    sched = sim.scheduler
    nodes = sched.cluster.nodes
    by_node: dict[str, list] = {}
    for key, rec in sched.cluster.records.items():
        if rec.status == "Bound":
            by_node.setdefault(rec.node, []).append(sched.cluster.pods[key])
    prebound = {p.key for p in scenario.pods if p.node_name}
    for name, pods in by_node.items():
        node = nodes[name]
        ni = sched.cache.nodes[name]
        scheduled = [p for p in pods if p.key not in prebound]
        # Resources: what the scheduler placed fits next to everything else on the node.
        if scheduled:
            cpu = sum(calculate_resource(p).resource.milli_cpu for p in pods)
            mem = sum(calculate_resource(p).resource.memory for p in pods)
            assert cpu <= ni.allocatable.milli_cpu, (seed, name)
            assert mem <= ni.allocatable.memory, (seed, name)
            assert len(pods) <= ni.allocatable.allowed_pod_number, (seed, name)
        for p in scheduled:
            for k, v in p.node_selector.items():
                assert node.labels.get(k) == v, (seed, p.key, name)
            for t in node.taints:
                if t.effect in ("NoSchedule", "NoExecute"):
                    assert any(tol.tolerates_taint(t) for tol in p.tolerations), (seed, p.key, name)
    # Every pending pod carries upstream's kind of explanation.
    for key, rec in sched.cluster.records.items():
        if rec.status == "Pending" and sched.cluster.pods[key].scheduler_name == "default-scheduler":
            assert rec.message and rec.message.startswith("0/"), (seed, key, rec.message)
