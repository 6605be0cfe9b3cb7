"""A run's engine is built ahead of its first Step once its owner opens the run page
(services.runs.run_opened): not for runs nobody opens, not again once the run has acted."""

from __future__ import annotations

import pytest
from django.test import Client

from playground.models import RunAction
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
