"""A big start stores a bounded number of event rows, and the pages that read them stay true.

At 5,000 nodes x 150,000 pods the engine's start is 150,001 events (run_started, then one queue
entry per pod); the web keeps the entries as one `start_summary` event
(playground/services/runs/start_summary.py). Checked here on a start just past the threshold:
the rows stored, the engine's own stream (unchanged), the log's line, and the metrics, which
must equal those the engine's whole stream gives, step after step.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from playground.models import RunAction
from playground.ownership import SESSION_KEY
from playground.selectors import run_metrics as metrics_selectors
from playground.services.runs import engine as run_engine
from playground.services.runs.start_summary import START_EVENTS_VERBATIM, summarize_start
from playground.services.scenarios import scenario_create
from scheduler_core.metrics import RunMetrics, exposition
from tests.web.services.runs.test_runs_services import OWNER, act, inline_worker, start  # noqa: F401  (fixture)

pytestmark = [pytest.mark.django_db]

READY = START_EVENTS_VERBATIM + 50  # pods that enter activeQ at the start
GATED = 30  # pods held by a scheduling gate (they enter the gated pods)


def _deployment(name: str, replicas: int, gated: bool = False) -> str:
    gates = "      schedulingGates: [{name: example.com/hold}]\n" if gated else ""
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\n"
            f"spec:\n  replicas: {replicas}\n  selector: {{matchLabels: {{app: {name}}}}}\n"
            f"  template:\n    metadata: {{labels: {{app: {name}}}}}\n    spec:\n{gates}"
            f"      containers: [{{name: c, image: pause, resources: {{requests: {{cpu: 10m, memory: 8Mi}}}}}}]\n")


def _scenario_yaml() -> str:
    nodes = [f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i}, labels: {{kubernetes.io/hostname: n{i}}}}}\n"
             "status: {capacity: {cpu: '64', memory: 64Gi, pods: '2000'}}\n" for i in range(2)]
    return "---\n".join([*nodes, _deployment("web", READY), _deployment("held", GATED, gated=True)])


def _engine_events(run: Any, steps: int) -> list[dict[str, Any]]:
    """The engine's own stream for the run's start and its first `steps` steps (every event)."""
    sim = run_engine.load_simulation(run.scenario_yaml, run.seed, run.kubernetes_version)
    for _ in range(steps):
        sim.step()
    return sim.sink.events


def test_a_big_start_stores_one_summary_and_the_pages_keep_its_counts(
    client: Any, inline_worker: list  # noqa: F811
) -> None:
    scenario = scenario_create(actor=OWNER, name="big start", yaml_text=_scenario_yaml())
    from playground.services.runs import actions as svc

    run = svc.run_start(scenario=scenario, actor=OWNER)
    engine_start = _engine_events(run, 0)
    entries = [e for e in engine_start if e["type"] == "queue_move" and e["from"] == "none"]
    assert len(entries) == READY + GATED  # the engine still reports one entry per pod

    frame0 = run.frames.get(step=0)
    stored = list(run.events.filter(step=0).order_by("seq").values_list("data", flat=True))
    assert len(stored) <= 5  # run_started and the summary, not one row per pod
    summary = next(e for e in stored if e["type"] == "start_summary")
    assert summary["count"] == READY + GATED
    assert summary["seq"] == summary["last_seq"] == entries[-1]["seq"] == frame0.last_seq == run.last_seq
    assert summary["first_seq"] == entries[0]["seq"]
    assert {(g["to"], g["count"]) for g in summary["moves"]} == {("activeQ", READY), ("gated", GATED)}
    assert stored[0] == engine_start[0]  # run_started stored as the engine wrote it

    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    page = client.get(reverse("playground:run", args=[run.share_token])).content.decode()
    assert f"{READY + GATED} pods entered the scheduling queue at the start" in page
    assert f"{READY} pods → activeQ" in page and f"{GATED} pods → gated" in page
    queues = page.split('id="start-entries"', 1)[1].split("</details>", 1)[0]  # the queues panel
    assert f"Queue moves in this step ({READY + GATED})" in queues
    assert f"{READY} pods: none → activeQ" in queues and f"{GATED} pods: none → gated" in queues

    # The metrics read from the stored rows equal the engine's whole stream, at the start and
    # after steps that pop, bind and fail pods that entered at the start.
    for step in range(4):
        if step:
            act(run, RunAction.KIND_STEP)
        frame = run.frames.get(step=run.head_step)
        full = RunMetrics().feed_all(_engine_events(run, step))
        stored_metrics = metrics_selectors.metrics_at(run=run, frame=frame)
        assert exposition(stored_metrics) == exposition(full), step
        assert stored_metrics.pending == full.pending and stored_metrics.pending["active"] >= READY - step
        timeline = metrics_selectors.metrics_upto(run=run, frame=frame)
        assert timeline.points[-1]["pending"] == full.summary()["pending"]
    assert full.sli_duration.merged()[2] >= 1  # pods bound: their time since entering activeQ at the start


def test_a_small_start_is_stored_event_by_event() -> None:
    """Every gallery-sized start keeps its events as the engine wrote them (the lessons read them)."""
    run = start()
    stored = list(run.events.order_by("seq").values_list("data", flat=True))
    assert stored == _engine_events(run, 0)
    assert summarize_start(stored) is stored


def test_the_summary_is_idempotent_and_keeps_other_start_events() -> None:
    """A prepared start summarised when computed is stored unchanged; a start's other events
    (here a Kubernetes Event between the entries) keep their own seq and place."""
    events: list[dict[str, Any]] = [{"seq": 1, "time": 0.0, "type": "run_started"}]
    for i in range(START_EVENTS_VERBATIM + 1):
        events.append({"seq": len(events) + 1, "time": 0.0, "type": "queue_move", "pod": f"default/p{i}",
                       "from": "none", "to": "activeQ", "reason": "PodAdd", "event": None})
        if i == 3:
            events.append({"seq": len(events) + 1, "time": 0.0, "type": "k8s_event", "reason": "Created"})
    once = summarize_start(events)
    assert [e["type"] for e in once] == ["run_started", "k8s_event", "start_summary"]
    assert [e["seq"] for e in once] == [1, 6, len(events)]
    assert once[-1]["moves"] == [{"to": "activeQ", "reason": "PodAdd", "count": START_EVENTS_VERBATIM + 1,
                                  "pods": [f"default/p{i}" for i in range(5)]}]
    assert summarize_start(once) == once
