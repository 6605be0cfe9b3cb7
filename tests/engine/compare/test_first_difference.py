"""The first decision where two runs part ways (scheduler_core.questions.compare), and what it is blamed on.

Real engine runs of gallery scenarios where the point is visible: the gang lesson with its gates
on and off binds the same pods to the same nodes two minutes apart (a difference final placements
hide); the GPU lesson under v1.35 and v1.30 places pods on other nodes because DynamicResources
runs only in v1.35. A hand-built pair of event streams checks the attribution reads the runs'
profiles, not a lesson's name, and identical runs have no difference at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scheduler_core.featuregate.features import FeatureGates, gates_for
from scheduler_core.loader import load_scenario_text
from scheduler_core.questions.compare import compare_runs, first_difference, format_time, record_run
from scheduler_core.simulation import Simulation

GALLERY = Path(__file__).resolve().parents[3] / "playground" / "gallery"


def _run(name: str, version: str, gates: str | None = None) -> tuple[Any, FeatureGates]:
    text = (GALLERY / name).read_text()
    sim = Simulation(load_scenario_text(text, source=name), seed=1, record_events=True,
                     kubernetes_version=version, feature_gates=gates)
    for _ in range(10_000):
        if sim.step() in ("settled", "max-time"):
            break
    return record_run(sim.sink.events), sim.feature_gates


def test_identical_runs_have_no_difference() -> None:
    a, ga = _run("dra-gpus.yaml", "v1.35")
    b, gb = _run("dra-gpus.yaml", "v1.35")
    assert compare_runs(a, b, (ga, gb)) == []
    assert first_difference(a, b, (ga, gb)) is None


def test_same_node_at_another_time_is_the_first_difference() -> None:
    on, g_on = _run("gang-scheduling.yaml", "v1.35", "GenericWorkload=true,GangScheduling=true")
    off, g_off = _run("gang-scheduling.yaml", "v1.35")
    first = first_difference(on, off, (g_on, g_off), ("gates on", "gates off"))
    assert first is not None
    assert (first.pod, first.cycle, first.time, first.node) == ("default/worker-1", 1, 0.0, "node-1")
    assert "binding time" in first.aspects and "node" not in first.aspects
    assert first.a is not None and first.b is not None
    assert (first.a.bound_at, first.b.bound_at) == (120.0, 0.0)
    assert first.a.waited == "GangScheduling" and first.b.waited == ""
    assert "t=120 s" in first.summary and "t=0 s" in first.summary
    # Blamed on the plugin only the gates-on profile has, and the gate that adds it.
    assert first.causes[0].kind == "plugin" and first.causes[0].name == "GangScheduling"
    assert "feature gate GangScheduling" in first.causes[0].why
    # The fourth worker binds at t=120 s on node-4 either way: not a difference.
    assert "default/worker-4" not in {d.pod for d in compare_runs(on, off, (g_on, g_off))}


def test_another_node_blamed_on_the_plugin_one_version_lacks_not_async_preemption() -> None:
    new, g_new = _run("dra-gpus.yaml", "v1.35")
    old, g_old = _run("dra-gpus.yaml", "v1.30")
    diffs = compare_runs(new, old, (g_new, g_old), ("v1.35", "v1.30"))
    first = diffs[0]
    assert (first.pod, first.cycle, first.node) == ("default/finetune", 1, "gpu-b")
    assert first.aspects == ["node"]
    assert first.b is not None and first.b.bound_node == "cpu-c"
    assert first.causes[0].kind == "plugin" and first.causes[0].name == "DynamicResources"
    assert "DynamicResourceAllocation" in first.causes[0].why
    assert new.victims == old.victims == 0
    assert all(c.name != "SchedulerAsyncPreemption" for d in diffs for c in d.causes)


def _events(profile_filters: list[str], rejecting: str | None, node: str) -> list[dict[str, Any]]:
    """A one-pod, one-cycle run: `rejecting` (if any) rejects node-x; the pod binds to `node`."""
    verdicts = {p: {"code": "Success"} for p in profile_filters}
    rejected = dict(verdicts)
    if rejecting:
        rejected[rejecting] = {"code": "Unschedulable", "reasons": ["no"]}
        # The plugins after a rejection are not run on that node: they reject nothing.
        rejected["NodeName"] = {"code": "NotEvaluated"}
    return [
        {"seq": 1, "time": 0.0, "type": "run_started", "profiles": {"p": {"filter": profile_filters}}},
        {"seq": 2, "time": 0.0, "type": "cycle_started", "cycle": 1, "pod": "ns/a"},
        {"seq": 3, "time": 0.0, "type": "filter_verdicts", "cycle": 1, "pod": "ns/a", "nodes": ["node-x", "node-y"],
         "outcome": [0, 1], "verdicts": [rejected, verdicts]},
        {"seq": 4, "time": 0.0, "type": "selected", "cycle": 1, "pod": "ns/a", "node": node, "ties": [node]},
        {"seq": 5, "time": 0.0, "type": "bound", "pod": "ns/a", "node": node},
    ]


def test_plugin_on_one_side_only_is_read_from_the_runs_profiles() -> None:
    gates = gates_for("v1.35")
    a = record_run(_events(["NodeName", "Custom"], "Custom", "node-y"))
    b = record_run(_events(["NodeName"], None, "node-x"))
    first = first_difference(a, b, (gates, gates), ("left", "right"))
    assert first is not None and first.aspects == ["node"]
    assert [(c.kind, c.name) for c in first.causes] == [("plugin", "Custom")]
    assert first.a is not None and first.a.rejected_by == {"Custom"}
    assert first.causes[0].why == "Custom runs only in left"  # no gate differs, none is named
    # The same plugin in both profiles: nothing one-sided, nothing differs in the setup.
    c = record_run(_events(["NodeName", "Custom"], None, "node-x"))
    first = first_difference(a, c, (gates, gates))
    assert first is not None and [x.kind for x in first.causes] == ["order"]


def test_format_time() -> None:
    assert (format_time(0.0), format_time(120.0), format_time(1.5), format_time(None)) == (
        "t=0 s", "t=120 s", "t=1.5 s", "never")


def test_a_plugin_that_scored_every_node_alike_is_not_blamed() -> None:
    # Gang lesson without its gates, v1.35 against v1.30: three equal nodes, so the versions'
    # tie-breaks part ways. DynamicResources (v1.35 only) scored every node 0: not the cause.
    new, g_new = _run("gang-scheduling.yaml", "v1.35")
    old, g_old = _run("gang-scheduling.yaml", "v1.30")
    first = first_difference(new, old, (g_new, g_old), ("v1.35", "v1.30"))
    assert first is not None and first.aspects == ["node"]
    assert first.a is not None and "DynamicResources" not in first.a.scored_by
    assert [(c.kind, c.name) for c in first.causes] == [("gate", "node_score_heap_tie_break")]
