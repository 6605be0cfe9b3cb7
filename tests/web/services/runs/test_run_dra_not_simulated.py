"""A v1.30 run with device claims says at the top that DRA is not simulated there, and its
Devices panel says why every GPU reads free (GPU pods land on the CPU node in that release).
A v1.35 run of the same lesson says neither. Real worker body, real Redis, the real run page."""

from __future__ import annotations

from typing import Any

import pytest

from playground.models import Run, RunAction, Scenario
from playground.ownership import SESSION_KEY, Actor
from playground.selectors.frame_views import view_at
from playground.services import gallery
from playground.services.runs import actions as svc
from playground.services.runs import dispatch
from playground.services.runs import worker as run_worker
from playground.services.runs.cache import EngineCache

pytestmark = [pytest.mark.django_db]

OWNER = Actor(session_token="dra-notes-owner")


@pytest.fixture
def worker(monkeypatch: pytest.MonkeyPatch, redis_url: str, settings: Any, channel_layer: Any) -> None:
    settings.REDIS_URL = redis_url
    monkeypatch.setattr(dispatch, "schedule", lambda run_id, index, **_: run_worker.advance_run(run_id, cache=EngineCache()))


def _played(version: str, capture: Any) -> Run:
    gallery.seed()
    run = svc.run_start(scenario=Scenario.objects.get(gallery_slug="dra-gpus"), actor=OWNER, kubernetes_version=version)
    with capture(execute=True):
        svc.run_enqueue(run=run, actor=OWNER, kind=RunAction.KIND_PLAY)
    run.refresh_from_db()
    return run


def _page(client: Any, run: Run) -> str:
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    response = client.get(f"/runs/{run.share_token}/")
    assert response.status_code == 200
    return response.content.decode()


def test_v130_run_with_claims_says_dra_is_not_simulated(
    client: Any, worker: None, django_capture_on_commit_callbacks: Any
) -> None:
    run = _played("v1.30", django_capture_on_commit_callbacks)
    pods = {p["key"]: p["node"] for p in view_at(run=run, step=run.head_step)["pods"]}
    assert pods["default/finetune"] == "cpu-c"  # a GPU pod on the CPU node: claims ignored
    page = _page(client, run)
    top = page.split('id="version-notes"', 1)
    assert len(top) == 2, "no notice at the top of the run page"
    # At the top: after the header, before the run's status and controls.
    assert page.index('id="version-notes"') < page.index('id="run-status"')
    assert 'id="dra-not-simulated"' in page
    notice = top[1].split("</div>", 1)[0]
    assert "Dynamic Resource Allocation is alpha and off by default" in notice
    assert "device claims are not simulated" in notice
    devices = page.split('id="run-devices"', 1)[1].split("</section>", 1)[0]
    assert 'id="devices-not-simulated"' in devices
    assert "Every device reads free because Kubernetes v1.30 does not simulate Dynamic Resource Allocation" in devices


def test_v135_run_says_nothing_of_the_kind(client: Any, worker: None, django_capture_on_commit_callbacks: Any) -> None:
    run = _played("v1.35", django_capture_on_commit_callbacks)
    page = _page(client, run)
    assert 'id="run-devices"' in page
    assert 'id="version-notes"' not in page and 'id="devices-not-simulated"' not in page
