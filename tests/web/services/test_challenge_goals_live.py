"""When the teacher changes a challenge's goals, the open results page is pushed the table
judged by the new goals (real Redis channel layer, the real ASGI application)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from playground.ownership import Actor
from playground.services.scenarios import scenario_create
from tests.web.call_async import call_async
from tests.web.presenters.test_challenge_results_live import _socket
from tests.web.services.test_challenges import GALLERY

pytestmark = [pytest.mark.usefixtures("channel_layer"), pytest.mark.django_db(transaction=True)]
TEACHER = Actor(session_token="teacher-goals-live-token")


def _save_goals(share_token: str, goals: str) -> int:
    client = Client()
    session = client.session
    session["playground_owner_token"] = TEACHER.session_token
    session.save()
    return client.post(reverse("playground:challenge_builder", args=[share_token]),
                       {"title": "", "task": "Keep node a empty.", "goals": goals, "hints": ""}).status_code


def test_saving_new_goals_pushes_the_table_judged_by_them() -> None:
    scenario = scenario_create(actor=TEACHER, name="keep a empty",
                               yaml_text=(GALLERY / "challenge-keep-a-empty.yaml").read_text())
    teacher = _socket(scenario.share_token, TEACHER.session_token)

    async def steps() -> list[str]:
        from asgiref.sync import sync_to_async

        connected, _ = await teacher.connect(timeout=5)
        assert connected
        seen = [await teacher.receive_from(timeout=5)]  # the table as of connecting
        assert await sync_to_async(_save_goals)(scenario.share_token, "- podOn: {pod: web-9, node: b}\n") == 400
        assert await sync_to_async(_save_goals)(scenario.share_token, "- allBound: true\n") == 302
        seen.append(await teacher.receive_from(timeout=5))
        await teacher.disconnect()
        return seen

    before, after = call_async(steps)
    assert "node a runs no pod" in before and "every pod is bound" not in before
    assert "judged against the goals as they read now: every pod is bound." in after
