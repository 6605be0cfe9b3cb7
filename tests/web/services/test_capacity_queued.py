"""A scenario past the request's bounds is counted by a worker: the capacity page queues one task
(however many viewers ask), answers "Counting…" with a fragment that polls, and shows the answer
once the task's real body has stored it. No worker takes the queued task here until the test
runs it; the store is the session's real Redis. (tests/web/services/test_capacity_worker_live.py: the
same with a real worker.)"""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.urls import reverse

from playground.infra import redis_client
from playground.models import Scenario
from playground.services import capacity as capacity_service
from playground.services import capacity_queued
from playground.services.scenarios import scenario_create
from playground.tasks.capacity import capacity_scenario_task
from tests.web.services.runs.test_runs_services import OWNER
from tests.web.services.test_capacity_page import CLUSTER, PASTED

pytestmark = [pytest.mark.django_db]
HX = {"HTTP_HX_REQUEST": "true"}


def forget_counts() -> None:
    client = redis_client.shared()
    for key in client.scan_iter("playground:capacity:*"):
        client.delete(key)


@pytest.fixture
def queued_jobs(monkeypatch: pytest.MonkeyPatch, settings: Any, redis_url: str) -> list[capacity_queued.Job]:
    """The jobs sent to the workers; the request's bound is 2 nodes, so the 3-node cluster is "big"."""
    settings.REDIS_URL = redis_url
    forget_counts()
    monkeypatch.setattr(capacity_service, "MAX_NODES", 2)
    sent: list[capacity_queued.Job] = []
    monkeypatch.setattr(capacity_queued, "send", sent.append)
    return sent


@pytest.fixture
def counted_here(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The counts made in this process (the request's path), by pod."""
    calls: list[str] = []
    real = capacity_service.count_capacity

    def counted(sim: Any, tpl: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(tpl.base_name)
        return real(sim, tpl, *args, **kwargs)

    monkeypatch.setattr(capacity_service, "count_capacity", counted)
    return calls


def _scenario() -> Scenario:
    return scenario_create(actor=OWNER, name="three nodes", yaml_text=CLUSTER)


def _text(page: str, element_id: str) -> str:
    m = re.search(rf'id="{element_id}"[^>]*>(.*?)</(h2|blockquote|table|p)>', page, re.S)
    assert m, f"no #{element_id}"
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", m.group(1))).strip()


def test_a_big_scenario_is_counted_by_one_task_while_the_page_polls(
    client: Any, queued_jobs: list[capacity_queued.Job], counted_here: list[str]
) -> None:
    scenario = _scenario()
    deployment = scenario.kube_objects.get(kind="Deployment")
    url = reverse("playground:scenario_capacity", args=[scenario.share_token])
    params = {"pod": str(deployment.pk), "max": "100"}
    first = client.get(url, params)
    assert first.status_code == 200
    html = unescape(first.content.decode())
    assert 'id="capacity-pending"' in html and 'hx-trigger="every 1s"' in html
    assert f'hx-get="{url}?pod={deployment.pk}&max=100"' in html
    assert "Counting…" in html and "up to 100 copies" in html and 'id="capacity-answer"' not in html
    # A second viewer, and the first one's poll: still counting, and no second task.
    assert 'id="capacity-pending"' in client.get(url, params).content.decode()
    assert 'id="capacity-pending"' in client.get(url, params, **HX).content.decode()
    assert len(queued_jobs) == 1 and counted_here == []

    capacity_scenario_task(queued_jobs[0].as_dict())  # the worker's part
    polled = unescape(client.get(url, params, **HX).content.decode())
    assert "<html" not in polled and 'id="capacity-pending"' not in polled
    assert _text(polled, "capacity-count") == "6 copies of default/api fit"
    assert "1 node(s) had untolerated taint(s), 2 Insufficient cpu" in _text(polled, "capacity-reason")
    # Stored: the next visit reads it; nothing is counted or queued again.
    assert 'id="capacity-answer"' in client.get(url, params).content.decode()
    assert len(queued_jobs) == 1 and counted_here == []


def test_another_question_or_a_changed_scenario_is_another_count(
    client: Any, queued_jobs: list[capacity_queued.Job]
) -> None:
    scenario = _scenario()
    url = reverse("playground:scenario_capacity", args=[scenario.share_token])
    client.get(url, {"yaml": PASTED, "max": "5"})
    client.get(url, {"yaml": PASTED, "max": "6"})
    assert len(queued_jobs) == 2 and queued_jobs[0].key != queued_jobs[1].key
    capacity_scenario_task(queued_jobs[0].as_dict())
    page = unescape(client.get(url, {"yaml": PASTED, "max": "5"}).content.decode())
    assert _text(page, "capacity-count") == "2 copies of default/web fit"  # 2-cpu copies: 3 cpu left on a and b
    # The scenario changes after a job was queued: the worker says so instead of counting the new one.
    job = queued_jobs[1]
    scenario.kube_objects.filter(kind="Node", name="node-b").delete()
    capacity_scenario_task(job.as_dict())
    stored = capacity_queued.lookup(job)
    assert isinstance(stored, capacity_queued.Failed) and "changed while its copies were being counted" in stored.message


def test_a_failure_in_the_worker_is_shown_instead_of_polling_forever(
    client: Any, queued_jobs: list[capacity_queued.Job], monkeypatch: pytest.MonkeyPatch
) -> None:
    scenario = _scenario()
    url = reverse("playground:scenario_capacity", args=[scenario.share_token])
    client.get(url, {"yaml": PASTED})
    monkeypatch.setattr(capacity_queued, "WORKER_CPU_BUDGET", -1.0)  # spent before the first copy
    capacity_scenario_task(queued_jobs[0].as_dict())
    page = unescape(client.get(url, {"yaml": PASTED}, **HX).content.decode())
    assert _text(page, "capacity-count").startswith("At least 0 copies of default/web fit")

    forget_counts()
    client.get(url, {"yaml": PASTED})

    def broken(job: capacity_queued.Job) -> None:
        raise RuntimeError("the engine fell over")

    monkeypatch.setattr(capacity_queued, "_count", broken)
    capacity_scenario_task(queued_jobs[1].as_dict())
    page = unescape(client.get(url, {"yaml": PASTED}, **HX).content.decode())
    assert 'id="capacity-pending"' not in page
    assert "The count failed in the worker (RuntimeError: the engine fell over)." in page
