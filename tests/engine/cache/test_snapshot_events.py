"""Each cycle's UpdateSnapshot in the event stream: the snapshot's generation and how many
NodeInfos it refreshed (only those that changed since the last cycle)."""

from __future__ import annotations

from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

SCENARIO = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: '4', pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {capacity: {cpu: '4', pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: n3}
status: {capacity: {cpu: '4', pods: '110'}}
---
apiVersion: v1
kind: Pod
metadata: {name: a}
spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b}
spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: too-big}
spec: {containers: [{name: c, resources: {requests: {cpu: '9'}}}]}
---
apiVersion: playground.kube-scheduler.dev/v1
kind: Timeline
actions:
- {at: 5, action: addNode, node: {metadata: {name: n4}, status: {capacity: {cpu: '16', pods: '110'}}}}
"""


def test_each_cycle_reports_what_update_snapshot_refreshed() -> None:
    sim = Simulation(load_scenario_text(SCENARIO, source="t"), seed=0, record_events=True)
    sim.run(600.0)
    snaps = [(e["pod"], e["generation"], e["updated"], e["rebuilt"], e["nodes"])
             for e in sim.sink.events if e["type"] == "snapshot"]
    assert snaps[0] == ("default/a", 1, 3, True, 3)  # the first cycle copies every node
    assert snaps[1] == ("default/b", 2, 1, False, 3)  # only the node a was assumed onto
    # too-big: nothing changed since b's cycle but b's own node (its informer Add): 1 NodeInfo.
    assert snaps[2][0] == "default/too-big" and snaps[2][2] <= 1 and not snaps[2][3]
    # A node added later rebuilds the list.
    assert snaps[-1][0] == "default/too-big" and snaps[-1][3] is True and snaps[-1][4] == 4
    generations = [g for _, g, *_ in snaps]
    assert generations == sorted(generations)


def test_a_headless_run_emits_no_snapshot_events() -> None:
    sim = Simulation(load_scenario_text(SCENARIO, source="t"), seed=0)
    sim.run(600.0)
    assert sim.sink.events == []
