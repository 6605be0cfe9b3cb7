"""A checkpoint restored in another process describes its nodes as a fresh engine would.

NodeInfo generations come from a counter of the process (upstream's nextGeneration). A web
frame's view reuses a node's described entry while the node's generation is the one it was
described at (`Simulation.view`'s node memo). A checkpoint carries the generations of the
process that took it; a worker process restoring it counts from wherever its own counter is,
and could give a later change of a node exactly the number the checkpoint carried: the node
then looked unchanged, and a descheduler's eviction left the evicted pod on its node in the
stored frames ("web-4 · deleting", counted in the node's totals; issue 39). Restored NodeInfos
now take generations of the restoring process, so a later change always takes a new one.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from scheduler_core.descheduler import schedule as desched_schedule
from scheduler_core.framework import types as node_types
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation
from scheduler_core.view.pods import PodViewMemo

SCENARIO = Path(__file__).resolve().parents[3] / "playground" / "gallery" / "descheduler-rebalance.yaml"


def _node(view: dict, name: str) -> dict:
    return next(n for n in view["nodes"] if n["name"] == name)


def test_a_node_changed_after_a_restore_elsewhere_is_described_again() -> None:
    saved = node_types._generation
    try:
        node_types._generation = itertools.count(100_000)  # the process that starts the run
        sim = Simulation(load_scenario_text(SCENARIO.read_text(), source="x"), seed=1, record_events=True)
        blob = sim.checkpoint()
        carried = sim.scheduler.cache.nodes["node-2"].generation
        checked = 0
        # Worker processes whose counters stand anywhere just below the carried generation: one
        # of them hands exactly that number to node-2's change (the eviction of web-4).
        for below in range(60):
            node_types._generation = itertools.count(carried - below)
            worker = Simulation.restore(blob)
            nodes: dict = {}
            pods = PodViewMemo()
            worker.view(node_memo=nodes, pod_memo=pods, events=False)  # the rebuilt engine's first view
            for _ in range(40):  # to t=30 s: node-6 joins at t=10 s
                result = worker.step(30.0)
                worker.view(node_memo=nodes, pod_memo=pods, events=False)
                if result in ("settled", "max-time"):
                    break
            desched_schedule.run_action(worker, {"action": "runDescheduler"})
            kept = worker.view(node_memo=nodes, pod_memo=pods, events=False)
            whole = worker.view(events=False)
            assert "default/web-4" not in _node(whole, "node-2")["pods"]  # it was evicted
            assert kept["nodes"] == whole["nodes"], below
            assert kept["pods"] == whole["pods"], below
            checked += 1
        assert checked == 60
    finally:
        node_types._generation = saved


def test_restored_generations_are_new_numbers_of_this_process() -> None:
    sim = Simulation(load_scenario_text(SCENARIO.read_text(), source="x"), seed=1, record_events=True)
    before = {name: ni.generation for name, ni in sim.scheduler.cache.nodes.items()}
    restored = Simulation.restore(sim.checkpoint())
    after = {name: ni.generation for name, ni in restored.scheduler.cache.nodes.items()}
    assert set(after) == set(before)
    assert min(after.values()) > max(before.values())  # handed out after every one it carried
    assert len(set(after.values())) == len(after)
    # Everything else of a NodeInfo comes back as it was.
    for name, ni in restored.scheduler.cache.nodes.items():
        old = sim.scheduler.cache.nodes[name]
        assert [p.pod.key for p in ni.pods] == [p.pod.key for p in old.pods]
        assert ni.requested.to_json() == old.requested.to_json() and ni.allocatable.to_json() == old.allocatable.to_json()
        assert ni.name == old.name and ni.node == old.node
