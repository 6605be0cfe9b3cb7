"""Per-client quotas (playground/services/quotas.py, checked by playground/middleware.py before
the view): real Redis, the real views; queued actions run in-process (the task's body)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from playground.models import Run, RunAction, Scenario
from playground.services import gallery
from playground.services.runs import dispatch
from playground.services.runs import worker as run_worker

pytestmark = pytest.mark.django_db

_addresses = itertools.count(1)


def visitor() -> Client:
    """A new browser from its own address (Redis outlives a test: counters must not be shared)."""
    return Client(REMOTE_ADDR=f"10.22.{next(_addresses) // 250}.{next(_addresses) % 250 + 1}")


@pytest.fixture
def inline(monkeypatch: pytest.MonkeyPatch, redis_url: str, settings: Any, channel_layer: Any,
           django_capture_on_commit_callbacks: Any) -> Any:
    settings.REDIS_URL = redis_url
    monkeypatch.setattr(dispatch, "schedule", lambda run_id, index, **_: run_worker.advance_run(run_id))
    monkeypatch.setattr(dispatch, "warm", lambda *_, **__: False)
    return django_capture_on_commit_callbacks


def new_scenario(client: Client, name: str = "mine") -> Any:
    return client.post(reverse("playground:scenarios"), {"name": name, "seed": 0})


def gallery_token() -> str:
    gallery.seed()
    return Scenario.objects.get(gallery_slug="priority-preemption").share_token


def test_scenarios_per_hour_refused_before_creating_one(inline: Any, settings: Any) -> None:
    settings.PLAYGROUND_SCENARIOS_PER_HOUR = 2
    token = gallery_token()
    client = visitor()
    assert [new_scenario(client).status_code for _ in range(2)] == [302, 302]
    before = Scenario.objects.count()
    refused = new_scenario(client)
    assert refused.status_code == 429
    assert "PLAYGROUND_SCENARIOS_PER_HOUR" in refused.content.decode()
    assert "at most 2 new scenarios per hour" in refused.content.decode()
    # A fork is a new scenario too.
    fork = client.post(reverse("playground:scenario", args=[token]), {"action": "fork"})
    assert fork.status_code == 429
    assert Scenario.objects.count() == before  # nothing was created


def test_a_new_session_from_the_same_address_is_still_counted(inline: Any, settings: Any) -> None:
    settings.PLAYGROUND_SCENARIOS_PER_HOUR = 1
    settings.PLAYGROUND_QUOTA_ADDRESS_FACTOR = 2
    address = f"10.23.0.{next(_addresses) % 250 + 1}"
    codes = [new_scenario(Client(REMOTE_ADDR=address)).status_code for _ in range(3)]  # cookies cleared each time
    assert codes == [302, 302, 429]
    assert "per network address" in new_scenario(Client(REMOTE_ADDR=address)).content.decode()


def test_runs_per_hour_and_staff_are_exempt(inline: Any, settings: Any) -> None:
    settings.PLAYGROUND_RUNS_PER_HOUR = 1
    token = gallery_token()
    client = visitor()
    assert client.post(reverse("playground:run_start", args=[token])).status_code == 302
    refused = client.post(reverse("playground:run_start", args=[token]))
    assert refused.status_code == 429 and "PLAYGROUND_RUNS_PER_HOUR" in refused.content.decode()
    run = Run.objects.get()
    fork = client.post(reverse("playground:run", args=[run.share_token]), {"action": "fork"}, HTTP_HX_REQUEST="true")
    assert fork.status_code == 429  # a fork of a run is a run started
    assert Run.objects.count() == 1
    staff = visitor()
    User.objects.create_user("teacher", password="pw", is_staff=True)
    staff.login(username="teacher", password="pw")
    assert [staff.post(reverse("playground:run_start", args=[token])).status_code for _ in range(3)] == [302] * 3


def test_runs_playing_at_once(inline: Any, settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.PLAYGROUND_RUNS_PLAYING = 1
    monkeypatch.setattr(dispatch, "schedule", lambda run_id, index, **_: None)  # no worker: plays stay queued
    token = gallery_token()
    client = visitor()
    for _ in range(2):
        client.post(reverse("playground:run_start", args=[token]))
    first, second = Run.objects.order_by("pk")
    play = client.post(reverse("playground:run", args=[first.share_token]), {"action": "play"}, HTTP_HX_REQUEST="true")
    assert play.status_code == 200
    refused = client.post(reverse("playground:run", args=[second.share_token]), {"action": "play"},
                          HTTP_HX_REQUEST="true")
    html = refused.content.decode()
    assert refused.status_code == 429 and 'id="run-flash"' in html and "PLAYGROUND_RUNS_PLAYING" in html
    assert not second.actions.exists()
    # The same run's play again, and a step of the other run, are not plays at once.
    step = client.post(reverse("playground:run", args=[second.share_token]), {"action": "step"}, HTTP_HX_REQUEST="true")
    assert step.status_code == 200
    RunAction.objects.filter(run=first).update(state=RunAction.STATE_DONE)  # the first play ended
    again = client.post(reverse("playground:run", args=[second.share_token]), {"action": "play"},
                        HTTP_HX_REQUEST="true")
    assert again.status_code == 200


def test_node_steps_per_hour_checked_in_the_request_and_charged_by_the_worker(inline: Any, settings: Any) -> None:
    from tests.web.services.runs.test_runs_live import _many_pods_yaml

    client = visitor()
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("pods.yaml", _many_pods_yaml().encode())
    created = client.post(reverse("playground:scenarios"), {"name": "pods", "seed": 0, "file": upload})
    client.post(created["Location"].rstrip("/") + "/runs/")
    run = Run.objects.get()
    nodes = 3
    settings.PLAYGROUND_NODE_STEPS_PER_HOUR = nodes * 3
    url = reverse("playground:run", args=[run.share_token])
    for _ in range(3):
        with inline(execute=True):
            assert client.post(url, {"action": "step"}, HTTP_HX_REQUEST="true").status_code == 200
    run.refresh_from_db()
    assert run.head_step == 3, list(run.actions.values_list("state", "result"))
    refused = client.post(url, {"action": "step"}, HTTP_HX_REQUEST="true")
    assert refused.status_code == 429 and "PLAYGROUND_NODE_STEPS_PER_HOUR" in refused.content.decode()
    assert run.actions.count() == 3  # nothing queued

    # A play is charged step by step by the worker: it stops when the hour is spent. (A new
    # limit is a new counter: `limits` keys its windows by the amount.)
    settings.PLAYGROUND_NODE_STEPS_PER_HOUR = nodes * 8
    with inline(execute=True):
        assert client.post(url, {"action": "play"}, HTTP_HX_REQUEST="true").status_code == 200
    play = run.actions.get(kind=RunAction.KIND_PLAY)
    run.refresh_from_db()
    assert play.state == RunAction.STATE_FAILED and "PLAYGROUND_NODE_STEPS_PER_HOUR" in play.result
    assert run.head_step == 3 + 8 and run.status != Run.STATUS_SETTLED


def test_classroom_followers_are_not_runs(inline: Any, settings: Any) -> None:
    """A teacher presents a run; thirty students follow it from one school address, with every
    quota at its smallest: following is reading, never counted."""
    settings.PLAYGROUND_RUNS_PER_HOUR = 1
    settings.PLAYGROUND_SCENARIOS_PER_HOUR = 1
    settings.PLAYGROUND_QUOTA_ADDRESS_FACTOR = 1
    teacher = visitor()
    teacher.post(reverse("playground:run_start", args=[gallery_token()]))
    run = Run.objects.get()
    url = reverse("playground:run", args=[run.share_token])
    assert teacher.post(url, {"action": "present"}, HTTP_HX_REQUEST="true").status_code == 200
    school = "10.24.0.1"
    codes = {Client(REMOTE_ADDR=school).get(url + "?follow=1").status_code for _ in range(30)}
    assert codes == {200}
    assert Run.objects.count() == 1
