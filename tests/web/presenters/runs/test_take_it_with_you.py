"""Item 5 of "Teach III": a run's results download as JSON and CSV, `?` lists the keyboard
shortcuts, and the app links its documentation."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.test import Client
from django.urls import reverse
from playwright.sync_api import Page, expect

from playground.models import RunAction
from tests.web.services.runs.test_runs_services import OWNER, act, inline_worker, start  # noqa: F401  (fixture)


@pytest.mark.django_db
def test_results_export_as_json_and_csv_at_the_head_and_at_a_step(client: Client, inline_worker: list) -> None:  # noqa: F811
    run = start("priority-preemption")
    for _ in range(3):
        act(run, RunAction.KIND_STEP)
    page = client.get(reverse("playground:run", args=[run.share_token])).content.decode()
    assert reverse("playground:run_export_json", args=[run.share_token]) in page
    response = client.get(reverse("playground:run_export_json", args=[run.share_token]))
    assert response["Content-Disposition"].startswith("attachment;")
    data = json.loads(response.content)
    pods = {p["name"]: p for p in data["pods"]}
    assert data["step"] == 3 and pods["payments"]["status"] == "Bound" and pods["payments"]["node"] == "node-1"
    assert pods["batch-1"]["deletedBy"] == "Preempted"
    assert "preemptionPolicy=Never" in pods["reports"]["message"]
    assert {e["reason"] for e in data["failedScheduling"]} == {"FailedScheduling"}
    assert {"Preempted", "FailedScheduling", "Scheduled"} <= {e["reason"] for e in data["events"]}

    at_one = json.loads(client.get(reverse("playground:run_export_json", args=[run.share_token]), {"step": "1"}).content)
    assert at_one["step"] == 1 and {p["name"]: p for p in at_one["pods"]}["payments"]["status"] == "Pending"

    rows = list(csv.DictReader(io.StringIO(
        client.get(reverse("playground:run_export_pods", args=[run.share_token])).content.decode())))
    assert {r["name"]: r["node"] for r in rows}["payments"] == "node-1"
    assert list(rows[0]) == ["namespace", "name", "status", "node", "nominatedNode", "priority", "owner",
                             "deletedBy", "message"]
    events = list(csv.DictReader(io.StringIO(
        client.get(reverse("playground:run_export_events", args=[run.share_token])).content.decode())))
    assert [e["reason"] for e in events] == [e["reason"] for e in data["events"]]
    assert all(e["object"].startswith("pod/") and "/" not in e["object"][4:] for e in events)


def test_csv_cells_that_a_spreadsheet_would_run_are_quoted() -> None:
    from playground.presenters.runs.export import csv_text

    text = "".join(csv_text([{"a": "=HYPERLINK(1)", "b": "plain"}], ["a", "b"]))
    assert text.splitlines()[1] == "'=HYPERLINK(1),plain"


def test_the_app_links_its_docs_and_renders_them(client: Client) -> None:
    home = client.get(reverse("playground:home")).content.decode()
    assert f'href="{reverse("playground:docs")}"' in home
    index = client.get(reverse("playground:docs")).content.decode()
    for slug in ("readme", "lessons", "timeline", "admission"):
        assert reverse("playground:docs_page", args=[slug]) in index
        page = client.get(reverse("playground:docs_page", args=[slug])).content.decode()
        assert "<h1>" in page
    assert "<table>" in client.get(reverse("playground:docs_page", args=["lessons"])).content.decode()
    assert client.get("/docs/not-a-page/").status_code == 404


@pytest.mark.live
def test_question_mark_shows_the_keyboard_shortcuts(page: Page, live_url: str) -> None:
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.goto(live_url + "/")
    dialog = page.locator("#shortcuts")
    expect(dialog).to_be_hidden()
    page.keyboard.press("Shift+Slash")  # "?"
    expect(dialog).to_be_visible()
    expect(page.locator("#shortcuts-table")).to_contain_text("Step")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    page.locator("#shortcuts-button").click()
    expect(dialog).to_be_visible()
    page.locator("#shortcuts-close").click()
    expect(dialog).to_be_hidden()
    page.locator("#docs-link").click()
    expect(page.locator("#docs-list")).to_contain_text("Lesson documents")
    assert not errors, errors


