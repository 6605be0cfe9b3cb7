"""Small scenario builders for the descheduler tests."""

from __future__ import annotations

from typing import Any

import yaml

from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation


def node(name: str, cpu: str = "4", labels: dict[str, str] | None = None, taints: list[dict] | None = None,
         unschedulable: bool = False) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
            "spec": spec, "status": {"capacity": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}}


def pod(name: str, node_name: str = "", cpu: str = "500m", labels: dict[str, str] | None = None,
        owner: tuple[str, str] | None = ("ReplicaSet", "rs"), spec: dict[str, Any] | None = None,
        annotations: dict[str, str] | None = None, image: str = "registry.k8s.io/pause:3.10") -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "labels": labels or {"app": "web"}}
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner[0], "name": owner[1],
                                    "uid": f"uid-{owner[1]}", "controller": True}]
    if annotations:
        meta["annotations"] = annotations
    s: dict[str, Any] = {"containers": [{"name": "app", "image": image,
                                         "resources": {"requests": {"cpu": cpu, "memory": "128Mi"}}}]}
    if node_name:
        s["nodeName"] = node_name
    s.update(spec or {})
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": s}


def policy(profiles: list[dict[str, Any]], **top: Any) -> dict[str, Any]:
    return {"apiVersion": "descheduler/v1alpha2", "kind": "DeschedulerPolicy", "profiles": profiles, **top}


def profile(strategy: str, point: str, args: dict[str, Any] | None = None,
            evictor: dict[str, Any] | None = None, name: str = "p") -> dict[str, Any]:
    configs = []
    if evictor is not None:
        configs.append({"name": "DefaultEvictor", "args": evictor})
    if args is not None:
        configs.append({"name": strategy, "args": args})
    return {"name": name, "pluginConfig": configs, "plugins": {point: {"enabled": [strategy]}}}


def text(docs: list[dict[str, Any]]) -> str:
    return yaml.safe_dump_all(docs, sort_keys=False)


def simulate(docs: list[dict[str, Any]] | str, **kw: Any) -> Simulation:
    sc = load_scenario_text(docs if isinstance(docs, str) else text(docs), source="test.yaml")
    sim = Simulation(sc, record_events=True, **kw)
    sim.run()
    return sim


def deschedule(sim: Simulation) -> list[dict[str, Any]]:
    """Run the descheduler now; the pass's events."""
    start = len(sim.sink.events)
    sim.apply_manifest_action({"action": "runDescheduler"})
    return sim.sink.events[start:]


def evicted(events: list[dict[str, Any]]) -> list[str]:
    return [e["pod"] for e in events if e["type"] == "descheduler_evicted"]
