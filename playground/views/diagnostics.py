"""The diagnostics page: a ping through web, Celery worker, Redis and websockets."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from playground.selectors.diagnostics import recent_pings
from playground.services import diagnostics as diagnostics_service
from playground.services import rate_limit


@require_http_methods(["GET", "POST"])
def diagnostics(request: HttpRequest) -> HttpResponse:
    """GET: the page. POST (the "Send ping" button): queue a ping, answer with its status line.
    In production only staff see it (DIAGNOSTICS_PUBLIC); pings are rate-limited per client."""
    if not diagnostics_allowed(request):
        return redirect_to_login(request.get_full_path(), reverse("admin:login"))
    if request.method == "POST":
        limit = settings.DIAGNOSTICS_PINGS_PER_MINUTE
        if not rate_limit.allow(f"ping:{rate_limit.client_key(request)}", limit=limit):
            return HttpResponse(
                f"Too many pings: at most {limit} a minute. Try again shortly.", status=429, content_type="text/plain"
            )
        ping = diagnostics_service.request_ping()
        return render(request, "playground/diagnostics/partials/ping_queued.html", {"ping": ping})
    return render(request, "playground/diagnostics/index.html", {"pings": recent_pings()})


def diagnostics_allowed(request: HttpRequest) -> bool:
    user = getattr(request, "user", None)
    return bool(settings.DIAGNOSTICS_PUBLIC or (user is not None and user.is_active and user.is_staff))
