"""Pages through Django's test client (no servers)."""

from __future__ import annotations

import pytest
from django.test import Client

from playground.models import DiagnosticPing

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def test_home_links_to_diagnostics(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert 'href="/diagnostics/"' in response.content.decode()


def test_diagnostics_page_loads_htmx_2_with_the_ws_extension(client: Client) -> None:
    html = client.get("/diagnostics/").content.decode()
    assert "django_htmx/htmx-2.min.js" in html
    assert "django_htmx/ext/hx-ws-2.min.js" in html
    assert "htmx-4" not in html
    assert 'ws-connect="/ws/diagnostics/"' in html


def test_posting_a_ping_records_it_and_queues_the_task_after_commit(
    client: Client, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.post("/diagnostics/", HTTP_HX_REQUEST="true")
    ping = DiagnosticPing.objects.get()
    assert response.status_code == 200
    assert f"Ping #{ping.pk} queued" in response.content.decode()
    assert ping.answered_at is None
    assert len(callbacks) == 1  # the Celery task is sent only once the row is committed


def test_answered_pings_are_listed(client: Client) -> None:
    from django.utils import timezone

    DiagnosticPing.objects.create(answered_at=timezone.now(), answered_by="worker@example")
    DiagnosticPing.objects.create()  # not answered yet: not listed
    html = client.get("/diagnostics/").content.decode()
    assert html.count('class="ping-result"') == 1
    assert "worker@example" in html
