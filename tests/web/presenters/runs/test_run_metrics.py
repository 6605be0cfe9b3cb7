"""A run's metrics page and its Prometheus text, from the stored events (no worker: the task's
body runs in-process)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse
from prometheus_client.parser import text_string_to_metric_families

from playground.models import RunAction
from playground.selectors import run_metrics as metrics_selectors
from scheduler_core.metrics import RunMetrics
from tests.web.services.runs.test_runs_services import (
    act,
    inline_worker,  # noqa: F401  (fixture)
    start,
)

pytestmark = [pytest.mark.django_db]


def _values(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for fam in text_string_to_metric_families(text) for s in fam.samples}


def test_metrics_page_and_exposition_follow_the_stored_events(client: Any, inline_worker: list) -> None:  # noqa: F811
    run = start()
    act(run, RunAction.KIND_PLAY)
    run.refresh_from_db()
    events = list(run.events.order_by("seq").values_list("data", flat=True))
    expected = RunMetrics().feed_all(events)
    assert expected.attempts_total[("scheduled", "default-scheduler")] >= 1
    assert expected.preemption_attempts >= 1

    text = client.get(reverse("playground:run_metrics_text", args=[run.share_token]))
    assert text.status_code == 200 and text["Content-Type"].startswith("text/plain; version=0.0.4")
    values = _values(text.content.decode())
    assert values[("scheduler_schedule_attempts_total", (("profile", "default-scheduler"), ("result", "scheduled")))] \
        == expected.attempts_total[("scheduled", "default-scheduler")]
    assert values[("scheduler_preemption_attempts_total", ())] == expected.preemption_attempts
    # The engine's own wall time the worker stored with each frame, totalled (its own family).
    wall = {labels: v for (name, labels), v in values.items()
            if name == "playground_plugin_execution_wall_seconds_total"}
    fit = (("extension_point", "Filter"), ("plugin", "NodeResourcesFit"), ("profile", "default-scheduler"))
    assert wall[fit] > 0
    assert values[("playground_plugin_execution_calls_total", fit)] >= 1

    page = client.get(reverse("playground:run_metrics", args=[run.share_token]))
    html = page.content.decode()
    assert page.status_code == 200
    for chart in ("chart-queues", "chart-attempts", "hist-attempt-duration", "hist-sli", "chart-plugins"):
        assert f'id="{chart}"' in html
    # One linked point per frame (a short run is not thinned), each linking to its step.
    frames = run.frames.count()
    assert len(re.findall(r'<a href="[^"]+\?step=\d+" class="hit"', html)) == 3 * frames  # + wall per step
    assert f'id="preemption-attempts">{expected.preemption_attempts}<' in html
    run_page = client.get(reverse("playground:run", args=[run.share_token])).content.decode()
    assert 'id="run-metrics-link"' in run_page


def test_metrics_at_a_step_count_only_the_events_up_to_it(client: Any, inline_worker: list) -> None:  # noqa: F811
    run = start()
    act(run, RunAction.KIND_STEP)
    act(run, RunAction.KIND_STEP)
    frame1 = run.frames.get(step=1)
    upto1 = list(run.events.filter(seq__lte=frame1.last_seq).order_by("seq").values_list("data", flat=True))
    expected = RunMetrics().feed_all(upto1)
    text = client.get(reverse("playground:run_metrics_text", args=[run.share_token]) + "?step=1").content.decode()
    values = _values(text)
    for queue, n in expected.pending.items():
        assert values[("scheduler_pending_pods", (("queue", queue),))] == n
    timeline = metrics_selectors.metrics_upto(run=run, frame=frame1)
    assert [p["step"] for p in timeline.points] == [0, 1]
    by_cycle = client.get(reverse("playground:run_metrics_text", args=[run.share_token]) + f"?cycle={frame1.cycle}")
    assert by_cycle.content.decode() == text
    page = client.get(reverse("playground:run_metrics", args=[run.share_token]) + "?step=1")
    assert "up to step 1 " in page.content.decode()
    assert client.get(reverse("playground:run_metrics", args=[run.share_token]) + "?step=1")["X-Read-Cache"] == "hit"


def test_the_worker_stores_each_steps_plugin_wall_time_and_the_page_shows_it(
        client: Any, inline_worker: list) -> None:  # noqa: F811
    run = start()
    act(run, RunAction.KIND_STEP)
    act(run, RunAction.KIND_PLAY)
    frames = list(run.frames.order_by("step").values_list("step", "result", "plugin_wall"))
    assert frames[0][2] == []  # step 0 (the start) ran no plugin
    cycles = [wall for _, result, wall in frames if result == "cycle"]
    assert cycles and all(wall for wall in cycles)
    first = {(p, point): (sec, calls) for p, point, _prof, sec, calls in cycles[0]}
    assert first[("NodeResourcesFit", "Filter")][0] > 0 and first[("NodeResourcesFit", "Filter")][1] >= 1

    html = client.get(reverse("playground:run_metrics", args=[run.share_token])).content.decode()
    section = html[html.index('id="metrics-plugin-wall"'):]
    assert "not the cluster" in section
    for chart in ("chart-plugin-wall", "chart-plugin-wall-steps", "plugin-wall-table"):
        assert f'id="{chart}"' in section
    row = re.search(r'<tr data-plugin="NodeResourcesFit" data-point="Filter">.*?<td class="wall-seconds">([^<]+)</td>'
                    r'<td class="wall-calls">(\d+)</td>', section)
    assert row is not None and float(row.group(1)) > 0 and int(row.group(2)) >= len(cycles)
    total = sum(sec for _, _, wall in frames for _p, _pt, _prof, sec, _c in wall)
    assert abs(float(re.search(r'id="plugin-wall-total">([^<]+)<', section).group(1)) - total) < 1e-3

    # At step 0 nothing ran: the section says so rather than drawing empty charts.
    at0 = client.get(reverse("playground:run_metrics", args=[run.share_token]) + "?step=0").content.decode()
    assert 'id="plugin-wall-none"' in at0


def test_thinning_keeps_the_ends_and_the_bound() -> None:
    points = [{"step": i} for i in range(1000)]
    kept = metrics_selectors.thin(points, 200)
    assert len(kept) == 200 and kept[0]["step"] == 0 and kept[-1]["step"] == 999
    assert metrics_selectors.thin(points[:5], 200) == points[:5]
