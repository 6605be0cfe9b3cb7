"""The live run page of a read-only viewer is rendered once per run state and shared: a hundred
readers (or one reloading as fast as it can) cost one render until the run moves. Each viewer
still gets its own CSRF token; owners, followers and viewers with lesson answers are rendered
for themselves. Real database and Redis, the worker's code run inline."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from playground.models import RunAction
from playground.ownership import SESSION_KEY
from playground.views.read_cache import HEADER, SENTINEL
from tests.web.services.runs.test_runs_services import OWNER, act, gallery_scenario, inline_worker, start  # noqa: F401

pytestmark = pytest.mark.django_db
TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
STEP = re.compile(r'id="run-step">(\d+)<')


@pytest.fixture(autouse=True)
def empty_cache() -> None:
    cache.clear()


def test_readers_share_one_render_per_run_state(inline_worker: list) -> None:  # noqa: F811
    run = start("priority-preemption")
    url = f"/runs/{run.share_token}/"
    first, second = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    a, b = first.get(url), second.get(url)
    assert (a[HEADER], b[HEADER]) == ("miss", "hit")
    body = b.content.decode()
    assert SENTINEL not in body and STEP.search(body).group(1) == "0"
    # the hit carries the second reader's own token: its fork goes through the CSRF check
    fork = second.post(url, {"action": "fork", "csrfmiddlewaretoken": TOKEN.findall(body)[0]})
    assert fork.status_code == 302
    # The run moves: the next reader gets the new head, rendered once again.
    act(run, RunAction.KIND_STEP)
    c, d = first.get(url), second.get(url)
    assert (c[HEADER], d[HEADER]) == ("miss", "hit")
    assert STEP.search(d.content.decode()).group(1) == "1"


def test_a_queued_action_is_a_new_state() -> None:
    run = start("priority-preemption")
    url = f"/runs/{run.share_token}/"
    reader = Client()
    assert reader.get(url)[HEADER] == "miss" and reader.get(url)[HEADER] == "hit"
    RunAction.objects.create(run=run, index=1, kind=RunAction.KIND_STEP)  # queued, not run
    again = reader.get(url)
    assert again[HEADER] == "miss" and "1 action queued" in again.content.decode()


def test_owners_followers_and_learners_with_answers_are_rendered_for_themselves(client: Client) -> None:
    run = svc_start_lesson()
    url = f"/runs/{run.share_token}/"
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    assert HEADER not in client.get(url) and HEADER not in client.get(url)  # the owner, twice
    follower = Client()
    assert HEADER not in follower.get(url, {"follow": "1"}) and HEADER not in follower.get(url, {"follow": "1"})
    learner = Client()
    assert learner.get(url)[HEADER] in ("miss", "hit")
    learner.post(url, {"action": "predict", "index": "1", "answer": "large"}, HTTP_HX_REQUEST="true")
    assert HEADER not in learner.get(url)  # its answers are on its page


def svc_start_lesson() -> Any:
    from playground.services.runs import actions as svc

    return svc.run_start(scenario=gallery_scenario("resource-fit"), actor=OWNER)


def test_viewers_asking_at_once_wait_for_one_render() -> None:
    """A page being rendered is not rendered again by the viewers who ask meanwhile: they wait
    and are served its copy (before, each started its own: a class opening the live page of a
    run that had just moved rendered it once per viewer)."""
    import threading
    import time

    from django.http import HttpResponse
    from django.test import RequestFactory

    from playground.views import read_cache

    renders: list[int] = []
    started, release = threading.Event(), threading.Event()

    def render() -> HttpResponse:
        renders.append(1)
        if len(renders) == 1:
            started.set()
            release.wait(10)
        return HttpResponse("<p>the page</p>")

    answers: list[HttpResponse] = []

    def ask() -> None:
        answers.append(read_cache.serve(RequestFactory().get("/runs/x/"), "read-only:test:single-flight", render))

    first = threading.Thread(target=ask)
    first.start()
    assert started.wait(10)
    others = [threading.Thread(target=ask) for _ in range(5)]
    for thread in others:
        thread.start()
    # Give the others the time to start their own render, were they allowed to (bounded wait;
    # the assertion below does not depend on it).
    for _ in range(20):
        if len(renders) == len(others) + 1:
            break
        time.sleep(0.1)
    release.set()
    for thread in [first, *others]:
        thread.join(10)
    assert len(renders) == 1
    assert sorted(a[read_cache.HEADER] for a in answers) == ["hit"] * 5 + ["miss"]
