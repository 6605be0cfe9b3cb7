"""20 Step requests at once, from two sessions of the run's owner, through the web server, Redis and a
real Celery worker: every request is queued once, every step is executed once, and the stored
log is exactly the headless engine's 20 steps (no frame or event lost or duplicated)."""

from __future__ import annotations

import re
import threading
import urllib.error
import urllib.request
from http.cookies import SimpleCookie
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client

from playground.models import RunAction, RunFrame
from playground.ownership import Actor
from playground.services import scenarios as scenario_service
from playground.services.runs import actions as svc
from playground.services.runs import engine as run_engine
from tests.web.services.runs.test_runs_live import _many_pods_yaml, _wait

pytestmark = pytest.mark.live

STEPS, SESSIONS = 20, 2


class Session:
    """One browser session of the owner, spoken to over plain HTTP (thread-safe enough: each
    request is its own connection)."""

    def __init__(self, live_url: str, session_key: str) -> None:
        self.live_url = live_url
        self.cookies = {settings.SESSION_COOKIE_NAME: session_key}
        self.csrf = ""

    def _open(self, path: str, data: bytes | None = None, headers: dict[str, str] | None = None) -> tuple[int, str]:
        cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        request = urllib.request.Request(
            self.live_url + path, data=data, headers={"Cookie": cookie, **(headers or {})}
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, body, set_cookies = response.status, response.read().decode(), response.headers.get_all("Set-Cookie")
        except urllib.error.HTTPError as error:
            status, body, set_cookies = error.code, error.read().decode(), error.headers.get_all("Set-Cookie")
        for header in set_cookies or []:
            for name, morsel in SimpleCookie(header).items():
                self.cookies[name] = morsel.value
        return status, body

    def open_page(self, path: str) -> str:
        status, body = self._open(path)
        assert status == 200, body[:500]
        self.csrf = re.search(r'"X-CSRFToken": "([^"]+)"', body).group(1)
        return body

    def step(self, path: str) -> tuple[int, str]:
        return self._open(
            path,
            data=b"action=step",
            headers={
                "Content-Type": "application/x-www-form-urlencoded",
                "HX-Request": "true",
                "X-CSRFToken": self.csrf,
                "Referer": self.live_url + path,
            },
        )


def test_twenty_concurrent_steps_from_two_sessions_lose_and_duplicate_nothing(
    transactional_db: None, live_url: str, celery_worker: Any
) -> None:
    user = get_user_model().objects.create_user("stepper", password="x")
    scenario = scenario_service.scenario_create(
        actor=Actor(user=user), name="many pods", yaml_text=_many_pods_yaml(pods=40)
    )
    run = svc.run_start(scenario=scenario, actor=Actor(user=user))
    path = f"/runs/{run.share_token}/"
    sessions = []
    for _ in range(SESSIONS):  # two sign-ins: two sessions, each its own cookie
        client = Client()
        client.force_login(user)
        session = Session(live_url, client.cookies[settings.SESSION_COOKIE_NAME].value)
        assert 'id="btn-step"' in session.open_page(path)  # both may drive the run
        sessions.append(session)
    assert sessions[0].cookies[settings.SESSION_COOKIE_NAME] != sessions[1].cookies[settings.SESSION_COOKIE_NAME]

    answers: list[tuple[int, str]] = []
    lock = threading.Lock()
    start = threading.Barrier(STEPS)

    def post(session: Session) -> None:
        start.wait()  # all 20 at once
        answer = session.step(path)
        with lock:
            answers.append(answer)

    threads = [threading.Thread(target=post, args=(sessions[i % SESSIONS],)) for i in range(STEPS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(answers) == STEPS and all(status == 200 for status, _ in answers), answers
    queued = sorted(int(re.search(r'data-action="(\d+)">Queued: step<', body).group(1)) for _, body in answers)
    assert queued == list(range(1, STEPS + 1))  # each request its own action, none lost

    _wait(
        lambda: not RunAction.objects.filter(run=run).exclude(state=RunAction.STATE_DONE).exists(),
        120,
        "the worker to execute the 20 steps",
    )
    run.refresh_from_db()
    actions = list(run.actions.order_by("index").values_list("index", "first_step", "last_step", "result"))
    assert [(i, first, last) for i, first, last, _ in actions] == [(i, i, i) for i in range(1, STEPS + 1)]
    steps = list(RunFrame.objects.filter(run=run).order_by("step").values_list("step", flat=True))
    assert steps == list(range(0, STEPS + 1))  # frame 0 (the start) and one frame per step
    stored = list(run.events.order_by("seq").values_list("data", flat=True))
    assert [e["seq"] for e in stored] == list(range(1, len(stored) + 1))  # no gap, no duplicate
    headless = run_engine.load_simulation(run.scenario_yaml, run.seed)
    results = [headless.step(run.max_time) for _ in range(STEPS)]
    assert stored == headless.sink.events
    assert [result for *_, result in actions] == results
