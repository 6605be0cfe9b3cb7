"""Nothing on the run page may be false: the presenters, fed the engine's own events."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from playground.templatetags.text_tags import plural
from scheduler_core.events.compact import feasible_nodes, iter_verdicts
from scheduler_core.extender.sample import serve
from tests.web.services.runs.test_runs_services import inline_worker  # noqa: F401  (fixture)
from tests.web.teach_frames import GALLERY, engine_frames, gallery_frames, screen_at, step_where


def test_filter_matrix_shows_plugins_after_a_rejection_as_not_run_never_as_rejected() -> None:
    frames = gallery_frames("taints-tolerations")
    step = step_where(frames, lambda e: e["type"] == "filter_verdicts" and len(feasible_nodes(e)) < len(e["nodes"]))
    matrix = screen_at(frames, step).filter_matrix
    assert matrix is not None
    for row in matrix["rows"]:
        kinds = [c["kind"] for c in row["cells"]]
        if "reject" in kinds:
            first = kinds.index("reject")
            # After the first rejection nothing ran: "not run" or PreFilter skips, never another ✗.
            assert set(kinds[first + 1 :]) <= {"notrun", "skip"}, row
            assert all(c["symbol"] != "✗" for c in row["cells"][first + 1 :])
    assert any(c["kind"] == "notrun" and c["symbol"] == "–" for r in matrix["rows"] for c in r["cells"])
    legend = {entry["symbol"] for entry in matrix["legend"]}
    shown = {c["symbol"] for r in matrix["rows"] for c in r["cells"]}
    assert shown <= legend


def _many_nodes_yaml(nodes: int = 120) -> str:
    docs = [
        f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i:03d}}}\nstatus: {{capacity: {{cpu: '4', memory: 8Gi}}}}"
        for i in range(nodes)
    ]
    docs.append(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
        "  - {name: c, image: x, resources: {requests: {cpu: 100m}}}"
    )
    return "\n---\n".join(docs)


def test_no_unexplained_underscore_column_when_the_search_stops_early() -> None:
    frames = engine_frames(_many_nodes_yaml())
    step = step_where(frames, lambda e: e["type"] == "filter_verdicts")
    event = next(e for e in frames[step]["events"] if e["type"] == "filter_verdicts")
    assert any("_" in v for _, v in iter_verdicts(event))  # the engine's marker is there
    matrix = screen_at(frames, step).filter_matrix
    assert "_" not in matrix["plugins"] and "_" not in [c["name"] for c in matrix["columns"]]
    dropped = [r for r in matrix["rows"] if r["dropped"]]
    assert len(dropped) == 1 and matrix["dropped"] == [dropped[0]["node"]]
    assert matrix["feasible_count"] == matrix["num_to_find"] and matrix["not_evaluated"]


@pytest.fixture
def extender_url() -> Any:
    server = serve(port=0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_extender_filtering_is_a_column_of_the_filter_matrix(extender_url: str) -> None:
    text = (GALLERY / "extender-gpu.yaml").read_text().replace("http://127.0.0.1:8888", extender_url)
    frames = engine_frames(text)
    step = step_where(frames, lambda e: e["type"] == "extender_call" and e["verb"] == "filter" and e["ok"])
    matrix = screen_at(frames, step).filter_matrix
    columns = [c for c in matrix["columns"] if c["extender"]]
    assert len(columns) == 1
    rejected = [r["node"] for r in matrix["rows"] if r["cells"] and r["cells"][-1]["kind"] == "reject"]
    assert rejected and matrix["extender_removed"] == len(rejected)
    assert matrix["feasible_count"] == matrix["plugin_feasible_count"] - len(rejected)
    assert all(not r["feasible"] for r in matrix["rows"] if r["node"] in rejected)


def test_step_by_point_shows_the_cluster_as_of_the_point_reached() -> None:
    frames = gallery_frames("priority-preemption")
    step = step_where(frames, lambda e: e["type"] == "victim_deleted")
    full = screen_at(frames, step)
    postfilter = full.groups.index("postfilter") + 1
    victims = [e["pod"] for e in full.all("victim_deleted")]
    # At Filter: the victims are still bound and nothing is deleted yet; the pod is in flight.
    at_filter = screen_at(frames, step, reveal=full.groups.index("filter") + 1)
    bound = {p for n in at_filter.nodes for p in n["pods"]}
    assert set(victims) <= bound and at_filter.preemption is None
    popped = at_filter.first("cycle_started")["pod"]
    assert popped not in [p["pod"] for p in at_filter.queues["activeQ"]]
    assert "not revealed yet" in at_filter.outcome and "not scheduled" not in at_filter.outcome
    # At PostFilter: the victims are gone from the cluster and the preemptor is nominated.
    at_post = screen_at(frames, step, reveal=postfilter)
    bound = {p for n in at_post.nodes for p in n["pods"] if p not in n.get("deleting", [])}
    assert not set(victims) & bound  # deleted in the API (the scheduler sees them go after its next Pop)
    nominated = {p for n in at_post.nodes for p in n["nominated"]}
    assert popped in nominated or postfilter < len(full.groups)


def test_a_pod_popped_from_backoffq_names_that_queue_and_why() -> None:
    frames = gallery_frames("priority-preemption")
    step = step_where(frames, lambda e: e["type"] == "queue_move" and e["from"] == "backoffQ" and e["to"] == "none")
    screen = screen_at(frames, step)
    assert screen.pop["queue"] == "backoffQ"
    assert screen.point_labels[0]["label"] == "Pop from backoffQ"
    assert "activeQ was empty" in screen.pop["why"] and "PopFromBackoffQ" in screen.pop["why"]
    first = screen_at(frames, 1)
    assert first.pop["queue"] == "activeQ" and "priority" in first.pop["why"]


def test_victims_show_priority_and_start_time_and_the_preemptor_by_name() -> None:
    frames = gallery_frames("priority-preemption")
    step = step_where(frames, lambda e: e["type"] == "preemption" and e.get("chosen"))
    panel = screen_at(frames, step).preemption
    assert panel["preemptor"] == "default/payments" and panel["preemptor_priority"] == 100000
    victims = [v for c in panel["candidates"] for v in c["victim_items"]]
    assert victims and all(isinstance(v["priority"], int) for v in victims)
    assert all("start_time" in v for v in victims)


def test_what_just_happened_is_read_off_the_events() -> None:
    frames = gallery_frames("priority-preemption")
    step = step_where(frames, lambda e: e["type"] == "preemption" and e.get("chosen"))
    text = screen_at(frames, step).narrative
    assert "DefaultPreemption" in text and "node-2" in text and "batch-4" in text
    last = screen_at(frames, len(frames) - 1)
    assert last.frame.result == "settled" and "settled" in last.narrative


def test_framework_strip_lights_the_point_reached_with_plugin_statuses() -> None:
    frames = gallery_frames("taints-tolerations")
    step = step_where(frames, lambda e: e["type"] == "filter_verdicts")
    screen = screen_at(frames, step, reveal=3)
    assert screen.groups[:3] == ["queue", "prefilter", "filter"]
    assert [p["name"] for p in screen.framework if p["current"]] == ["Filter"]
    assert [p["name"] for p in screen.framework if p["reached"]][-1] == "Filter"
    names = [p["name"] for p in screen.framework]
    assert names[:5] == ["PreEnqueue", "QueueSort", "PreFilter", "Filter", "PostFilter"] and names[-1] == "PostBind"
    filt = next(p for p in screen_at(frames, step).framework if p["name"] == "Filter")
    assert any(pl["name"] == "TaintToleration" and pl["status"] == "rejected" for pl in filt["plugins"])


@pytest.mark.parametrize(
    ("count", "noun", "text"),
    [(1, "node", "1 node"), (2, "node", "2 nodes"), (1, "feasible node", "1 feasible node"), (0, "pod", "0 pods")],
)
def test_plural(count: int, noun: str, text: str) -> None:
    assert plural(count, noun) == text


def test_a_clock_jump_says_what_falls_due() -> None:
    frames = gallery_frames("noexecute-eviction", seed=0)
    first_jump = screen_at(frames, 1)
    assert first_jump.frame.result == "clock"
    # t=10 s: the timeline's taint is due (it is applied at the start of the next step).
    assert "jumped to the next timer, 10s" in first_jump.narrative
    second = screen_at(frames, 2)
    assert "tolerates-30s is evicted" not in second.narrative  # due at 40 s, not 20 s
    later = screen_at(frames, 4)
    assert later.frame.result == "clock" and "tolerates-30s is evicted from worker-1" in later.narrative


@pytest.mark.django_db
def test_one_advance_clock_lists_every_step_it_ran(client: Any, inline_worker: list) -> None:  # noqa: F811
    from playground.models import RunAction
    from playground.services.runs import actions as svc
    from tests.web.services.runs.test_runs_services import OWNER, act, gallery_scenario

    run = svc.run_start(scenario=gallery_scenario("noexecute-eviction"), actor=OWNER)
    act(run, RunAction.KIND_STEP)
    act(run, RunAction.KIND_ADVANCE_CLOCK)  # t=10: the taint
    action = act(run, RunAction.KIND_ADVANCE_CLOCK)  # evictions fall due, then pods are scheduled again
    assert action.last_step - action.first_step >= 2
    html = client.get(f"/runs/{run.share_token}/").content.decode()
    assert f"The last press ran {action.last_step - action.first_step + 1} steps" in html
    for step in range(action.first_step, action.last_step + 1):
        assert f'href="?step={step}">step {step}</a>' in html
    between = html[html.index("steps-between") :][:3000]
    cycles = [
        e["cycle"]
        for e in run.events.filter(type="cycle_started", step__gte=action.first_step, step__lte=action.last_step)
        .values_list("data", flat=True)
    ]
    for cycle in cycles:  # every scheduling cycle the press ran is named, none hidden
        assert f"cycle {cycle}:" in between, between


def test_a_timeline_action_shows_in_the_step_that_applied_it() -> None:
    frames = gallery_frames("noexecute-eviction", seed=0)
    step = step_where(frames, lambda e: e["type"] == "cluster_action")
    screen = screen_at(frames, step)
    assert screen.frame.result == "clock"  # the taint was applied at the start of a clock step
    assert screen.outcome.startswith("addTaint at 10s, plain evicted, then the clock jumped to 20s")
    assert screen.narrative.startswith("Cluster change at 10s: addTaint.")


def test_prefilter_rows_and_log_line_from_the_cycles_one_prefilter_event() -> None:
    frames = gallery_frames("taints-tolerations")
    step = step_where(frames, lambda e: e["type"] == "prefilter")
    screen = screen_at(frames, step)
    rows = screen.prefilters
    assert len(rows) > 3 and len({r["plugin"] for r in rows}) == len(rows)  # one row per plugin
    assert {"Success", "Skip"} <= {r["code"] for r in rows}
    framework = {p["name"]: p for p in screen.framework}
    assert framework["PreFilter"]["reached"]
    from playground.templatetags.run_tags import event_summary

    line = event_summary(screen.first("prefilter"))
    assert "PreFilter" in line and "skipped" in line and "NodeResourcesFit Success" in line
