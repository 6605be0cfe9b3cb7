"""A run's engine is built ahead of its first Step once its owner starts it from the start form
or opens the run page (services.runs.run_opened), asked for once: not for runs nobody opens,
not again once the run has acted."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from playground.models import Run, RunAction
from playground.ownership import SESSION_KEY
from playground.services.runs import actions as svc
from playground.services.runs import dispatch
from tests.web.services.runs.test_runs_services import OWNER, act, gallery_scenario, inline_worker  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """The tasks the web side asked a worker for, as (run id, action index); none runs."""
    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(dispatch, "schedule", lambda run_id, index, **_: calls.append((run_id, index)))
    return calls


def as_owner(client: Client) -> Client:
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    return client


def test_starting_a_run_asks_for_nothing_until_its_owner_opens_it(client: Client, queued: list) -> None:
    run = svc.run_start(scenario=gallery_scenario("percentage-of-nodes-to-score"), actor=OWNER)
    assert queued == []
    assert Client().get(f"/runs/{run.share_token}/").status_code == 200  # a viewer: nothing
    assert queued == []
    assert as_owner(client).get(f"/runs/{run.share_token}/").status_code == 200
    assert queued == [(run.pk, 0)]  # index 0: build the engine, no action


def test_a_run_that_has_taken_an_action_is_not_warmed_again(
    client: Client, inline_worker: list  # noqa: F811
) -> None:
    run = svc.run_start(scenario=gallery_scenario("percentage-of-nodes-to-score"), actor=OWNER)
    act(run, RunAction.KIND_STEP)
    inline_worker.clear()
    assert as_owner(client).get(f"/runs/{run.share_token}/").status_code == 200
    assert inline_worker == []
    fork = svc.run_fork(run=run, actor=OWNER, step=1)
    assert client.get(f"/runs/{fork.share_token}/").status_code == 200
    assert inline_worker == [(fork.pk, 0)]  # a fork has taken no action yet


def test_the_start_form_asks_for_the_engine_once_before_its_page(
    client: Client, queued: list, redis_url: str, settings: Any
) -> None:
    """The start's POST queues the build before it redirects (the engine is restored while the
    browser follows the redirect and the page renders); the page and its reloads then ask for
    no second build, which only another worker could take, restoring the checkpoint again."""
    settings.REDIS_URL = redis_url
    scenario = gallery_scenario("percentage-of-nodes-to-score")
    answer = as_owner(client).post(reverse("playground:run_start", args=[scenario.share_token]))
    assert answer.status_code == 302
    run = Run.objects.get(share_token=answer["Location"].rstrip("/").split("/")[-1])
    assert queued == [(run.pk, 0)]
    for _ in range(2):
        assert client.get(answer["Location"]).status_code == 200
    assert queued == [(run.pk, 0)]
