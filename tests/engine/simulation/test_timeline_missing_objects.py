"""A Timeline action whose object is gone by its time (a user deleted it live, the scheduler
preempted it, the taint manager evicted it) is refused as the API server refuses it, NotFound,
and the run goes on; so is an add of a name a user took live (AlreadyExists) and a failBind of a
pod the scheduler bound already. A live action naming a missing object is still refused up front.
(scheduler_core/actions/refusal.py)"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from scheduler_core.api.errors import ActionError
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

NODE_NOT_READY = Path(__file__).resolve().parents[3] / "playground" / "gallery" / "node-not-ready.yaml"

SCENARIO = textwrap.dedent("""
    apiVersion: v1
    kind: Node
    metadata: {name: n1}
    status: {capacity: {cpu: "4", memory: 8Gi}}
    ---
    apiVersion: v1
    kind: Node
    metadata: {name: n2}
    status: {capacity: {cpu: "4", memory: 8Gi}}
    ---
    apiVersion: v1
    kind: Pod
    metadata: {name: web}
    spec: {nodeName: n1, containers: [{name: c}]}
    ---
    apiVersion: v1
    kind: Pod
    metadata: {name: queued}
    spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
    ---
    apiVersion: playground.kube-scheduler.dev/v1
    kind: Timeline
    actions:
    - {at: 10, action: deletePod, pod: web}
    - {at: 10, action: failBind, pod: queued}
    - {at: 20, action: cordon, node: n2}
    - {at: 20, action: addTaint, node: n2, taint: {key: k, effect: NoSchedule}}
    - {at: 20, action: removeTaint, node: n2, key: k}
    - {at: 20, action: setNodeLabels, node: n2, labels: {disk: ssd}}
    - {at: 20, action: uncordon, node: n2}
    - {at: 20, action: deleteNode, node: n2}
    - {at: 30, action: addNode, node: {apiVersion: v1, kind: Node, metadata: {name: n3},
                                       status: {capacity: {cpu: "4", memory: 8Gi}}}}
    - {at: 30, action: addPod, pod: {apiVersion: v1, kind: Pod, metadata: {name: late},
                                     spec: {containers: [{name: c}]}}}
    - {at: 40, action: cordon, node: n1}
