"""The story's "each step the last press ran" after a fast-forward: a fast-forward stores up to
2,000 cycles as one step, so each step's line writes out its first happenings and counts the rest
(written out whole it weighed ~430 KB at 5,000 x 10,000: the live update was too large to send)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from playground.models import RunAction
from playground.presenters.runs import story
from tests.web.presenters.runs.test_cluster_map import _page
from tests.web.services.runs.test_runs_services import OWNER, act, inline_worker  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db


def test_a_fast_forwarded_step_is_one_bounded_line(client: Client, inline_worker: list) -> None:  # noqa: F811
    from playground.services.runs.actions import run_start
    from playground.services.scenarios import scenario_create
    from tests.web.scale import big_cluster_yaml

    run = run_start(scenario=scenario_create(actor=OWNER, name="ff", yaml_text=big_cluster_yaml(60, 400)), actor=OWNER)
    act(run, RunAction.KIND_PLAY, {"to": "end"})
    assert run.status == "settled" and run.cycle == 400
    html = _page(client, run)
    at = html.index('id="steps-between"')
    between = html[at: html.index("</details>", at)]
    lines = re.findall(r"<li>.*?</li>", between, re.S)
    assert lines and len(between.encode()) < 8_000, len(between.encode())
    longest = max(lines, key=len)
    assert longest.count("cycle ") <= story.STEP_TEXT_LIMIT + 1 and "more (" in longest
    assert "the event log has each" in longest
