"""The teacher's live results page of a challenge: learners by nickname, attempts, who solved
it, and the most common wrong answer; owner only."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from playground.models import RunAction
from playground.ownership import Actor
from playground.services.runs import actions as svc
from playground.services.scenarios import scenario_create, scenario_fork, scenario_import_yaml
from tests.web.services.runs.test_runs_services import act, inline_worker  # noqa: F401  (fixture)
from tests.web.services.test_challenges import GALLERY

pytestmark = pytest.mark.django_db
TEACHER = Actor(session_token="teacher-token")


def _client(token: str) -> Client:
    client = Client()
    session = client.session
    session["playground_owner_token"] = token
    session.save()
    return client


def _attempt(scenario: Any, actor: Actor, text: str | None = None) -> None:
    fork = scenario_fork(scenario=scenario, actor=actor)
    if text is not None:
        scenario_import_yaml(scenario=fork, actor=actor, text=text)
    run = svc.run_start(scenario=fork, actor=actor)
    original_owner = run.owner_token
    assert original_owner == actor.session_token
    act_as(run, actor)


def act_as(run: Any, actor: Actor) -> None:
    from tests.web.services.runs import test_runs_services

    saved = test_runs_services.OWNER
    test_runs_services.OWNER = actor
    try:
        act(run, RunAction.KIND_PLAY)
    finally:
        test_runs_services.OWNER = saved


def test_the_teacher_sees_nicknames_attempts_solved_and_the_common_wrong_answer(inline_worker: list) -> None:  # noqa: F811
    scenario = scenario_create(actor=TEACHER, name="one victim",
                               yaml_text=(GALLERY / "challenge-one-victim.yaml").read_text())
    ada, bo = Actor(session_token="ada-token"), Actor(session_token="bo-token")
    for actor, nickname in ((ada, "Ada"), (bo, "Bo")):
        response = _client(actor.session_token).post(
            reverse("playground:challenge_builder", args=[scenario.share_token]),
            {"action": "nickname", "nickname": nickname})
        assert response.status_code == 302
    solution = (GALLERY / "solutions" / "challenge-one-victim.yaml").read_text()
    _attempt(scenario, ada)  # unchanged: important cannot preempt
    _attempt(scenario, ada, solution)
    _attempt(scenario, bo)

    url = reverse("playground:challenge_results", args=[scenario.share_token])
    assert _client("ada-token").get(url).status_code == 403  # learners do not see the class
    page = _client(TEACHER.session_token).get(url).content.decode()
    assert 'ws-connect="/ws/challenges/' in page and "every 3s" not in page  # pushed, not polled
    table = _client(TEACHER.session_token).get(url, {"part": "table"}).content.decode()
    assert "<strong>1</strong> of 2 learners solved it." in table
    assert "<td>Ada</td><td>2</td><td>2</td><td>✓ solved</td>" in table
    assert "<td>Bo</td><td>1</td><td>1</td><td>—</td>" in table
    assert "Most common wrong answer (2 attempts)" in table
    assert "important preempts exactly 1 pod: important preempted 0" in table