""")


def _failed(sim: Simulation) -> list[dict[str, Any]]:
    return [{k: e[k] for k in ("time", "action", "kind", "object", "reason", "message")}
            for e in sim.sink.events if e["type"] == "timeline_action_failed"]


def _pods(sim: Simulation) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in sim.result(True)["pods"]}


def test_node_not_ready_after_the_user_deleted_worker_2() -> None:
    sim = Simulation(load_scenario_text(NODE_NOT_READY.read_text(), source="node-not-ready.yaml"),
                     record_events=True)
    sim.apply_manifest_action({"action": "deleteNode", "node": "worker-2"})
    assert sim.run(3600.0) is True  # no ActionError at t=10
    assert _failed(sim) == [{"time": 10.0, "action": "setNodeCondition", "kind": "Node", "object": "worker-2",
                             "reason": "NotFound", "message": 'nodes "worker-2" not found'}]
    # The rest of the timeline applied: worker-1 went not-ready, the late pod came at t=80.
    applied = [(e["time"], e["action"]) for e in sim.sink.events if e["type"] == "cluster_action"]
    assert applied == [(0.0, "deleteNode"), (10.0, "setNodeCondition"), (80.0, "addPod")]
    assert any(e["type"] == "node_lifecycle" and e["node"] == "worker-1" for e in sim.sink.events)
    pods = _pods(sim)
    assert pods["late"]["status"] == "Bound" and pods["late"]["node"] == "worker-3"
    assert pods["web"]["status"] == "Deleted" and pods["web"]["deletedAt"] == 310.0


def test_a_live_action_on_a_missing_node_is_still_refused() -> None:
    sim = Simulation(load_scenario_text(NODE_NOT_READY.read_text(), source="node-not-ready.yaml"),
                     record_events=True)
    sim.apply_manifest_action({"action": "deleteNode", "node": "worker-2"})
    seq = sim.sink.seq
    with pytest.raises(ActionError, match='node "worker-2" does not exist'):
        sim.apply_manifest_action({"action": "setNodeCondition", "node": "worker-2", "status": "False"})
    assert sim.sink.seq == seq


def test_every_action_kind_on_objects_the_user_changed() -> None:
    sim = Simulation(load_scenario_text(SCENARIO, source="t.yaml"), record_events=True)
    for action in ({"action": "deletePod", "pod": "web"}, {"action": "deletePod", "pod": "queued"},
                   {"action": "deleteNode", "node": "n2"},
                   {"action": "addNode", "node": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n3"},
                                                  "status": {"capacity": {"cpu": "2", "memory": "4Gi"}}}},
                   {"action": "addPod", "pod": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "late"},
                                                "spec": {"nodeName": "n3", "containers": [{"name": "c"}]}}}):
        sim.apply_manifest_action(action)
    assert sim.run(3600.0) is True
    n2 = [{"time": 20.0, "action": a, "kind": "Node", "object": "n2", "reason": "NotFound",
           "message": 'nodes "n2" not found'}
          for a in ("cordon", "addTaint", "removeTaint", "setNodeLabels", "uncordon", "deleteNode")]
    assert _failed(sim) == [
        {"time": 10.0, "action": "deletePod", "kind": "Pod", "object": "default/web", "reason": "NotFound",
         "message": 'pods "web" not found'},
        {"time": 10.0, "action": "failBind", "kind": "Pod", "object": "default/queued", "reason": "NotFound",
         "message": 'pods "queued" not found'},
        *n2,
        {"time": 30.0, "action": "addNode", "kind": "Node", "object": "n3", "reason": "AlreadyExists",
         "message": 'nodes "n3" already exists'},
        {"time": 30.0, "action": "addPod", "kind": "Pod", "object": "default/late", "reason": "AlreadyExists",
         "message": 'pods "late" already exists'},
    ]
    # The user's objects are the ones kept (capacity 2, bound to n3), and the last action applied.
    assert sim.scheduler.cluster.nodes["n3"].allocatable["cpu"] == 2
    assert _pods(sim)["late"]["node"] == "n3"
    assert sim.scheduler.cluster.nodes["n1"].unschedulable is True


def test_a_fail_bind_of_a_pod_bound_by_then_is_skipped() -> None:
    """Without any live action: the scheduler binds `queued` (to n2) at t=0, before its failBind at t=10."""
    sim = Simulation(load_scenario_text(SCENARIO, source="t.yaml"), record_events=True)
    assert sim.run(3600.0) is True
    failed = _failed(sim)
    assert failed[0] == {"time": 10.0, "action": "failBind", "kind": "Pod", "object": "default/queued",
                         "reason": "AlreadyBound",
                         "message": 'pod "default/queued" is already bound to node "n2": '
                                    "there is no binding left to fail"}
    assert len(failed) == 1
    assert _pods(sim)["web"]["status"] == "Deleted"


def test_a_delete_of_a_pod_the_taint_manager_evicted_is_not_found() -> None:
    text = SCENARIO.replace("- {at: 10, action: deletePod, pod: web}",
                            "- {at: 5, action: addTaint, node: n1, taint: {key: gone, effect: NoExecute}}\n"
                            "- {at: 10, action: deletePod, pod: web}")
    sim = Simulation(load_scenario_text(text, source="t.yaml"), record_events=True)
    assert sim.run(3600.0) is True
    assert _pods(sim)["web"]["deletedAt"] == 5.0
    assert [(e["action"], e["reason"]) for e in _failed(sim)][:1] == [("deletePod", "NotFound")]
