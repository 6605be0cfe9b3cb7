"""The teacher's results table is pushed over the websocket (real Redis channel layer) when a
learner joins and when a learner starts an attempt; only the challenge's owner may connect."""

from __future__ import annotations

from importlib import import_module
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client
from django.urls import reverse

from config.asgi import application
from playground.ownership import Actor
from playground.services.runs import actions as svc
from playground.services.scenarios import scenario_create, scenario_fork
from tests.web.call_async import call_async
from tests.web.services.test_challenges import GALLERY

pytestmark = [pytest.mark.usefixtures("channel_layer"), pytest.mark.django_db(transaction=True)]
TEACHER = Actor(session_token="teacher-live-token")
ADA = Actor(session_token="ada-live-token")


def _cookie(token: str) -> bytes:
    store = import_module(settings.SESSION_ENGINE).SessionStore()
    store["playground_owner_token"] = token
    store.save()
    return f"{settings.SESSION_COOKIE_NAME}={store.session_key}".encode()


def _socket(token: str, owner_token: str) -> WebsocketCommunicator:
    return WebsocketCommunicator(application, f"/ws/challenges/{token}/results/", headers=[
        (b"host", b"localhost"), (b"origin", b"http://localhost"), (b"cookie", _cookie(owner_token))])


def _join(scenario: Any, actor: Actor, nickname: str) -> None:
    client = Client()
    session = client.session
    session["playground_owner_token"] = actor.session_token
    session.save()
    response = client.post(reverse("playground:challenge_builder", args=[scenario.share_token]),
                           {"action": "nickname", "nickname": nickname})
    assert response.status_code == 302


def test_joins_and_attempts_are_pushed_to_the_teacher() -> None:
    scenario = scenario_create(actor=TEACHER, name="one victim",
                               yaml_text=(GALLERY / "challenge-one-victim.yaml").read_text())
    teacher, stranger = _socket(scenario.share_token, TEACHER.session_token), _socket(scenario.share_token, "x")

    async def scenario_steps() -> tuple[list[str], bool]:
        from asgiref.sync import sync_to_async

        refused, _ = await stranger.connect(timeout=5)
        connected, _ = await teacher.connect(timeout=5)
        assert connected
        seen = [await teacher.receive_from(timeout=5)]  # the table as of connecting
        await sync_to_async(_join)(scenario, ADA, "Ada")
        seen.append(await teacher.receive_from(timeout=5))
        fork = await sync_to_async(scenario_fork)(scenario=scenario, actor=ADA)
        await sync_to_async(svc.run_start)(scenario=fork, actor=ADA)
        seen.append(await teacher.receive_from(timeout=5))
        await teacher.disconnect()
        return seen, refused

    seen, refused = call_async(scenario_steps)
    assert refused is False
    assert all(html.startswith('<div id="challenge-results" hx-swap-oob="innerHTML">') for html in seen)
    assert "Nobody has joined yet." in seen[0]
    assert "<td>Ada</td><td>0</td>" in seen[1]
    assert "<td>Ada</td><td>1</td>" in seen[2]
