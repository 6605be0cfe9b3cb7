from __future__ import annotations

from playground.models import DiagnosticPing


def recent_pings(*, limit: int = 10) -> list[DiagnosticPing]:
    """The latest answered pings, newest first."""
    return list(DiagnosticPing.objects.filter(answered_at__isnull=False).order_by("-id")[:limit])
