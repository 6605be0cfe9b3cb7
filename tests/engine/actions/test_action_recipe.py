"""docs/architecture.md's recipe for a cluster action, followed for a throwaway kind: a spec
module (here a class in the test) registered in the registry is parsed and checked by the
Timeline loader, applied live and on time by the simulation, and refused by the one names rule
on a missing node, with nothing else edited."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from scheduler_core.actions import registry
from scheduler_core.actions.spec import NodeActionSpec, ParseContext
from scheduler_core.api.errors import ActionError, ScenarioError
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation
from tests.engine.descheduler.helpers import node, text

TIMELINE = "playground.kube-scheduler.dev/v1"


class NoteNode(NodeActionSpec):
    """Step 1: one spec (fields, parse, apply; the node it names comes with NodeActionSpec)."""

    name = "noteNode"
    fields = ("node", "note")

    def parse(self, ctx: ParseContext, m: dict[str, Any]) -> dict[str, Any]:
        return {**self.parse_node(ctx, m), "note": ctx.string(m, "note", required="the note")}

    def apply(self, sim: Any, params: dict[str, Any]) -> None:
        registry.spec_of("setNodeLabels").apply(sim, {"node": params["node"], "labels": {"note": params["note"]}})


@pytest.fixture
def note_node() -> Iterator[None]:
    registry.register(NoteNode())  # step 2: in the registry (a module lists it in _MODULES)
    yield
    registry.unregister("noteNode")


def _timeline(*actions: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": TIMELINE, "kind": "Timeline", "actions": list(actions)}


def test_a_registered_kind_loads_runs_and_is_checked(note_node: None) -> None:
    docs = [node("n1"), _timeline({"at": 5, "action": "noteNode", "node": "n1", "note": "hi"})]
    sim = Simulation(load_scenario_text(text(docs), source="recipe.yaml"), record_events=True)
    sim.run()
    assert sim.scheduler.cluster.nodes["n1"].labels["note"] == "hi"
    assert [e["time"] for e in sim.sink.events if e["type"] == "cluster_action"] == [5.0]
    sim.apply_manifest_action({"action": "noteNode", "node": "n1", "note": "live"})
    assert sim.scheduler.cluster.nodes["n1"].labels["note"] == "live"
    with pytest.raises(ActionError, match='node "n2" does not exist'):
        sim.apply_manifest_action({"action": "noteNode", "node": "n2", "note": "x"})
    with pytest.raises(ScenarioError) as error:
        load_scenario_text(text([node("n1"), _timeline({"at": 1, "action": "noteNode", "node": "n2",
                                                        "note": "x"})]), source="recipe.yaml")
    assert error.value.field == "actions[0].node"
    with pytest.raises(ScenarioError) as error:
        load_scenario_text(text([node("n1"), _timeline({"at": 1, "action": "noteNode", "node": "n1",
                                                        "colour": "x"})]), source="recipe.yaml")
    assert error.value.field == "actions[0].colour"


def test_an_unregistered_kind_is_refused_by_the_loader() -> None:
    with pytest.raises(ScenarioError, match='Unsupported value: "noteNode"'):
        load_scenario_text(text([node("n1"), _timeline({"at": 1, "action": "noteNode", "node": "n1"})]),
                           source="recipe.yaml")
