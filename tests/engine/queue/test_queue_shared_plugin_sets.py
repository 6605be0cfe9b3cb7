"""A queued pod that no plugin rejected holds the one shared empty NO_PLUGINS, and every writer of
QueuedPodInfo's unschedulable_plugins / pending_plugins replaces the field instead of changing it
in place (scheduler_core/framework/types.py).

Why: two empty sets per queued pod were ~65 MB at 150,000 pods, made again by every restore.
A writer left changing the field in place would raise on the shared frozenset: the run below
goes through each writer (a new pod, PreEnqueue gating, a failed attempt with rejecting and
pending plugins, the next Pop) and must end as it did with a set per pod.
"""

from __future__ import annotations

from scheduler_core.framework.types import NO_PLUGINS, QueuedPodInfo
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation


def _node(name: str) -> str:
    return (f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}\n"
            "status: {capacity: {cpu: '2', memory: 4Gi, pods: '110'}}\n")


def _pod(name: str, extra: str = "", cpu: str = "1") -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default}}\nspec:\n{extra}"
            f"  containers: [{{name: c, image: pause, resources: {{requests: {{cpu: '{cpu}'}}}}}}]\n")


TEXT = "---\n".join([
    _node("n1"), _node("n2"),
    *(_pod(f"fits-{i}") for i in range(3)),
    _pod("too-big", cpu="3"),  # NodeResourcesFit rejects it on every node
    _pod("gated", extra="  schedulingGates: [{name: wait}]\n"),  # PreEnqueue's SchedulingGates
    _pod("no-claim", extra="  volumes: [{name: d, persistentVolumeClaim: {claimName: missing}}]\n"),
])


def _queued(sim: Simulation) -> dict[str, QueuedPodInfo]:
    q = sim.scheduler.queue
    infos = [*q.active_q.queue.list(), *q.backoff_q.list(), *q.unschedulable_pods.pod_info_map.values()]
    return {p.pod.name: p for p in infos}


def test_queued_pods_share_the_empty_plugin_sets_and_each_writer_replaces_them() -> None:
    sim = Simulation(load_scenario_text(TEXT), seed=1)
    queued = _queued(sim)
    assert sorted(queued) == ["fits-0", "fits-1", "fits-2", "gated", "no-claim", "too-big"]
    for name in ("fits-0", "fits-1", "fits-2", "too-big", "no-claim"):
        assert queued[name].unschedulable_plugins is NO_PLUGINS, name  # before: a new set each
        assert queued[name].pending_plugins is NO_PLUGINS, name
    assert queued["gated"].unschedulable_plugins == {"SchedulingGates"}
    assert sim.run()
    queued = _queued(sim)
    assert sorted(queued) == ["gated", "no-claim", "too-big"]
    assert queued["too-big"].unschedulable_plugins == {"NodeResourcesFit"}
    assert queued["gated"].unschedulable_plugins == {"SchedulingGates"}
    assert queued["no-claim"].unschedulable_plugins | queued["no-claim"].pending_plugins == {"VolumeRestrictions"}
    pods = {p["name"]: (p["status"], p["node"]) for p in sim.result(True)["pods"]}
    assert [name for name, (status, _) in sorted(pods.items()) if status == "Bound"] == ["fits-0", "fits-1", "fits-2"]
    # A new node: the rejected pods are popped again (their fields replaced by the empty one).
    sim.apply_manifest_action({"action": "addNode", "node": {"metadata": {"name": "n3"}, "status": {
        "capacity": {"cpu": "4", "memory": "4Gi", "pods": "110"}}}}, index=1)
    assert sim.run()
    pods = {p["name"]: (p["status"], p["node"]) for p in sim.result(True)["pods"]}
    assert pods["too-big"] == ("Bound", "n3") and pods["gated"][0] == pods["no-claim"][0] == "Pending"
    restored = Simulation.restore(sim.checkpoint())
    assert restored.result(True) == sim.result(True)
