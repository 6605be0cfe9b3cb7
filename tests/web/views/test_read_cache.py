"""Read-only links served from the page cache: a hit carries the viewer's own CSRF token (its
fork form works), an edit shows at once, owners and pinned-run viewers with answers are not
served from it."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from playground.models import Run, Scenario
from playground.views.read_cache import HEADER, SENTINEL

pytestmark = pytest.mark.django_db

GOOD = (
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus:\n  capacity: {cpu: '4', memory: 8Gi}\n---\n"
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default}\nspec:\n  containers:\n"
    "  - name: c\n    image: i\n    resources: {requests: {cpu: 100m}}\n"
)
TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@pytest.fixture(autouse=True)
def empty_cache() -> None:
    cache.clear()


@pytest.fixture
def scenario(client: Client) -> Scenario:
    response = client.post(
        "/scenarios/", {"name": "Shared", "description": "", "seed": "0", "file": SimpleUploadedFile("s.yaml", GOOD.encode())}
    )
    return Scenario.objects.get(share_token=response["Location"].split("/")[2])


def test_read_only_scenario_page_is_cached_with_each_viewers_token(client: Client, scenario: Scenario) -> None:
    url = f"/scenarios/{scenario.share_token}/"
    first, second = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    a = first.get(url)
    b = second.get(url)
    assert (a[HEADER], b[HEADER]) == ("miss", "hit")
    body = b.content.decode()
    assert SENTINEL not in body and "Shared" in body
    assert TOKEN.findall(a.content.decode()) and TOKEN.findall(body)
    # The hit's token is the second viewer's: its fork (a POST checked for CSRF) goes through.
    fork = second.post(url, {"action": "fork", "csrfmiddlewaretoken": TOKEN.findall(body)[0]})
    assert fork.status_code == 302
    # The owner edits: the next read-only view shows it.
    client.post(url, {"action": "update_details", "details-name": "Renamed", "details-description": "", "details-seed": "0"})
    c = first.get(url)
    assert c[HEADER] == "miss" and "Renamed" in c.content.decode()
    # The owner's own page is never cached.
    assert HEADER not in client.get(url)


def test_pinned_run_link_and_the_live_page_of_readers_are_cached(client: Client, scenario: Scenario) -> None:
    response = client.post(f"/scenarios/{scenario.share_token}/runs/")
    run = Run.objects.get(share_token=response["Location"].split("/")[2])
    reader = Client()
    url = f"/runs/{run.share_token}/"
    assert reader.get(url, {"step": 0})[HEADER] == "miss"
    assert reader.get(url, {"step": 0})[HEADER] == "hit"
    assert reader.get(url)[HEADER] == "miss"  # the live head: once per run state (test_live_page_cache.py)
    assert reader.get(url)[HEADER] == "hit"
    assert HEADER not in client.get(url)  # the owner's live page
    assert HEADER not in client.get(url, {"step": 0})  # the owner
