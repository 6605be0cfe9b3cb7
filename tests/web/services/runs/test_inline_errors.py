"""The run page's forms answer bad input in place: the views' responses (Django's test client,
real database and Redis). An htmx request gets the fragment for its form's slot (the status line
and the error beside the field, or the lesson panel with its error) with a 400; nothing is
queued; a plain request (no JavaScript) gets the page back with the message."""

from __future__ import annotations

import html as html_lib
from typing import Any

import pytest

from playground.models import RunAction
from playground.ownership import SESSION_KEY
from playground.services.runs import actions as svc
from tests.web.services.runs.test_runs_services import OWNER, gallery_scenario, inline_worker, start  # noqa: F401

pytestmark = pytest.mark.django_db


def owner(client: Any) -> Any:
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    return client


def post(client: Any, run: Any, **data: str) -> tuple[int, str]:
    response = client.post(f"/runs/{run.share_token}/", data, HTTP_HX_REQUEST="true")
    return response.status_code, html_lib.unescape(response.content.decode())


def test_a_bad_cluster_value_answers_with_the_error_beside_its_field(client: Any) -> None:
    run = start("priority-preemption")
    status, body = post(owner(client), run, action="cluster", what="addPod", name="extra", cpu="lots")
    assert status == 400
    assert '<p id="run-flash" class="error" role="alert">cpu: invalid quantity "lots"' in body
    assert 'id="form-add-pod-cpu-error" class="field-error" role="alert" hx-swap-oob="true">cpu: invalid quantity' in body
    assert 'id="form-add-pod-name-error" class="field-error" role="status" hx-swap-oob="true"></span>' in body
    assert "<html" not in body and run.actions.count() == 0


def test_let_the_clock_run_names_its_seconds(client: Any) -> None:
    run = start("priority-preemption")
    status, body = post(owner(client), run, action="run_clock", seconds="0")
    assert status == 400
    assert 'id="run-clock-seconds-error" class="field-error" role="alert" hx-swap-oob="true">seconds: \'0\' is out of range' in body
    assert run.actions.count() == 0


def test_a_good_clock_value_clears_its_error(client: Any, inline_worker: list) -> None:  # noqa: F811
    run = start("priority-preemption")
    status, body = post(owner(client), run, action="run_clock", seconds="5")
    assert status == 200 and "Queued: let the clock run 5 s" in body
    assert 'id="run-clock-seconds-error" class="field-error" role="status" hx-swap-oob="true"></span>' in body


@pytest.mark.parametrize(("speed", "why"), [("fast", "is not a number of steps per second"), ("7", "is not one of the speeds")])
def test_a_bad_speed_is_named(client: Any, speed: str, why: str) -> None:
    run = start("priority-preemption")
    status, body = post(owner(client), run, action="speed", speed=speed)
    assert status == 400
    assert f'id="speed-error" class="field-error" role="alert" hx-swap-oob="true">speed: \'{speed}\' {why}' in body
    run.refresh_from_db()
    assert run.speed == 0


@pytest.mark.parametrize("query", ["cycle=-1", "cycle=abc", "step=-2", "step=x"])
def test_a_bad_jump_shows_the_live_page_with_the_error_beside_the_jump_form(client: Any, query: str) -> None:
    run = start("priority-preemption")
    response = owner(client).get(f"/runs/{run.share_token}/?{query}")
    body = html_lib.unescape(response.content.decode())
    name, raw = query.split("=")
    assert response.status_code == 400  # was a 404 page (cycle=-1) or a silent fallback
    assert f'id="jump-cycle-error" role="alert">{name}: \'{raw}\' is not a whole number from 0.</span>' in body
    assert 'id="btn-step"' in body and 'id="cluster-actions"' in body and 'id="pinned-notice"' not in body


def test_a_good_jump_has_an_empty_error_slot(client: Any) -> None:
    run = start("priority-preemption")
    response = client.get(f"/runs/{run.share_token}/?cycle=0")
    assert response.status_code == 200
    assert 'id="jump-cycle-error" role="status"></span>' in response.content.decode()


def test_a_prediction_without_an_answer_keeps_the_lesson_panel(client: Any) -> None:
    run = svc.run_start(scenario=gallery_scenario("resource-fit"), actor=OWNER)
    status, body = post(client, run, action="predict", index="1")
    assert status == 400
    # The form's target is the lesson panel: the answer is that panel, its form and the error in it.
    assert body.startswith('<section id="run-lesson"') and 'id="predict-form"' in body
    assert 'id="predict-error" role="alert">answer: choose one of the answers first.</span>' in body
    assert 'id="run-flash"' not in body


def test_without_javascript_a_refusal_comes_back_as_the_page_with_its_message(client: Any) -> None:
    run = start("priority-preemption")
    url = f"/runs/{run.share_token}/"
    response = owner(client).post(url, {"action": "cluster", "what": "deletePod", "pod": "default/ghost"}, follow=True)
    assert response.status_code == 200 and 'id="btn-step"' in response.content.decode()
    assert 'pod: pod "default/ghost" does not exist' in html_lib.unescape(response.content.decode())
    assert not RunAction.objects.filter(run=run).exists()
