"""/metrics, the operator's: staff only unless METRICS_PUBLIC; requests (django-prometheus),
websocket connections, Celery queue depth and the runs' stored steps, read with a Prometheus
text parser."""

from __future__ import annotations

import os
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from config.asgi import application
from playground.infra import redis_client
from playground.infra.queues import runs_queue
from playground.models import RunAction
from playground.monitoring.instruments import WEBSOCKET_CONNECTIONS
from tests.web.call_async import call_async
from tests.web.services.runs.test_runs_services import (
    act,
    inline_worker,  # noqa: F401  (fixture)
    start,
)

pytestmark = [pytest.mark.django_db]


def _values(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for fam in text_string_to_metric_families(text) for s in fam.samples}


def test_metrics_are_staff_only_unless_public(client: Client, settings: Any) -> None:
    settings.METRICS_PUBLIC = False
    assert client.get("/metrics").status_code == 403
    User.objects.create_user("plain", password="pw")
    client.login(username="plain", password="pw")
    assert client.get("/metrics").status_code == 403
    User.objects.create_user("staff", password="pw", is_staff=True)
    client.login(username="staff", password="pw")
    response = client.get("/metrics")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain; version=0.0.4")
    names = {fam.name for fam in text_string_to_metric_families(response.content.decode())}
    assert "django_http_requests_total_by_method" in names  # the request counts (django-prometheus)
    client.logout()
    settings.METRICS_PUBLIC = True
    assert client.get("/metrics").status_code == 200


def test_steps_and_queue_depth_come_from_redis(client: Client, settings: Any, inline_worker: list) -> None:  # noqa: F811
    settings.METRICS_PUBLIC = True
    run = start()
    before = _values(client.get("/metrics").content.decode())
    assert before[("playground_redis_up", ())] == 1
    act(run, RunAction.KIND_STEP)
    act(run, RunAction.KIND_STEP)
    after = _values(client.get("/metrics").content.decode())
    assert after[("playground_run_steps_total", ())] - before[("playground_run_steps_total", ())] == 2

    queue = runs_queue() or "celery"
    redis = redis_client.shared()
    redis.lpush(f"{queue}", b"waiting-task")
    try:
        depth = _values(client.get("/metrics").content.decode())[("playground_celery_queue_depth", (("queue", queue),))]
    finally:
        redis.lrem(queue, 0, b"waiting-task")
    assert depth == before.get(("playground_celery_queue_depth", (("queue", queue),)), 0) + 1


@pytest.mark.usefixtures("channel_layer")
def test_websocket_connections_are_counted_while_open() -> None:
    gauge = WEBSOCKET_CONNECTIONS.labels("diagnostics")

    async def scenario() -> tuple[float, float]:
        communicator = WebsocketCommunicator(
            application, "/ws/diagnostics/", headers=[(b"host", b"localhost"), (b"origin", b"http://localhost")])
        connected, _ = await communicator.connect(timeout=5)
        assert connected
        await communicator.receive_from(timeout=5)
        open_now = gauge._value.get()
        await communicator.disconnect()
        return open_now, gauge._value.get()

    start_value = gauge._value.get()
    open_now, closed = call_async(scenario)
    assert (open_now, closed) == (start_value + 1, start_value)


def test_web_processes_share_a_fresh_metrics_directory(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from playground.infra.web_processes import metrics_dir

    given = tmp_path / "prom"
    given.mkdir()
    (given / "counter_123.db").write_bytes(b"stale")
    (given / "keep.txt").write_text("not ours")
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(given))
    assert metrics_dir() == (str(given), False)
    assert sorted(p.name for p in given.iterdir()) == ["keep.txt"]  # a previous server's files go
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")
    made, own = metrics_dir()
    try:
        assert own and os.environ["PROMETHEUS_MULTIPROC_DIR"] == made and os.path.isdir(made)
    finally:
        os.rmdir(made)
        os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)  # set by metrics_dir, not by monkeypatch
