"""`Simulation.view` for big clusters: queue heads with full counts, and the node and pod memos that
let a step re-describe only the nodes and pods it changed. Both must show exactly what the plain view shows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation
from scheduler_core.view.pods import PodViewMemo

GALLERY = Path(__file__).resolve().parents[3] / "playground" / "gallery"
SCENARIOS = ["priority-preemption.yaml", "noexecute-eviction.yaml", "preemption-pdb.yaml", "topology-spread.yaml"]


def _sim(name: str) -> Simulation:
    text = (GALLERY / name).read_text()
    return Simulation(load_scenario_text(text, source=name), seed=1, record_events=True)


def _walk(sim: Simulation, steps: int = 200) -> Any:
    for _ in range(steps):
        yield
        if sim.step(3600.0) in ("settled", "max-time"):
            yield
            return


@pytest.mark.parametrize("name", SCENARIOS)
def test_memoised_view_equals_the_plain_view_at_every_step(name: str) -> None:
    sim = _sim(name)
    memo: dict[str, Any] = {}
    pods = PodViewMemo()
    compared = 0
    for _ in _walk(sim):
        assert sim.view(node_memo=memo, pod_memo=pods) == sim.view()
        compared += 1
    assert compared > 2 and memo and pods.entries  # the memos were used across several steps


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("limit", [0, 1, 2])
def test_queue_heads_are_the_first_pods_in_pop_order_with_full_counts(name: str, limit: int) -> None:
    sim = _sim(name)
    for _ in _walk(sim):
        full, head = sim.view()["queues"], sim.view(queue_limit=limit)["queues"]
        for queue in ("activeQ", "backoffQ", "unschedulable"):
            assert head[queue] == full[queue][:limit]
            assert head["counts"][queue] == full["counts"][queue] == len(full[queue])
        assert head["summary"] == full["summary"]
