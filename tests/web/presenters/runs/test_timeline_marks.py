"""The timeline's markers, extended step by step from the events each step added, are the ones
read from the whole log (playground/presenters/runs/timeline.py)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from playground.models import Run, RunAction
from playground.presenters.runs import timeline as timeline_presenter
from tests.web.services.runs.test_runs_services import inline_worker  # noqa: F401  (fixture)


def _both(run: Run) -> tuple[dict[str, Any], dict[str, Any]]:
    run.refresh_from_db()
    kept = timeline_presenter.timeline(SimpleNamespace(run=run))
    timeline_presenter._kept.clear()
    cold = timeline_presenter.timeline(SimpleNamespace(run=run))
    return kept, cold


def _step_through(run: Run, steps: int) -> list[dict[str, Any]]:
    from tests.web.services.runs.test_runs_services import act

    seen = []
    for _ in range(steps):
        kept, cold = _both(run)
        assert kept == cold
        seen.append(kept)
        if run.status == Run.STATUS_SETTLED:
            break
        act(run, RunAction.KIND_STEP)
    return seen


@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["priority-preemption", "noexecute-eviction"])
def test_markers_kept_between_steps_are_the_whole_logs(slug: str, inline_worker: list) -> None:  # noqa: F811
    from playground.services.runs import actions as svc
    from tests.web.services.runs.test_runs_services import OWNER, gallery_scenario

    timeline_presenter._kept.clear()
    run = svc.run_start(scenario=gallery_scenario(slug), actor=OWNER)
    seen = _step_through(run, 80)
    assert seen[-1]["markers"], "the scenario marks some step"
    assert {m["kind"] for m in seen[-1]["markers"]} >= ({"preemption"} if "preemption" in slug else {"eviction"})


@pytest.mark.django_db
def test_a_kind_full_of_candidates_takes_no_more(monkeypatch: pytest.MonkeyPatch, inline_worker: list) -> None:  # noqa: F811
    """At most MARKERS_PER_KIND candidates of a kind are taken, in order, whether read at once
    or step by step (a preemption that chose no node takes a place and marks nothing)."""
    from playground.services.runs import actions as svc
    from tests.web.services.runs.test_runs_services import OWNER, gallery_scenario

    monkeypatch.setattr(timeline_presenter, "MARKERS_PER_KIND", 1)
    timeline_presenter._kept.clear()
    run = svc.run_start(scenario=gallery_scenario("priority-preemption"), actor=OWNER)
    seen = _step_through(run, 80)
    assert max(len(t["markers"]) for t in seen) <= len(timeline_presenter._KINDS)


@pytest.mark.django_db
def test_another_run_under_a_reused_id_is_read_afresh(inline_worker: list) -> None:  # noqa: F811
    from playground.services.runs import actions as svc
    from tests.web.services.runs.test_runs_services import OWNER, gallery_scenario

    run = svc.run_start(scenario=gallery_scenario("priority-preemption"), actor=OWNER)
    stale = timeline_presenter._Marks(token="another run's", upto=0)
    stale.add("change", 0, {"type": "cluster_action", "action": "cordon"})
    timeline_presenter._kept[run.pk] = stale
    shown = timeline_presenter.timeline(SimpleNamespace(run=run))
    assert not any(m["kind"] == "change" for m in shown["markers"])
