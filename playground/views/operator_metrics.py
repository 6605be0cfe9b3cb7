"""/metrics: the web app's operational metrics in the Prometheus text format, for the operator.
Staff only (sign in at /admin/) unless METRICS_PUBLIC is set."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from playground.monitoring.registry import scrape

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def may_scrape(request: HttpRequest) -> bool:
    user = getattr(request, "user", None)
    return bool(settings.METRICS_PUBLIC or (user is not None and user.is_active and user.is_staff))


@require_GET
def operator_metrics(request: HttpRequest) -> HttpResponse:
    if not may_scrape(request):
        return HttpResponse("Metrics are for staff: sign in at /admin/, or set METRICS_PUBLIC=true.\n",
                            status=403, content_type="text/plain; charset=utf-8")
    return HttpResponse(scrape(), content_type=CONTENT_TYPE)
