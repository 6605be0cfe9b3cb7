"""A binding the API server refuses (the failBind action): the binding cycle runs Unreserve,
the cache forgets the assumed pod, FailedScheduling carries the Bind plugin's error in
upstream's words, and the pod is retried after its error backoff. Each pod's cache state
(assumed -> binding finished -> added, or forgotten) is in the view."""

from __future__ import annotations

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import ActionError, Simulation

SCENARIO = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: '4', pods: '110'}}
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: c, resources: {requests: {cpu: '1'}}}]
---
apiVersion: playground.kube-scheduler.dev/v1
kind: Timeline
actions:
- {at: 0, action: failBind, pod: web}
"""
TIMEOUT = "Timeout: request did not complete within requested timeout - context deadline exceeded"


def _sim(text: str = SCENARIO) -> Simulation:
    return Simulation(load_scenario_text(text, source="t"), seed=0, record_events=True)


def _cache(sim: Simulation, key: str = "default/web") -> str | None:
    return next(p["cache"] for p in sim.view()["pods"] if p["key"] == key)


def test_a_refused_binding_unreserves_forgets_and_retries_after_backoff() -> None:
    sim = _sim()
    assert sim.step() == "cycle"
    assert _cache(sim) == "forgotten"
    events = sim.sink.drain()
    kinds = [(e["type"], e.get("point")) for e in events if e["type"] in ("assumed", "extension_point", "forgotten")]
    assert kinds == [("assumed", None), ("extension_point", "Reserve"), ("extension_point", "Permit"),
                     ("extension_point", "PreBind"), ("extension_point", "Bind"), ("extension_point", "Unreserve"),
                     ("forgotten", None)]
    bind = next(e for e in events if e.get("point") == "Bind")
    assert bind["code"] == "Error" and bind["plugin"] == "DefaultBinder"
    failed = [e for e in events if e["type"] == "k8s_event"]
    assert [(e["reason"], e["message"]) for e in failed] == [
        ("FailedScheduling", f'running Bind plugin "DefaultBinder": {TIMEOUT}')]
    forgotten = next(e for e in events if e["type"] == "forgotten")
    assert forgotten["node"] == "n1" and forgotten["why"].endswith(TIMEOUT)
    requeue = [e for e in events if e["type"] == "queue_move" and e["reason"] == "ScheduleAttemptFailure"]
    assert [(e["from"], e["to"]) for e in requeue] == [("none", "backoffQ")]  # an error: backoff, no hints
    assert sim.run(600.0)
    after = sim.sink.drain()
    # 1 s of error backoff, released by the flush of the next whole-second window.
    assert [e["time"] for e in after if e["type"] == "bound"] == [2.0]
    assert [e["message"] for e in after if e["type"] == "k8s_event"] == ["Successfully assigned default/web to n1"]


def test_the_cache_states_of_a_binding_pod() -> None:
    sim = _sim(SCENARIO.split("---\napiVersion: playground")[0])
    assert _cache(sim) is None
    sim.step()
    assert _cache(sim) == "binding finished"  # bound; the informer's Add not yet delivered
    sim.run(600.0)
    assert _cache(sim) == "added"


def test_fail_bind_is_refused_for_a_missing_or_bound_pod() -> None:
    with pytest.raises(ScenarioError, match=r'actions\[0\]\.pod.*pod "default/nope" does not exist at t=0'):
        load_scenario_text(SCENARIO.replace("pod: web}", "pod: nope}"), source="t")
    sim = _sim()
    sim.run(600.0)
    with pytest.raises(ActionError, match='already bound to node "n1"'):
        sim.apply_manifest_action({"action": "failBind", "pod": "web"})
    with pytest.raises(ScenarioError, match="message.*Too long"):
        sim.apply_manifest_action({"action": "failBind", "pod": "web", "message": "x" * 2000})


def test_a_custom_message_is_the_api_error() -> None:
    sim = _sim(SCENARIO.replace("pod: web}", "pod: web, message: 'etcdserver: request timed out'}"))
    sim.step()
    assert [e["message"] for e in sim.sink.events if e["type"] == "k8s_event"] == [
        'running Bind plugin "DefaultBinder": etcdserver: request timed out']
