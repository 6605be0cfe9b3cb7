"""LowNodeUtilization on an uneven 6-node cluster (node-6 joins after the pods were placed):
evictions follow the policy's thresholds, go through the eviction API (a PodDisruptionBudget
refuses what it does not allow), the ReplicaSet replaces the evicted pods and the scheduler
places the replacements on the new node."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import yaml

from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation
from tests.engine.descheduler.helpers import deschedule, evicted

SCENARIO = (Path(__file__).parent / "uneven-6-nodes.yaml").read_text()
PDB = """---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  minAvailable: 14
  selector: {matchLabels: {app: web}}
"""


def _policy_args(text: str) -> dict:
    doc = next(d for d in yaml.safe_load_all(text) if d and d.get("kind") == "DeschedulerPolicy")
    return doc["profiles"][0]["pluginConfig"][0]["args"]


def _run(text: str) -> Simulation:
    sim = Simulation(load_scenario_text(text, source="uneven.yaml"), record_events=True)
    assert sim.run()
    return sim


def _usage(sim: Simulation) -> dict[str, dict[str, float]]:
    """Each node's requested cpu, memory and pods as a percentage of allocatable, from the view."""
    out = {}
    for n in sim.view()["nodes"]:
        alloc, req = n["allocatable"], n["requested"]
        out[n["name"]] = {
            "cpu": Fraction(req["cpu"]) / Fraction(alloc["cpu"]) * 100,
            "memory": Fraction(req["memory"]) / Fraction(alloc["memory"]) * 100,
            "pods": Fraction(len(n["pods"])) / Fraction(alloc["pods"]) * 100,
        }
    return out


def test_evictions_follow_the_thresholds_and_replacements_land_on_the_new_node():
    sim = _run(SCENARIO)
    args = _policy_args(SCENARIO)
    low, high = args["thresholds"], args["targetThresholds"]
    before = _usage(sim)
    pods_before = {n["name"]: set(n["pods"]) for n in sim.view()["nodes"]}
    assert pods_before["node-6"] == set() and all(len(p) == 3 for n, p in pods_before.items() if n != "node-6")

    events = deschedule(sim)

    # The classification, recomputed from the view with the policy's thresholds.
    classified = next(e for e in events if e["type"] == "descheduler_nodes_classified")
    expect = {}
    for name, u in before.items():
        if all(u[r] <= low[r] for r in low):
            expect[name] = "underutilized"
        elif any(u[r] > high[r] for r in high):
            expect[name] = "overutilized"
        else:
            expect[name] = "appropriately utilized"
    assert {n["node"]: n["class"] for n in classified["nodes"]} == expect
    assert expect["node-6"] == "underutilized" and classified["outcome"] == "evicting"

    gone = evicted(events)
    # Every evicted pod left an overutilized node, and no node was drained below its target.
    per_node: dict[str, int] = {}
    for e in events:
        if e["type"] == "descheduler_evicted":
            assert expect[e["node"]] == "overutilized", e
            assert e["pod"] in pods_before[e["node"]]
            assert e["strategy"] == e["reason"] == "LowNodeUtilization"
            per_node[e["node"]] = per_node.get(e["node"], 0) + 1
    for name, k in per_node.items():
        # Each eviction happened while the node was still above its cpu target.
        assert before[name]["cpu"] - (k - 1) * 25 > high["cpu"]
    # The underutilized node's room up to its target (50% of 4 cpus) takes exactly two 1-cpu pods.
    room = Fraction(high["cpu"], 100) * 4000 - 0
    assert len(gone) == room // 1000 == 2
    # Upstream's event for each eviction.
    notes = [e for e in events if e["type"] == "k8s_event" and e["reason"] == "LowNodeUtilization"]
    assert [n["message"] for n in notes] == [f"pod evicted from {e['node']} node by sigs.k8s.io/descheduler"
                                             for e in events if e["type"] == "descheduler_evicted"]

    # The ReplicaSet replaced them; the scheduler put the replacements on node-6.
    finished = next(e for e in events if e["type"] == "descheduler_finished")
    assert len(finished["recreated"]) == 2 and set(finished["evicted"]) == set(gone)
    assert sim.run()
    after = {n["name"]: set(n["pods"]) for n in sim.view()["nodes"]}
    assert after["node-6"] == set(finished["recreated"])
    assert sum(len(p) for p in after.values()) == 15
    pods = {p["key"]: p for p in sim.view()["pods"]}
    assert all(pods[k]["status"] == "Deleted" and pods[k]["deletedBy"] == "Evicted" for k in gone)


