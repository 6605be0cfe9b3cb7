"""The Content-Security-Policy header: scripts only from this site's own files, no eval.

Every script the pages use is a static file (htmx and its websocket extension from django-htmx,
static/js/*.js); htmx is configured not to eval (its trigger filters) nor to inject a <style>.
Inline `style` attributes (bar widths) stay allowed: they cannot run code. `connect-src 'self'`
covers the run page's websocket to the same host.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


class ContentSecurityPolicyMiddleware:
    """Adds the policy to every response that does not set its own."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", POLICY)
        return response
