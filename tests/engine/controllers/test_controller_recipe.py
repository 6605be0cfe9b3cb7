"""docs/architecture.md's recipe for a controller, followed step by step with a throwaway one:
(1) a `Controller` subclass with a name, `next_wakeup`, `run_due` and the watches it needs;
(2) one entry in `CONTROLLERS` (scheduler_core/simulation.py). The run must then wake it on
time on the virtual clock, deliver the API server's writes to it, keep it through a
checkpoint, and report what it changes in the event stream."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_core import simulation as simulation_module
from scheduler_core.api.types import Node
from scheduler_core.controllers.timers import Controller
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
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: c, resources: {requests: {cpu: '1'}}}]
"""

CORDON_AFTER = 42.0


class CordonLater(Controller):
    """Cordons each node CORDON_AFTER virtual seconds after the API server reported it."""

    name = "cordon-later"

    def __init__(self) -> None:
        self.due: dict[str, float] = {}  # node -> when to cordon it
        self.woken_at: list[float] = []

    @classmethod
    def for_run(cls, api: Any) -> CordonLater:
        return cls()

    def on_node_add(self, api: Any, node: Node) -> None:
        self.due[node.name] = api.clock.now() + CORDON_AFTER

    def next_wakeup(self, sim: Any) -> float | None:
        return min(self.due.values(), default=None)

    def run_due(self, sim: Any, now: float) -> bool:
        ready = sorted(name for name, t in self.due.items() if t <= now)
        if not ready:
            return False
        self.woken_at.append(now)
        for name in ready:
            del self.due[name]
            sim.apiserver.set_unschedulable(name, True)
        return True


@pytest.fixture
def with_throwaway(monkeypatch: pytest.MonkeyPatch) -> None:
    """Step 2 of the recipe: one entry in CONTROLLERS."""
    monkeypatch.setattr(simulation_module, "CONTROLLERS", [*simulation_module.CONTROLLERS, CordonLater.for_run])


def _sim() -> Simulation:
    return Simulation(load_scenario_text(SCENARIO, source="recipe"), record_events=True)


def test_a_controller_added_by_the_recipe_is_woken_on_time(with_throwaway: None) -> None:
    sim = _sim()
    ours = sim.controller(CordonLater)
    assert ours.due == {"n1": CORDON_AFTER, "n2": CORDON_AFTER}  # it watched the nodes' creation
    assert sim.next_wakeup() is None or sim.next_wakeup() <= CORDON_AFTER
    assert sim.run()
    assert ours.woken_at == [CORDON_AFTER]
    assert sim.clock.now() == CORDON_AFTER
    assert all(n.unschedulable for n in sim.apiserver.cluster.nodes.values())
    events = sim.sink.drain()
    jumps = [e for e in events if e["type"] == "clock"]
    assert jumps and jumps[-1]["to"] == CORDON_AFTER
    # What it changed reached the scheduler like any write (its cache sees cordoned nodes).
    assert all(ni.node.unschedulable for ni in sim.scheduler.cache.nodes.values())


def test_the_controller_survives_a_checkpoint(with_throwaway: None) -> None:
    sim = _sim()
    sim.step()  # web is scheduled; the cordons are still ahead
    copy = Simulation.restore(sim.checkpoint())
    assert copy.controller(CordonLater).due == sim.controller(CordonLater).due
    assert copy.run() and sim.run()
    assert copy.result(True) == sim.result(True)
    assert copy.controller(CordonLater).woken_at == [CORDON_AFTER]


def test_without_the_entry_no_run_has_it() -> None:
    sim = _sim()
    assert not any(isinstance(c, CordonLater) for c in sim.controllers)
    assert sim.run() and sim.clock.now() == 0.0
