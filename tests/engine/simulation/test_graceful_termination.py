"""Optional graceful termination: a preemption victim keeps its node for its grace period on
the virtual clock; the preemptor stays nominated and binds only once the victim is gone."""

from __future__ import annotations

import textwrap

from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

SCENARIO = textwrap.dedent("""
    apiVersion: scheduling.k8s.io/v1
    kind: PriorityClass
    metadata: {name: high}
    value: 1000
    ---
    apiVersion: v1
    kind: Node
    metadata: {name: n1}
    status: {capacity: {cpu: "2", memory: 4Gi}}
    ---
    apiVersion: v1
    kind: Pod
    metadata: {name: victim}
    spec:
      nodeName: n1
      terminationGracePeriodSeconds: 20
      containers: [{name: c, resources: {requests: {cpu: "2"}}}]
    ---
    apiVersion: v1
    kind: Pod
    metadata: {name: boss}
    spec:
      priorityClassName: high
      containers: [{name: c, resources: {requests: {cpu: "2"}}}]
""")


def _pods(sim: Simulation) -> dict:
    return {p["name"]: p for p in sim.result(True)["pods"]}


def test_victim_terminates_over_its_grace_period() -> None:
    sim = Simulation(load_scenario_text(SCENARIO), graceful_termination=True, record_events=True)
    while sim.clock.now() < 10 and sim.step(max_time=10) in ("cycle", "clock"):
        pass
    pods = _pods(sim)
    assert pods["victim"]["status"] == "Bound"  # still terminating on n1
    assert sim.scheduler.cluster.pods["default/victim"].deletion_timestamp == 0.0
    assert pods["boss"]["status"] == "Pending"
    assert pods["boss"]["nominatedNodeName"] == "n1"
    assert sim.run() is True
    pods = _pods(sim)
    assert pods["victim"]["status"] == "Deleted" and pods["victim"]["deletedAt"] == 20.0
    assert pods["boss"]["status"] == "Bound" and pods["boss"]["node"] == "n1"
    preempted = [e for e in sim.result(True)["events"] if e["reason"] == "Preempted"]
    assert len(preempted) == 1  # the terminating victim is not preempted twice


def test_default_deletes_victims_at_once() -> None:
    sim = Simulation(load_scenario_text(SCENARIO))
    assert sim.run() is True
    pods = _pods(sim)
    assert pods["victim"]["deletedAt"] == 0.0
    assert pods["boss"]["node"] == "n1"
