"""status.startTime on running pods: read as a kubelet would have set it, refused where no
kubelet would, and what preemption's start-time criterion compares."""

from __future__ import annotations

from pathlib import Path

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

GALLERY = Path(__file__).resolve().parents[2] / "playground" / "gallery"
NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: '4', pods: '110'}}\n"


def _pod(name: str, status: str, node: str = "n1") -> str:
    bound = f"  nodeName: {node}\n" if node else ""
    return (f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n{bound}"
            f"  containers: [{{name: c}}]\nstatus: {status}\n")


def test_numbers_are_virtual_seconds_and_rfc3339_counts_back_from_the_newest() -> None:
    sc = load_scenario_text(NODE + _pod("a", "{startTime: -60}") + _pod("b", "{startTime: '2025-03-14T09:00:00Z'}")
                            + _pod("c", "{startTime: '2025-03-14T10:00:00Z', phase: Running}") + _pod("d", "{}"),
                            source="t")
    times = {p.name: p.start_time for p in sc.pods}
    assert times == {"a": -60.0, "b": -3600.0, "c": 0.0, "d": None}
    assert not any("startTime" in str(w) for w in sc.warnings)


@pytest.mark.parametrize(("pod", "why"), [
    (_pod("p", "{startTime: -5}", node=""), "Forbidden: only a pod that runs on a node"),
    (_pod("p", "{startTime: yesterday}"), 'Invalid value: "yesterday"'),
    (_pod("p", "{startTime: '2025-03-14T09:00:00'}"), "needs a zone"),
])
def test_bad_start_times_are_refused_with_the_field(pod: str, why: str) -> None:
    with pytest.raises(ScenarioError) as error:
        load_scenario_text(NODE + pod, source="s.yaml")
    assert "status.startTime" in str(error.value) and why in str(error.value)


def _chosen(text: str, seed: int) -> dict:
    sim = Simulation(load_scenario_text(text, source="g"), seed=seed, record_events=True)
    sim.run(3600.0)
    return next(e for e in sim.sink.events if e["type"] == "preemption")


def test_in_the_gallery_scenario_real_start_times_decide() -> None:
    """The scenario's start times pick node-a whatever the seed; without them the order in which
    the candidates are compared decides, and that order follows the seed."""
    text = (GALLERY / "preemption-start-time.yaml").read_text()
    bare = "\n".join(line for line in text.splitlines() if not line.startswith("status: {startTime"))
    with_times = [_chosen(text, seed) for seed in range(4)]
    without = [_chosen(bare, seed) for seed in range(4)]
    assert {e["why"] for e in with_times + without} == {"latest start time of highest-priority victims"}
    assert {e["chosen"] for e in with_times} == {"node-a"}
    assert {e["chosen"] for e in without} == {"node-a", "node-b"}


def test_each_preemption_criterion_decides_in_some_gallery_scenario() -> None:
    """Fewest PDB violations, lowest highest-priority victim, smallest priority sum, fewest victims
    and latest start time each pick the node at least once in the gallery."""
    from scheduler_core.framework.preemption.preemption import DEFAULT_CRITERIA

    decided = set()
    for path in sorted(GALLERY.glob("*.yaml")):
        sim = Simulation(load_scenario_text(path.read_text(), source=path.name), seed=0, record_events=True)
        sim.run(3600.0)
        decided |= {e["why"] for e in sim.sink.events if e["type"] == "preemption" and e.get("chosen")}
    assert set(DEFAULT_CRITERIA) <= decided, set(DEFAULT_CRITERIA) - decided
