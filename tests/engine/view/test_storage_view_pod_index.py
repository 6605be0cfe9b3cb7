"""The storage view reads the pods with volumes through the cluster store's index
(`ClusterState.volume_pods`) instead of walking every pod each Step. These tests hold the index
to a full scan of the pods after every kind of pod write (create, bind, user delete, drain
eviction, preemption, node deletion, a claim-using pod replaced by one without claims) and across
a checkpoint, and hold the view to the one a full walk gives."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation
from scheduler_core.view.storage import storage_view

GALLERY = Path(__file__).resolve().parents[3] / "playground" / "gallery"
WITH_CLAIMS = sorted(p.name for p in GALLERY.glob("*.yaml") if "kind: PersistentVolumeClaim" in p.read_text())


def full_scan(sim: Simulation) -> set[str]:
    """The keys of the current pods with volumes, found the slow way."""
    return {k for k, p in sim.scheduler.cluster.pods.items() if p.volumes}


def full_walk_view(sim: Simulation) -> dict[str, Any] | None:
    """The storage view as a walk over every pod gives it: the view run over an index rebuilt
    from all pods (pods without volumes name no claim, so this is the old full walk)."""
    cs = sim.scheduler.cluster
    kept = cs.volume_pods
    cs.volume_pods = {k: None for k, p in cs.pods.items() if p.volumes}
    try:
        return storage_view(sim.scheduler)
    finally:
        cs.volume_pods = kept


def assert_in_step(sim: Simulation) -> None:
    assert set(sim.scheduler.cluster.volume_pods) == full_scan(sim)
    assert storage_view(sim.scheduler) == full_walk_view(sim)


def test_the_gallery_has_storage_scenarios() -> None:
    assert len(WITH_CLAIMS) >= 3, WITH_CLAIMS


@pytest.mark.parametrize("name", WITH_CLAIMS)
def test_gallery_views_match_the_full_walk_step_by_step_and_after_a_checkpoint(name: str) -> None:
    sim = Simulation(load_scenario_text((GALLERY / name).read_text(), source=name))
    assert sim.scheduler.cluster.volume_pods, "the scenario's pods name claims"
    assert_in_step(sim)
    for _ in range(4):
        sim.step()
        assert_in_step(sim)
    back = Simulation.restore(sim.checkpoint())
    assert back.scheduler.cluster.volume_pods == sim.scheduler.cluster.volume_pods
    assert storage_view(back.scheduler) == storage_view(sim.scheduler)
    for _ in range(4):
        back.step()
        assert_in_step(back)


def _node(name: str, cpu: str = "4") -> str:
    return (f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}\n"
            f"status: {{allocatable: {{cpu: '{cpu}', memory: 8Gi, pods: '110'}}}}\n")


def _claim(name: str) -> str:
    return (f"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {{name: {name}, namespace: default}}\n"
            "spec: {accessModes: [ReadWriteOnce], storageClassName: fast, resources: {requests: {storage: 1Gi}}}\n")


def _pod_manifest(name: str, claim: str | None, cpu: str = "1", priority: int = 0,
                  node: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"priority": priority,
                            "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}
    if claim is not None:
        spec["volumes"] = [{"name": "v", "persistentVolumeClaim": {"claimName": claim}}]
    if node is not None:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


CLASS = ("apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: fast}\n"
         "provisioner: example.com/fast\nvolumeBindingMode: WaitForFirstConsumer\n")


def test_the_index_follows_every_pod_write() -> None:
    """Each pod write path in turn, with a pod that names a claim, checked against a full scan."""
    import yaml

    # n1 and n2 fill up with p0..p3 (2 CPUs each); `low` (below every other priority) fills n3.
    docs = [_node("n1"), _node("n2"), _node("n3", cpu="1"), CLASS, *(_claim(f"c{i}") for i in range(6)),
            *(yaml.safe_dump(_pod_manifest(f"p{i}", f"c{i}", cpu="2")) for i in range(4)),
            yaml.safe_dump(_pod_manifest("plain", None, cpu="0")),
            yaml.safe_dump(_pod_manifest("low", "c4", priority=-10, node="n3"))]
    sim = Simulation(load_scenario_text("---\n".join(docs), source="index.yaml"))
    cs = sim.scheduler.cluster
    assert set(cs.volume_pods) == {f"default/p{i}" for i in range(4)} | {"default/low"}
    assert_in_step(sim)
    for _ in range(6):  # binds
        sim.step()
        assert_in_step(sim)
    assert {cs.records[f"default/p{i}"].status for i in range(4)} == {"Bound"}

    sim.apply_manifest_action({"action": "addPod", "pod": _pod_manifest("late", "c5", cpu="3")})  # add
    assert "default/late" in cs.volume_pods
    assert_in_step(sim)

    # A claim-using pod replaced by one without volumes (an update through the API server), and back.
    p1 = cs.pods["default/p1"]
    sim.apiserver.update_pod(dataclasses.replace(p1, pod_volumes=[]))
    assert "default/p1" not in cs.volume_pods
    assert_in_step(sim)
    sim.apiserver.update_pod(p1)
    assert "default/p1" in cs.volume_pods
    assert_in_step(sim)

    # Preemption: a high-priority pod with no room anywhere evicts `low` (which uses c4) from n3.
    sim.apply_manifest_action({"action": "addPod", "pod": _pod_manifest("high", None, priority=1000)})
    for _ in range(6):
        sim.step()
        assert_in_step(sim)
    assert cs.records["default/low"].deleted_by == "Preempted"
    assert "default/low" not in cs.volume_pods

    # A user's delete, then a pod of the same name without a claim.
    sim.apply_manifest_action({"action": "deletePod", "pod": "p0"})
    assert "default/p0" not in cs.volume_pods
    assert_in_step(sim)
    sim.apply_manifest_action({"action": "addPod", "pod": _pod_manifest("p0", None, cpu="2")})
    assert "default/p0" not in cs.volume_pods and "default/p0" in cs.pods
    assert_in_step(sim)

    # Drain evictions and a node deletion's pod garbage collection, each of pods with claims.
    on = {n: [k for k, p in cs.pods.items() if p.node_name == n and p.volumes] for n in ("n1", "n2")}
    assert on["n1"] and on["n2"], on
    sim.apply_manifest_action({"action": "drainNode", "node": "n1", "force": True})
    for _ in range(4):
        sim.step()
        assert_in_step(sim)
    assert {cs.records[k].deleted_by for k in on["n1"]} == {"Evicted"}
    sim.apply_manifest_action({"action": "deleteNode", "node": "n2"})
    assert {cs.records[k].deleted_by for k in on["n2"]} == {"NodeDeleted"}
    assert_in_step(sim)
    assert set(cs.volume_pods) == full_scan(sim) != set()

    back = Simulation.restore(sim.checkpoint())
    assert back.scheduler.cluster.volume_pods == cs.volume_pods
    assert_in_step(back)
    back.apply_manifest_action({"action": "deletePod", "pod": "late"})
    assert "default/late" not in back.scheduler.cluster.volume_pods
    assert_in_step(back)
