"""The diagnostics ping's row."""

from __future__ import annotations

from django.db import models


class DiagnosticPing(models.Model):
    """One round trip through the stack: web request -> Celery worker -> websocket push."""

    requested_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    answered_by = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"ping #{self.pk}"

    @property
    def round_trip_ms(self) -> int | None:
        if self.answered_at is None:
            return None
        return round((self.answered_at - self.requested_at).total_seconds() * 1000)
