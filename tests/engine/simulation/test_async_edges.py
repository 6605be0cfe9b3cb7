"""Upstream's asynchronous edges on the virtual clock (docs/async-edges.md): the binding
cycle's pod-assigned update and preemption victims' Delete events reach the scheduler only
after its next Pop."""

from __future__ import annotations

from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

NODE = ("apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {kubernetes.io/hostname: n1}}\n"
        "status: {capacity: {cpu: '2', memory: 4Gi}}\n")


def _pod(name: str, cpu: str, priority: int = 0, node: str = "") -> str:
    spec = f"  nodeName: {node}\n" if node else ""
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n{spec}  priority: {priority}\n"
            f"  containers: [{{name: c, image: pause, resources: {{requests: {{cpu: '{cpu}'}}}}}}]\n")


BIND = "---\n".join([NODE, _pod("a", "1"), _pod("b", "4"), _pod("c", "1")])


def _failed(sim: Simulation, key: str) -> int:
    return sum(1 for e in sim.scheduler.cluster.events if e.reason == "FailedScheduling" and e.object == key)


def test_bind_update_arrives_while_next_pod_in_flight_v130_retries_it() -> None:
    # v1.30 (no queueing hints): a's AssignedPodAdd arrives after b was popped, so it counts as
    # a move request during b's cycle and b goes to backoff and is tried again.
    sim = Simulation(load_scenario_text(BIND), kubernetes_version="v1.30")
    assert sim.run()
    assert _failed(sim, "default/b") == 2


def test_bind_update_in_flight_event_skipped_by_hint_v135() -> None:
    # v1.35: the same event is one of b's in-flight events, but NodeResourcesFit's hint ignores
    # a pod being added, so b is not retried.
    sim = Simulation(load_scenario_text(BIND))
    assert sim.run()
    assert _failed(sim, "default/b") == 1


def test_bind_update_is_delivered_after_the_next_pop() -> None:
    sim = Simulation(load_scenario_text(BIND))
    s = sim.scheduler
    assert sim.step() == "cycle"  # a is scheduled and bound
    assert s.cluster.records["default/a"].status == "Bound"
    assert s.bind_updates.pending() and s.cache.is_assumed_pod(s.cluster.pods["default/a"])
    assert sim.step() == "cycle"  # b is popped: the update arrives, the cache confirms a
    assert not s.cache.is_assumed_pod(s.cluster.pods["default/a"])


PREEMPT = "---\n".join([NODE, _pod("v", "2", node="n1"), _pod("p", "2", priority=100), _pod("q", "1")])


def _cached_pods(sim: Simulation) -> list[str]:
    return [pi.pod.key for pi in sim.scheduler.cache.nodes["n1"].pods]


def test_victim_leaves_the_cache_when_its_delete_event_arrives() -> None:
    sim = Simulation(load_scenario_text(PREEMPT))
    assert sim.step() == "cycle"  # p preempts v: the API deletes v at once
    assert sim.scheduler.cluster.records["default/v"].status == "Deleted"
    assert _cached_pods(sim) == ["default/v"]  # ...but the scheduler still sees it
    assert sim.step() == "cycle"  # q popped; v's Delete event arrives during q's cycle
    assert "default/v" not in _cached_pods(sim)


def test_v130_preemption_is_synchronous() -> None:
    sim = Simulation(load_scenario_text(PREEMPT), kubernetes_version="v1.30")
    assert sim.step() == "cycle"
    assert sim.scheduler.cluster.records["default/v"].status == "Deleted"
    assert "default/v" not in _cached_pods(sim)
