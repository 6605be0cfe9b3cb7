"""scaleDeployment in the Timeline document: validated by the loader, applied at its time by
the same controller step as the live action, and deterministic (a replay names the same pods)."""

from __future__ import annotations

import json

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader import DEFAULT_LIMITS, Limits, load_scenario_text
from scheduler_core.simulation import Simulation
from workloads.test_scale_deployment import SCENARIO

TIMELINE = """
---
apiVersion: playground.kube-scheduler.dev/v1
kind: Timeline
actions:
- {{at: 10, action: scaleDeployment, name: web, namespace: shop, replicas: {up}}}
- {{at: 20, action: scaleDeployment, name: web, namespace: shop, replicas: {down}}}
"""


def _run(text: str, seed: int = 1) -> tuple[Simulation, list[dict]]:
    sim = Simulation(load_scenario_text(text), seed=seed, record_events=True)
    sim.run(100)
    return sim, sim.sink.events


def _web(sim: Simulation) -> list[str]:
    return sorted(k for k, p in sim.scheduler.cluster.pods.items() if p.labels.get("app") == "web")


def test_timeline_scale_up_then_down_runs_at_its_times():
    sc = load_scenario_text(SCENARIO + TIMELINE.format(up=5, down=3))
    assert [(a.time, a.action, a.params) for a in sc.timeline] == [
        (10.0, "scaleDeployment", {"name": "web", "namespace": "shop", "replicas": 5}),
        (20.0, "scaleDeployment", {"name": "web", "namespace": "shop", "replicas": 3}),
    ]
    sim, events = _run(SCENARIO + TIMELINE.format(up=5, down=3))
    actions = [(e["time"], e["action"]) for e in events if e["type"] == "cluster_action"]
    assert actions[0] == (10.0, "scaleDeployment") and actions[1:4] == [(10.0, "addPod")] * 3
    assert (20.0, "scaleDeployment") in actions
    assert len(_web(sim)) == 3
    assert all(p.node_name for k, p in sim.scheduler.cluster.pods.items() if k in _web(sim))


def test_timeline_scale_is_deterministic_and_matches_a_replay():
    text = SCENARIO + TIMELINE.format(up=6, down=4)
    first, events = _run(text)
    again, events_again = _run(text)
    assert _web(first) == _web(again)
    assert json.dumps(events, sort_keys=True, default=str) == json.dumps(events_again, sort_keys=True, default=str)
    # A checkpoint taken before the scale and resumed reaches the same pods.
    sim = Simulation(load_scenario_text(text), seed=1)
    sim.run(5)
    resumed = Simulation.restore(sim.checkpoint())
    resumed.run(100)
    assert _web(resumed) == _web(first)


def test_timeline_scale_pods_do_not_collide_with_live_scale_pods():
    sim, _ = _run(SCENARIO + TIMELINE.format(up=4, down=4))
    before = set(_web(sim))
    act = sim.apply_manifest_action({"action": "scaleDeployment", "name": "web", "namespace": "shop",
                                     "replicas": 6}, index=0)
    assert len(act.params["created"]) == 2 and not before & set(act.params["created"])
    assert len(_web(sim)) == 6


@pytest.mark.parametrize(("action", "field", "reason"), [
    ("{at: 1, action: scaleDeployment, name: nope, replicas: 2}", "actions[0].name",
     'Deployment "default/nope" does not exist in the scenario'),
    ("{at: 1, action: scaleDeployment, name: web, namespace: shop, replicas: -1}", "actions[0].replicas",
     "must be greater than or equal to 0"),
    ("{at: 1, action: scaleDeployment, name: web, namespace: shop}", "actions[0].replicas", "Required value"),
    ("{at: 1, action: scaleDeployment, name: web, namespace: shop, replica: 2}", "actions[0].replica",
     'did you mean "replicas"?'),
])
def test_timeline_scale_is_validated(action: str, field: str, reason: str):
    text = SCENARIO + "---\napiVersion: playground.kube-scheduler.dev/v1\nkind: Timeline\nactions:\n- " + action
    with pytest.raises(ScenarioError) as info:
        load_scenario_text(text)
    assert info.value.field == field and reason in info.value.reason and info.value.kind == "Timeline"


def test_timeline_scale_counts_against_the_pod_limit():
    text = SCENARIO + TIMELINE.format(up=50, down=1)
    assert load_scenario_text(text, limits=DEFAULT_LIMITS).timeline
    with pytest.raises(ScenarioError, match="too many pods"):
        load_scenario_text(text, limits=Limits(max_pods=40))


def test_set_score_weight_in_a_timeline_loads():
    """(It used to trip the timeline's name replay, which expected every other action to name a node.)"""
    text = SCENARIO + ("---\napiVersion: playground.kube-scheduler.dev/v1\nkind: Timeline\nactions:\n"
                       "- {at: 1, action: setScoreWeight, plugin: NodeAffinity, weight: 3}\n")
    assert load_scenario_text(text).timeline[0].params["weight"] == 3