def test_a_pdb_refuses_the_evictions_it_does_not_allow():
    sim = _run(SCENARIO + PDB)
    events = deschedule(sim)
    # minAvailable 14 of 15 healthy pods: one disruption allowed, the rest refused by the API.
    assert len(evicted(events)) == 1
    refused = [e for e in events if e["type"] == "descheduler_eviction_failed"]
    assert refused and all(e["error"] == "Cannot evict pod as it would violate the pod's disruption budget."
                           for e in refused)
    assert sim.run()
    # The replacement went to node-6 (25% cpu): above the 20% threshold, nothing is underutilized.
    again = deschedule(sim)
    assert evicted(again) == []
    classified = next(e for e in again if e["type"] == "descheduler_nodes_classified")
    assert classified["outcome"] == ("No node is underutilized, nothing to do here, "
                                     "you might tune your thresholds further")


def test_the_total_limit_caps_a_pass():
    text = SCENARIO.replace("kind: DeschedulerPolicy\n", "kind: DeschedulerPolicy\nmaxNoOfPodsToEvictTotal: 1\n")
    sim = _run(text)
    assert len(evicted(deschedule(sim))) == 1


def test_the_interval_runs_passes_on_the_virtual_clock_and_the_run_settles():
    text = SCENARIO.replace("kind: DeschedulerPolicy\n", "kind: DeschedulerPolicy\ndeschedulingInterval: 1m\n")
    sim = _run(text)
    passes = [e for e in sim.sink.events if e["type"] == "descheduler_started"]
    assert [p["time"] for p in passes][:2] == [60.0, 120.0]
    assert all(p["trigger"] == "interval" for p in passes)
    assert len([e for e in sim.sink.events if e["type"] == "descheduler_evicted"]) == 2
    assert len(sim.view()["nodes"][5]["pods"]) == 2  # node-6


def test_the_same_run_evicts_the_same_pods():
    a, b = _run(SCENARIO), _run(SCENARIO)
    assert evicted(deschedule(a)) == evicted(deschedule(b))


def test_a_pass_run_by_the_action_restarts_the_interval():
    text = SCENARIO.replace("kind: DeschedulerPolicy\n", "kind: DeschedulerPolicy\ndeschedulingInterval: 1m\n")
    sim = Simulation(load_scenario_text(text, source="uneven.yaml"), record_events=True)
    while sim.clock.now() < 10 or "node-6" not in sim.scheduler.cluster.nodes:
        sim.step()
    now = sim.clock.now()  # the clock has jumped to the interval's first pass, not run yet
    assert now == 60.0
    assert len(evicted(deschedule(sim))) == 2  # by hand
    assert sim.view()["descheduler"]["next"] == now + 60
    assert sim.run()
    passes = [e for e in sim.sink.events if e["type"] == "descheduler_started"]
    assert [(p["time"], p["trigger"]) for p in passes][:2] == [(60.0, "manual"), (120.0, "interval")]
    assert len([e for e in sim.sink.events if e["type"] == "descheduler_evicted"]) == 2


def test_a_restored_checkpoint_runs_the_same_passes():
    text = SCENARIO.replace("kind: DeschedulerPolicy\n", "kind: DeschedulerPolicy\ndeschedulingInterval: 1m\n")
    whole = _run(text)
    sim = Simulation(load_scenario_text(text, source="uneven.yaml"), record_events=True)
    while sim.clock.now() < 60:
        sim.step()
    restored = Simulation.restore(sim.checkpoint())
    restored.sink.events.clear()
    assert restored.run()

    def passes(events: list[dict]) -> list[tuple]:
        return [(e["time"], e["type"], e.get("pod")) for e in events if e["type"].startswith("descheduler_")]

    assert passes(restored.sink.events) == passes(whole.sink.events)


def test_a_timeline_action_runs_a_pass_at_its_time():
    text = SCENARIO.replace("""      capacity: {cpu: '4', memory: 8Gi, pods: '110'}
---
apiVersion: descheduler""", """      capacity: {cpu: '4', memory: 8Gi, pods: '110'}
- {at: 30, action: runDescheduler}
---
apiVersion: descheduler""")
    sim = _run(text)
    evictions = [e for e in sim.sink.events if e["type"] == "descheduler_evicted"]
    assert [(e["time"], e["trigger"]) for e in evictions] == [(30.0, "timeline"), (30.0, "timeline")]


def test_a_timeline_action_needs_a_policy():
    import pytest

    from scheduler_core.api.errors import ScenarioError

    text = SCENARIO.split("---\napiVersion: descheduler")[0].replace(
        "      capacity: {cpu: '4', memory: 8Gi, pods: '110'}\n",
        "      capacity: {cpu: '4', memory: 8Gi, pods: '110'}\n- {at: 30, action: runDescheduler}\n")
    with pytest.raises(ScenarioError, match="needs a DeschedulerPolicy"):
        load_scenario_text(text, source="uneven.yaml")
