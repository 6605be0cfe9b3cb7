"""A started run keeps its scenario's nodes and pods only as counts (scheduler_core/api/scenario_release.py).

Why: a pod bound during the run is a new object in the store; a run that kept the scenario's
own pods wrote both copies into every checkpoint late in a run (~50 % more at the envelope).
The proofs: no stale copy of a bound pod is pickled into a checkpoint; the run reads nothing
else of the loaded objects (a live pod and node take the uids and creation indexes they took
before, and a restored run steps as the original); a reader of the released lists fails loudly.
"""

from __future__ import annotations

import io
import pickle
from typing import Any

import pytest

from scheduler_core.api.scenario_release import Released, ReleasedObjectsError, released_after_start
from scheduler_core.api.types import Pod
from scheduler_core.checkpoint import EnginePickler
from scheduler_core.loader import load_scenario_text, parse_action
from scheduler_core.simulation import Simulation


def _node(name: str) -> str:
    return (f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}\n"
            "status: {capacity: {cpu: '4', memory: 8Gi, pods: '110'}}\n")


def _pod(name: str, node: str = "") -> str:
    bound = f"  nodeName: {node}\n" if node else ""
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default}}\nspec:\n{bound}"
            "  containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]\n")


PRIORITY = ("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n")
TEXT = "---\n".join([_node("n1"), _node("n2"), _node("n3"), PRIORITY, _pod("running", "n1"),
                     *(_pod(f"p{i}") for i in range(6))])


class _PodSpy(EnginePickler):
    """The checkpoint's pickler, noting every Pod it writes."""

    def __init__(self, file: Any) -> None:
        super().__init__(file)
        self.pods: list[Pod] = []

    def persistent_id(self, obj: Any) -> None:
        if type(obj) is Pod:
            self.pods.append(obj)
        return None


def test_a_checkpoint_late_in_a_run_holds_no_unbound_copy_of_a_bound_pod() -> None:
    sim = Simulation(load_scenario_text(TEXT), seed=3)
    assert sim.run()
    bound = {key for key, pod in sim.scheduler.cluster.pods.items() if pod.node_name}
    assert len(bound) == 7
    spy = _PodSpy(io.BytesIO())
    spy.dump(sim)
    stale = sorted({p.key for p in spy.pods if p.key in bound and not p.node_name})
    assert stale == []  # before: the scenario's six pending pods, pickled beside their bound selves


def test_the_run_keeps_the_counts_and_leaves_the_callers_scenario_alone() -> None:
    scenario = load_scenario_text(TEXT)
    sim = Simulation(scenario, seed=3)
    assert (len(sim.scenario.nodes), len(sim.scenario.pods)) == (3, 7)
    assert isinstance(sim.scenario.pods, Released) and isinstance(sim.scenario.nodes, Released)
    assert [p.name for p in scenario.pods] == ["running", *(f"p{i}" for i in range(6))]
    assert sim.scenario.priority_classes == scenario.priority_classes
    again = Simulation(scenario, seed=3)  # another run from the same scenario starts whole
    assert again.run() and sim.run() and again.result(True) == sim.result(True)


def test_live_objects_take_the_uids_and_indexes_they_took_with_the_whole_scenario() -> None:
    scenario = load_scenario_text(TEXT)
    sim = Simulation(scenario, seed=3)
    sim.run()
    obj = {"action": "addPod", "pod": {"metadata": {"name": "late"}, "spec": {
        "priorityClassName": "high", "containers": [{"name": "c", "image": "pause"}]}}}
    done = sim.apply_manifest_action(obj, index=4)
    expected = parse_action(obj, scenario, at=sim.clock.now(), index=4).params["pod"]
    pod = done.params["pod"]
    assert (pod.uid, pod.creation_index, pod.priority) == (expected.uid, expected.creation_index, 1000)
    node = sim.apply_manifest_action({"action": "addNode", "node": {"metadata": {"name": "n9"}}}, index=5)
    expected_node = parse_action({"action": "addNode", "node": {"metadata": {"name": "n9"}}}, scenario,
                                 at=sim.clock.now(), index=5).params["node"]
    assert node.params["node"].uid == expected_node.uid


def test_a_restored_run_steps_as_the_original() -> None:
    sim = Simulation(load_scenario_text(TEXT), seed=3, record_events=True)
    for _ in range(3):
        sim.step()
    restored = Simulation.restore(sim.checkpoint())
    assert restored.scenario.pods == Released("pods", 7)
    sim.sink.events.clear()
    sim.run()
    restored.run()
    assert restored.sink.events == sim.sink.events and restored.result(True) == sim.result(True)


def test_reading_the_released_objects_fails_loudly() -> None:
    released = released_after_start(load_scenario_text(TEXT))
    for read in (lambda: list(released.pods), lambda: released.nodes[0], lambda: "x" in released.pods):
        with pytest.raises(ReleasedObjectsError, match="keeps only the number of its scenario's"):
            read()
    assert pickle.loads(pickle.dumps(released.pods)) == released.pods
