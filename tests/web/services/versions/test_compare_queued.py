"""The compare pages do no engine work in the request: they show a stored comparison, or queue
one task for it (however many viewers ask) and answer a "Comparing…" result that polls.

Before, the GET ran the scenario twice itself (1.2-1.7 s of CPU at 300 nodes x 500 pods, 4.4 s
with a long Timeline: bench/compare_cost.py). Here no worker takes the queued task until the
test runs its real body; the store is the session's real Redis.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from playground.models import Scenario
from playground.ownership import Actor
from playground.services import gallery
from playground.services import scenarios as scenario_service
from playground.services.versions import compare, queued
from playground.tasks.compare import compare_scenario_task
from tests.web.compare_here import forget_comparisons

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "bench"))
from generate import render  # noqa: E402

pytestmark = [pytest.mark.django_db]
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def queued_jobs(monkeypatch: pytest.MonkeyPatch, settings: Any, redis_url: str) -> list[queued.Job]:
    """The jobs sent to the workers (none takes them: the test runs the task when it chooses)."""
    settings.REDIS_URL = redis_url
    forget_comparisons()
    sent: list[queued.Job] = []
    monkeypatch.setattr(queued, "send", sent.append)
    return sent


@pytest.fixture
def runs_here(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The headless runs made in this process, by version."""
    calls: list[str] = []
    real = compare.run_headless

    def counted(text: str, seed: int, version: str, gates: str = "") -> Any:
        calls.append(version)
        return real(text, seed, version, gates)

    monkeypatch.setattr(compare, "run_headless", counted)
    return calls


def test_viewers_get_a_polling_page_and_one_task_until_the_worker_stores_it(
    client: Any, queued_jobs: list[queued.Job], runs_here: list[str]
) -> None:
    gallery.seed()
    scenario = Scenario.objects.get(gallery_slug="dra-gpus")
    url = reverse("playground:scenario_compare", args=[scenario.share_token]) + "?seed=1"
    first = client.get(url)
    assert first.status_code == 200
    html = first.content.decode()
    assert 'id="compare-pending"' in html and 'hx-trigger="every 1s"' in html
    assert f'hx-get="{url}"' in html
    assert "Comparing…" in html and "two runs of up to 50,000 engine steps each: v1.35 and v1.30, seed 1" in html
    assert 'id="compare-first"' not in html
    # A second viewer, and the first one's poll: still pending, and no second task.
    assert 'id="compare-pending"' in client.get(url).content.decode()
    assert 'id="compare-pending"' in client.get(url, **HX).content.decode()
    assert len(queued_jobs) == 1 and runs_here == []

    compare_scenario_task(queued_jobs[0].as_dict())  # the worker's part
    assert runs_here == ["v1.35", "v1.30"]
    polled = client.get(url, **HX).content.decode()
    assert "<html" not in polled and 'id="compare-pending"' not in polled
    assert 'id="compare-first"' in polled and 'data-fact="plugin">DynamicResources<' in polled
    # Stored: later visits read it, nothing is run or queued again.
    assert 'id="compare-first"' in client.get(url).content.decode()
    assert len(queued_jobs) == 1 and runs_here == ["v1.35", "v1.30"]


def test_gates_are_checked_in_the_request_and_keyed_canonically(
    client: Any, queued_jobs: list[queued.Job]
) -> None:
    gallery.seed()
    scenario = Scenario.objects.get(gallery_slug="taint-comparison-operators")
    url = reverse("playground:scenario_compare", args=[scenario.share_token])
    bad = client.get(f"{url}?seed=0&gates=GangScheduling=true")
    assert bad.status_code == 400 and "depends on features that are disabled" in bad.content.decode()
    assert queued_jobs == []
    client.get(f"{url}?seed=0&gates=TaintTolerationComparisonOperators=true")
    client.get(f"{url}?seed=0&gates=TaintTolerationComparisonOperators=1")  # the same gates, spelt otherwise
    assert len(queued_jobs) == 1 and queued_jobs[0].gates == "TaintTolerationComparisonOperators=true"
    assert "with TaintTolerationComparisonOperators=true and with its default gates" in client.get(
        f"{url}?seed=0&gates=").content.decode()


def test_a_comparison_stopped_by_the_time_limit_says_so(
    client: Any, queued_jobs: list[queued.Job], settings: Any
) -> None:
    owner = Actor(session_token="compare-limit")
    scenario = scenario_service.scenario_create(actor=owner, name="big", yaml_text=render(300, 500))
    url = reverse("playground:scenario_compare", args=[scenario.share_token]) + "?seed=1"
    assert 'id="compare-pending"' in client.get(url).content.decode()
    # Far below two runs of this scenario (0.8 s here; 1 s no longer was: the engine got faster).
    settings.PLAYGROUND_TASK_SOFT_TIME_LIMIT = 0.05
    settings.PLAYGROUND_TASK_TIME_LIMIT = 0
    compare_scenario_task(queued_jobs[0].as_dict())
    page = client.get(url)
    assert page.status_code == 400
    assert ("The comparison stopped: it ran longer than the worker&#x27;s 0.05 s time limit "
            "(PLAYGROUND_TASK_SOFT_TIME_LIMIT); nothing of it was kept") in page.content.decode()
    assert len(queued_jobs) == 1  # the failure is shown, not queued again at once


def test_no_worker_reachable_is_said_and_nothing_is_marked(
    client: Any, queued_jobs: list[queued.Job], monkeypatch: pytest.MonkeyPatch
) -> None:
    gallery.seed()
    scenario = Scenario.objects.get(gallery_slug="taints-tolerations")
    url = reverse("playground:scenario_compare", args=[scenario.share_token]) + "?seed=2"

    def down(job: queued.Job) -> None:
        raise ConnectionError("broker down")

    monkeypatch.setattr(queued, "send", down)
    page = client.get(url).content.decode()
    assert "The comparison could not be started: no worker could be reached" in page
    monkeypatch.setattr(queued, "send", queued_jobs.append)
    assert 'id="compare-pending"' in client.get(url).content.decode() and len(queued_jobs) == 1
