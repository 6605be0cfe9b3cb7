"""Views: one per page, thin; the work happens in services and selectors."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_http_methods

from playground.selectors.diagnostics import recent_pings
from playground.services import diagnostics as diagnostics_service


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "playground/home.html")


@require_http_methods(["GET", "POST"])
def diagnostics(request: HttpRequest) -> HttpResponse:
    """GET: the page. POST (the "Send ping" button): queue a ping, answer with its status line."""
    if request.method == "POST":
        ping = diagnostics_service.request_ping()
        return render(request, "playground/partials/ping_queued.html", {"ping": ping})
    return render(request, "playground/diagnostics.html", {"pings": recent_pings()})
