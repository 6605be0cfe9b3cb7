"""The run's scheduler metrics, recomputed from the event stream, against the engine's own state
and against the events themselves (tests/engine/metrics)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from scheduler_core.loader import load_scenario_file, load_scenario_text
from scheduler_core.metrics import PluginWallClock, RunMetrics, exposition
from scheduler_core.simulation import Simulation

CASES = Path(__file__).resolve().parents[3].parent / "shared" / "conformance" / "cases"


def _run(scenario: Any, **kw: Any) -> tuple[Simulation, RunMetrics, list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []
    metrics = RunMetrics()

    def writer(ev: dict[str, Any]) -> None:
        events.append(ev)
        metrics.feed(ev)

    sim = Simulation(scenario, record_events=True, event_writer=writer, **kw)
    return sim, metrics, events


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


@pytest.mark.parametrize("case", ["v18-priority-queue-order", "v19-preemption-basic", "v07-taint-toleration",
                                  "v22-preemption-several", "v15-spread-do-not-schedule", "v26-scheduling-gates"])
def test_pending_pods_follow_the_queue_at_every_step(case: str) -> None:
    sim, metrics, events = _run(load_scenario_file(str(CASES / f"{case}.yaml")))
    for _ in range(500):
        result = sim.step(600.0)
        counts = sim.scheduler.queue.pending_pods(limit=0)["counts"]
        assert metrics.pending["active"] == counts["activeQ"]
        assert metrics.pending["backoff"] == counts["backoffQ"]
        assert metrics.pending["unschedulable"] + metrics.pending["gated"] == counts["unschedulable"]
        if result in ("settled", "max-time"):
            break
    # Attempts by result match the events that end them.
    bound_after_cycle = {e["pod"] for e in events if e["type"] == "cycle_started"}
    scheduled = sum(1 for e in events if e["type"] == "bound" and e["pod"] in bound_after_cycle)
    failed = sum(1 for e in events if e["type"] == "k8s_event" and e["reason"] == "FailedScheduling")
    totals: dict[str, int] = {}
    for (result, _), n in metrics.attempts_total.items():
        totals[result] = totals.get(result, 0) + n
    assert totals.get("scheduled", 0) == scheduled
    assert totals.get("unschedulable", 0) + totals.get("error", 0) == failed
    assert sum(metrics.attempt_duration.merged()[0]) == scheduled + failed
    assert metrics.pod_attempts.merged()[2] == scheduled


def test_preemption_counts_attempts_and_the_chosen_victims() -> None:
    sim, metrics, events = _run(load_scenario_file(str(CASES / "v22-preemption-several.yaml")))
    sim.run(3600.0)
    attempts = sum(1 for e in events if e["type"] == "postfilter" and e["plugin"] == "DefaultPreemption")
    assert attempts > 0
    assert metrics.preemption_attempts == attempts
    chosen = [e for e in events if e["type"] == "preemption" and e.get("chosen")]
    victims = sum(len(next(c["victims"] for c in e["candidates"] if c["node"] == e["chosen"])) for e in chosen)
    counts, total, n = metrics.preemption_victims.merged()
    assert (n, total) == (len(chosen), float(victims))
    assert victims == sum(1 for e in events if e["type"] == "victim_deleted")


NODES = "".join(
    f"---\napiVersion: v1\nkind: Node\nmetadata: {{name: n{i}, labels: {{kubernetes.io/hostname: n{i}}}}}\n"
    f"spec: {{taints: [{{key: k, value: v, effect: NoSchedule}}]}}\n"
    "status: {capacity: {cpu: '2', memory: 4Gi, pods: '10'}}\n" for i in range(3))
TAINTED = NODES + "".join(
    f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}}}\nspec:\n"
    "  containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]\n" for i in range(2))


def test_unschedulable_pods_by_plugin_and_plugin_evaluations() -> None:
    sim, metrics, events = _run(load_scenario_text(TAINTED))
    sim.run(3600.0)
    profile = "default-scheduler"
    # Both pods wait in unschedulablePods, rejected by TaintToleration on every node.
    assert metrics.unschedulable == {("TaintToleration", profile): 2}
    assert metrics.pending["unschedulable"] == 2
    assert metrics.attempts_total == {("unschedulable", profile): 2}
    # TaintToleration filtered every node of both attempts; NodeResourcesFit (after it) never ran.
    assert metrics.plugin_evaluations[("TaintToleration", "Filter", profile)] == 6
    assert ("NodeResourcesFit", "Filter", profile) not in metrics.plugin_evaluations
    text = exposition(metrics)
    samples = _samples(text)
    assert samples[("scheduler_unschedulable_pods",
                    (("plugin", "TaintToleration"), ("profile", profile)))] == 2.0
    assert samples[("scheduler_schedule_attempts_total",
                    (("profile", profile), ("result", "unschedulable")))] == 2.0
    assert samples[("scheduler_pending_pods", (("queue", "unschedulable"),))] == 2.0


def test_a_pop_lowers_the_unschedulable_gauge_as_upstream() -> None:
    m = RunMetrics()
    base = {"time": 0.0, "seq": 0}
    for ev in (
        {"type": "queue_move", "pod": "d/p", "from": "none", "to": "activeQ", "reason": "PodAdd", "event": None},
        {"type": "queue_move", "pod": "d/p", "from": "activeQ", "to": "none", "reason": "Pop", "event": None},
        {"type": "cycle_started", "cycle": 1, "pod": "d/p", "profile": "s", "attempts": 1},
        {"type": "prefilter", "cycle": 1, "pod": "d/p", "results": [
            {"plugin": "A", "code": "Skip"}, {"plugin": "B", "code": "UnschedulableAndUnresolvable"}]},
        {"type": "queue_move", "pod": "d/p", "from": "none", "to": "unschedulable",
         "reason": "ScheduleAttemptFailure", "event": None},
        {"type": "k8s_event", "reason": "FailedScheduling", "object": "d/p", "message": "0/1 nodes"},
    ):
        m.feed({**base, **ev})
    assert m.unschedulable == {("B", "s"): 1}
    assert m.plugin_evaluations == {("B", "PreFilter", "s"): 1}
    assert m.attempts_total == {("unschedulable", "s"): 1}
    m.feed({**base, "time": 5.0, "type": "queue_move", "pod": "d/p", "from": "unschedulable", "to": "backoffQ",
            "reason": "NodeAdd", "event": "NodeAdd"})
    assert m.unschedulable == {("B", "s"): 1}  # still counted while it waits
    m.feed({**base, "time": 6.0, "type": "queue_move", "pod": "d/p", "from": "backoffQ", "to": "none",
            "reason": "PopFromBackoffQ", "event": None})
    assert m.unschedulable == {("B", "s"): 0}
    assert m.incoming == {("active", "PodAdd"): 1, ("unschedulable", "ScheduleAttemptFailure"): 1,
                          ("backoff", "NodeAdd"): 1, ("active", "PopFromBackoffQ"): 1}
    m.feed({**base, "time": 6.0, "type": "cycle_started", "cycle": 2, "pod": "d/p", "profile": "s", "attempts": 2})
    m.feed({**base, "time": 6.5, "type": "bound", "pod": "d/p", "node": "n"})
    # SLI: from first entering activeQ (t=0) to bound (t=6.5), labelled by attempts.
    assert m.sli_duration.series[("2",)][1:] == [6.5, 1]
    assert m.attempt_duration.series[("scheduled", "s")][1:] == [0.5, 1]


def test_metrics_are_deterministic_and_wall_time_stays_apart() -> None:
    text1 = exposition(_settled("v19-preemption-basic"))
    text2 = exposition(_settled("v19-preemption-basic"))
    assert text1 == text2
    assert "playground_" not in text1
    sim, metrics, _ = _run(load_scenario_file(str(CASES / "v19-preemption-basic.yaml")))
    wall = PluginWallClock()
    wall.instrument(sim.scheduler.profiles)
    sim.run(3600.0)
    samples = _samples(exposition(metrics, wall))
    key = ("playground_plugin_execution_calls_total",
           (("extension_point", "PostFilter"), ("plugin", "DefaultPreemption"), ("profile", "default-scheduler")))
    assert samples[key] == metrics.preemption_attempts == 1


def _settled(case: str) -> RunMetrics:
    sim, metrics, _ = _run(load_scenario_file(str(CASES / f"{case}.yaml")))
    sim.run(3600.0)
    return metrics
