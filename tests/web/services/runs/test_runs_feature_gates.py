"""Feature gates of a run (set in the start form, prefilled from the scenario, validated against
the version's table, kept by forks, shown in the header) and the waiting-at-Permit panel, without
a browser: the worker's body runs in-process."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from playground.models import Run, RunAction, Scenario
from playground.ownership import SESSION_KEY, Actor
from playground.presenters.runs.picker import run_screen
from playground.selectors.frame_views import view_at
from playground.services import gallery
from playground.services.runs import actions as svc
from playground.services.runs import dispatch
from playground.services.runs import errors as run_errors
from playground.services.runs import worker as run_worker
from playground.services.runs.cache import EngineCache
from playground.services.runs.engine import Engine
from tests.web.compare_here import run_compare_tasks_here

pytestmark = [pytest.mark.django_db]

OWNER = Actor(session_token="gates-owner")
GANG = "GenericWorkload=true,GangScheduling=true"


def gang_scenario() -> Scenario:
    gallery.seed()
    return Scenario.objects.get(gallery_slug="gang-scheduling")


@pytest.fixture
def worker(monkeypatch: pytest.MonkeyPatch, redis_url: str, settings: Any, channel_layer: Any) -> None:
    settings.REDIS_URL = redis_url
    monkeypatch.setattr(dispatch, "schedule", lambda run_id, index, **_: run_worker.advance_run(run_id, cache=EngineCache()))


def _step(run: Run, capture: Any, n: int = 1) -> None:
    for _ in range(n):
        with capture(execute=True):
            svc.run_enqueue(run=run, actor=OWNER, kind=RunAction.KIND_STEP)
    run.refresh_from_db()


def test_gates_are_validated_canonical_and_kept(worker: None, django_capture_on_commit_callbacks: Any) -> None:
    scenario = gang_scenario()
    assert scenario.feature_gates == GANG
    with pytest.raises(run_errors.RunError, match=r"Feature gates: GangScheduling is enabled, but depends on features "
                                           r"that are disabled: \[GenericWorkload\]\."):
        svc.run_start(scenario=scenario, actor=OWNER, feature_gates="GangScheduling=true")
    with pytest.raises(run_errors.RunError, match="unrecognized feature gate: GenericWorkload"):
        svc.run_start(scenario=scenario, actor=OWNER, kubernetes_version="v1.30", feature_gates=GANG)
    assert not Run.objects.exists()
    run = svc.run_start(scenario=scenario, actor=OWNER, feature_gates=" GangScheduling=true, GenericWorkload=true ")
    assert run.feature_gates == "GangScheduling=true,GenericWorkload=true"
    _step(run, django_capture_on_commit_callbacks, 3)
    view = view_at(run=run, step=run.head_step)
    assert [w["pod"] for w in view["waitingPods"]] == ["default/worker-1", "default/worker-2", "default/worker-3"]
    screen = run_screen(run=run, actor=OWNER)
    (group,) = screen.waiting_groups
    assert group["progress"] == {"have": 3, "need": 4, "pct": 75}
    assert group["countdown"] == 300.0 and group["deadline"] == 300.0
    assert Engine.rebuild(run).sim.feature_gates.overrides == (("GangScheduling", True), ("GenericWorkload", True))
    fork = svc.run_fork(run=run, actor=OWNER, step=2)
    assert fork.feature_gates == run.feature_gates


def test_start_form_prefills_the_scenario_gates_and_the_page_shows_them(client: Any) -> None:
    scenario = gang_scenario()
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    html = client.get(f"/scenarios/{scenario.share_token}/").content.decode()
    assert f'id="start-gates" size="40" maxlength="2000" placeholder="GenericWorkload=true,GangScheduling=true" ' \
           f'aria-label="Feature gates" value="{GANG}"' in html
    response = client.post(reverse("playground:run_start", args=[scenario.share_token]), {"feature_gates": GANG})
    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    assert '<code id="run-gates"' in page and "GangScheduling=true,GenericWorkload=true</code>" in page
    assert 'id="run-waiting"' in page and "No pod waits at Permit." in page
    bad = client.post(reverse("playground:run_start", args=[scenario.share_token]), {"feature_gates": "Nope=true"})
    assert bad.status_code == 302 and Run.objects.count() == 1
    assert "unrecognized feature gate: Nope" in client.get(bad["Location"]).content.decode()


def test_compare_gates_on_vs_off(
    client: Any, settings: Any, monkeypatch: pytest.MonkeyPatch, redis_url: str
) -> None:
    run_compare_tasks_here(monkeypatch, settings, redis_url)
    gallery.seed()
    scenario = Scenario.objects.get(gallery_slug="taint-comparison-operators")
    assert scenario.feature_gates == "TaintTolerationComparisonOperators=true"
    url = reverse("playground:scenario_compare", args=[scenario.share_token])
    plain = client.get(f"{url}?seed=0").content.decode()
    assert 'id="compare-gates-link"' in plain
    page = client.get(f"{url}?seed=0&gates=").content.decode()
    assert 'id="compare-gates-input"' in page and 'value="TaintTolerationComparisonOperators=true"' in page
    assert "v1.35 + TaintTolerationComparisonOperators=true" in page and "v1.35, default gates" in page
    # Gt/Lt tolerate nothing without the gate: premium and budget differ, gold-only does not.
    assert 'data-pod="default/premium" data-aspect="placement"' in page
    assert 'data-pod="default/budget" data-aspect="placement"' in page
    assert 'data-pod="default/gold-only"' not in page
    assert 'data-gate="feature_gates"' in page
    bad = client.get(f"{url}?seed=0&gates=GangScheduling=true", HTTP_HX_REQUEST="true").content.decode()
    assert "GangScheduling is enabled, but depends on features that are disabled: [GenericWorkload]" in bad
