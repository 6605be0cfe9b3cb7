"""Nothing on the run page contradicts the engine: what each panel counts, names and tells the
learner matches the events it is drawn from (issue "Teach III", item 1)."""

from __future__ import annotations

from playground.presenters.runs import cycle as cycle_panel
from playground.presenters.runs import cycle_groups, node_search
from playground.presenters.runs import pods as pods_panel
from playground.presenters.runs import preemption as preemption_panel
from playground.presenters.runs.cycle import FILTER_LEGEND
from scheduler_core.loader import load_scenario_text
from tests.web.scale import big_cluster_yaml
from tests.web.teach_frames import GALLERY, engine_frames, screen_at, step_where


def _walk_screen():
    """200 nodes (every 7th tainted, every 11th cordoned), one pod: the walk stops after 100
    feasible nodes, so it rejects some nodes, cancels one and never reaches the rest."""
    frames = engine_frames(big_cluster_yaml(200, 1), max_steps=3)
    step = step_where(frames, lambda e: e["type"] == "filter_verdicts")
    return screen_at(frames, step)


def test_plugins_that_never_ran_are_not_counted_as_rejecting() -> None:
    screen = _walk_screen()
    rejected = node_search.rejected_by(screen)
    tainted = {f"node-{i:05d}" for i in range(200) if i % 7 == 3 and i % 11 != 5}
    cordoned = {f"node-{i:05d}" for i in range(200) if i % 11 == 5}
    evaluated = set(screen.first("filter_verdicts")["nodes"])
    assert rejected["TaintToleration"] == tainted & evaluated
    assert rejected["NodeUnschedulable"] == cordoned & evaluated
    assert set(rejected) == {"TaintToleration", "NodeUnschedulable"}  # not NodeResourcesFit, not "_"
    filters = node_search.node_filters(screen)
    assert dict(filters["plugins"]) == {"TaintToleration": len(tainted & evaluated),
                                        "NodeUnschedulable": len(cordoned & evaluated)}


def test_grouped_filter_results_name_only_the_rejecting_plugin_and_no_internal_marker() -> None:
    screen = _walk_screen()
    labels = [g["label"] for g in cycle_groups.filter_groups(screen)["groups"]]
    assert labels[0] == "feasible"
    assert not any("NotEvaluated" in label or "_ —" in label or label.startswith("_") for label in labels)
    assert "TaintToleration — node(s) had untolerated taint(s)" in labels
    assert "NodeUnschedulable — node(s) were unschedulable" in labels
    assert cycle_groups.CANCELLED_LABEL in labels


def test_every_matrix_symbol_a_lesson_names_is_in_the_matrix_at_that_stop() -> None:
    """A caption that says "look for the –" must stop at a cycle whose filter matrix shows one."""
    symbols = {sym for _, sym, _ in FILTER_LEGEND}
    checked = 0
    for path in sorted(GALLERY.glob("*.yaml")):
        text = path.read_text()
        lessons = load_scenario_text(text, source=path.name).lessons
        frames = None
        for lesson in lessons:
            for stop in lesson.steps:
                named = {s for s in symbols if s in stop.caption}
                if not named or stop.cycle is None:
                    continue
                frames = frames or engine_frames(text)
                step = step_where(frames, lambda e, c=stop.cycle: e["type"] == "cycle_started" and e["cycle"] == c)
                matrix = cycle_panel.filter_matrix(screen_at(frames, step))
                shown = {cell["symbol"] for row in matrix["rows"] for cell in row["cells"]}
                assert named <= shown, (path.name, stop.cycle, named - shown)
                checked += 1
    assert checked


def test_resource_fit_lesson_explains_the_symbols_after_the_rejection() -> None:
    """After NodeResourcesFit's ✗ on small, the later plugins of that pod are skipped by PreFilter
    (·), which the caption must say, not "never ran" (–)."""
    text = (GALLERY / "resource-fit.yaml").read_text()
    stop = next(s for s in load_scenario_text(text, source="r").lessons[0].steps if s.cycle == 7)
    frames = engine_frames(text)
    step = step_where(frames, lambda e: e["type"] == "cycle_started" and e["cycle"] == 7)
    matrix = cycle_panel.filter_matrix(screen_at(frames, step))
    row = next(r for r in matrix["rows"] if r["node"] == "small")
    after = [c["symbol"] for c in row["cells"][[c["symbol"] for c in row["cells"]].index("✗") + 1:]]
    assert set(after) == {"·"}
    assert "·" in stop.caption and "skipped" in stop.caption


def test_a_pod_no_profile_answers_for_says_why_it_stays_pending() -> None:
    text = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: '4', memory: 8Gi, pods: '110'}}
---
apiVersion: v1
kind: Pod
metadata: {name: custom}
spec:
  schedulerName: my-scheduler
  containers: [{name: c}]
---
apiVersion: v1
kind: Pod
metadata: {name: plain}
spec:
  containers: [{name: c}]
"""
    frames = engine_frames(text)
    table = pods_panel.pod_table(screen_at(frames, len(frames) - 1))
    by_key = {r["pod"]["key"]: r["pod"] for r in table["rows"]}
    assert by_key["default/plain"]["status"] == "Bound" and not by_key["default/plain"].get("message")
    custom = by_key["default/custom"]
    assert custom["status"] == "Pending"
    assert custom["message"].startswith('No scheduler profile is named "my-scheduler"')
    assert '"default-scheduler"' in custom["message"]


def _preemption_panel(slug: str, text: str | None = None) -> dict:
    text = text or (GALLERY / f"{slug}.yaml").read_text()
    frames = engine_frames(text)
    return preemption_panel.preemption(screen_at(frames, step_where(frames, lambda e: e["type"] == "preemption")))


def test_start_time_why_line_says_when_no_victim_had_a_start_time() -> None:
    panel = _preemption_panel("priority-preemption")
    assert panel["why"] == "latest start time of highest-priority victims"
    assert "No victim here has a start time" in panel["why_note"]
    assert "order of evaluation decided" in panel["why_note"]
    timed = _preemption_panel("preemption-start-time")
    assert timed["why"] == panel["why"] and timed["why_note"] == ""
    assert _preemption_panel("preemption-pdb")["why_note"] == ""
