"""The diagnostics ping: proves web, Celery worker, Redis and websockets work together."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from playground.groups import DIAGNOSTICS_GROUP, push_template
from playground.infra.queues import send_task
from playground.models import DiagnosticPing

PING_TASK = "playground.answer_ping"  # playground/tasks/diagnostics.py, sent by name


def request_ping() -> DiagnosticPing:
    """Record a ping and have a Celery worker answer it once the row is committed."""
    ping = DiagnosticPing.objects.create()
    transaction.on_commit(lambda: send_task(PING_TASK, (ping.pk,)))
    return ping


def answer_ping(*, ping_id: int, worker: str) -> DiagnosticPing:
    """Mark the ping answered (in the worker) and push the result to every diagnostics page."""
    ping = DiagnosticPing.objects.get(pk=ping_id)
    if ping.answered_at is None:  # a redelivered task answers once
        ping.answered_at = timezone.now()
        ping.answered_by = worker
        ping.save(update_fields=["answered_at", "answered_by"])
    push_template(DIAGNOSTICS_GROUP, "playground/diagnostics/partials/ping_result_oob.html", {"ping": ping})
    return ping
