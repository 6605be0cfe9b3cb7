"""The challenge builder's goals (YAML a teacher types) with an integer too long to convert are
refused under the goals, saying so; nothing is saved and nothing answers 500."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from playground.ownership import Actor
from playground.services.scenarios import scenario_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("channel_layer")]
TEACHER = Actor(session_token="teacher-numbers")
NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: a}\nstatus: {capacity: {cpu: '8', pods: '110'}}\n"


def test_goals_with_a_5000_digit_integer_are_refused() -> None:
    scenario = scenario_create(actor=TEACHER, name="c", yaml_text=NODE)
    client = Client()
    session = client.session
    session["playground_owner_token"] = TEACHER.session_token
    session.save()
    response = client.post(reverse("playground:challenge_builder", args=[scenario.share_token]),
                           {"title": "t", "task": "Do it.", "goals": "- minBound: " + "9" * 5000 + "\n", "hints": ""})
    assert response.status_code in (200, 400)
    page = response.content.decode()
    assert "goals" in page and "integer of 5,000 digits is too large" in page, page[:3000]
    assert not scenario.kube_objects.filter(kind="Challenge").exists()
