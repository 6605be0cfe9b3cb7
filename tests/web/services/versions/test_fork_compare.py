"""A fork against the run it came from: the first decision where they part, blamed on the
cluster action only the fork applied. Real worker body (in-process), real Redis, the real page."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from playground.models import Run, RunAction, Scenario
from playground.ownership import SESSION_KEY, Actor
from playground.selectors.frame_views import view_at
from playground.services import gallery
from playground.services.runs import actions as svc
from playground.services.runs import dispatch
from playground.services.runs import worker as run_worker
from playground.services.runs.cache import EngineCache
from tests.web.compare_here import run_compare_tasks_here

pytestmark = [pytest.mark.django_db]

OWNER = Actor(session_token="fork-compare-owner")


@pytest.fixture
def worker(monkeypatch: pytest.MonkeyPatch, redis_url: str, settings: Any, channel_layer: Any) -> None:
    run_compare_tasks_here(monkeypatch, settings, redis_url)
    monkeypatch.setattr(dispatch, "schedule", lambda run_id, index, **_: run_worker.advance_run(run_id, cache=EngineCache()))


def _enqueue(run: Run, capture: Any, kind: str, params: dict[str, Any] | None = None) -> None:
    with capture(execute=True):
        svc.run_enqueue(run=run, actor=OWNER, kind=kind, params=params)
    run.refresh_from_db()


def _bound(run: Run) -> dict[str, str | None]:
    return {p["key"]: p["node"] for p in view_at(run=run, step=run.head_step)["pods"]}


def test_fork_comparison_names_the_first_difference_and_the_action(
    client: Any, worker: None, django_capture_on_commit_callbacks: Any
) -> None:
    gallery.seed()
    original = svc.run_start(scenario=Scenario.objects.get(gallery_slug="resource-fit"), actor=OWNER)
    _enqueue(original, django_capture_on_commit_callbacks, RunAction.KIND_STEP)  # cycle 1 only
    fork = svc.run_fork(run=original, actor=OWNER, step=original.head_step)
    _enqueue(original, django_capture_on_commit_callbacks, RunAction.KIND_PLAY)
    # The node the original's next pod took, cordoned in the fork only.
    second = view_at(run=original, step=2)
    pod, node = next((p["key"], p["node"]) for p in second["pods"]
                     if p["node"] and p["key"] not in {k for k, n in _bound(fork).items() if n})
    _enqueue(fork, django_capture_on_commit_callbacks, RunAction.KIND_CLUSTER, {"action": "cordon", "node": node})
    _enqueue(fork, django_capture_on_commit_callbacks, RunAction.KIND_PLAY)
    assert _bound(fork)[pod] != node

    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    assert 'id="run-fork-compare-link"' in client.get(f"/runs/{fork.share_token}/").content.decode()
    page = client.get(reverse("playground:run_compare", args=[fork.share_token])).content.decode()
    assert f'data-fact="pod">{pod}<' in page and 'data-fact="cycle">2<' in page
    first = page.split('id="compare-first"', 1)[1].split("</section>", 1)[0]
    assert f"bound to {node} at t=0 s" in first and f"bound to {_bound(fork)[pod]} at t=0 s" in first
    assert 'data-cause="action" data-name="cordon"' in first
    assert "in this fork (step" in first and "only" in first

    # The original is no fork: a clear refusal, nothing else.
    refused = client.get(reverse("playground:run_compare", args=[original.share_token]))
    assert refused.status_code == 400 and "This run is not a fork" in refused.content.decode()


def test_fork_comparison_is_computed_by_the_worker_and_polled_at_its_state(
    client: Any, worker: None, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playground.services.versions import queued
    from playground.tasks.compare import compare_scenario_task

    gallery.seed()
    original = svc.run_start(scenario=Scenario.objects.get(gallery_slug="resource-fit"), actor=OWNER)
    _enqueue(original, django_capture_on_commit_callbacks, RunAction.KIND_STEP)
    fork = svc.run_fork(run=original, actor=OWNER, step=original.head_step)
    _enqueue(fork, django_capture_on_commit_callbacks, RunAction.KIND_PLAY)
    sent: list[queued.Job] = []
    monkeypatch.setattr(queued, "send", sent.append)  # no worker takes it until the test says so
    url = reverse("playground:run_compare", args=[fork.share_token])
    page = client.get(url).content.decode()
    at = queued.fork_at(fork)
    assert 'id="compare-pending"' in page and 'hx-trigger="every 1s"' in page
    assert f'hx-get="{url}?at={at}"' in page and 'id="compare-first"' not in page
    assert len(sent) == 1 and sent[0].kind == "fork" and sent[0].at == at
    # The original moves on meanwhile: the poll still asks for the state it was opened at.
    _enqueue(original, django_capture_on_commit_callbacks, RunAction.KIND_PLAY)
    assert 'id="compare-pending"' in client.get(f"{url}?at={at}", HTTP_HX_REQUEST="true").content.decode()
    assert len(sent) == 1
    compare_scenario_task(sent[0].as_dict())
    polled = client.get(f"{url}?at={at}", HTTP_HX_REQUEST="true").content.decode()
    assert 'id="compare-pending"' not in polled and 'id="compare-first"' in polled
