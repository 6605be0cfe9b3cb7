"""Quotas checked before the view runs (playground/services/quotas.py): every request that
creates a scenario, starts or forks a run, steps or plays is counted against its client's quota
first; a spent quota answers HTTP 429 with a message naming the setting, and nothing is done.

Kept out of the views so that every way in is covered in one place (new scenario, upload, fork
of a scenario, start of a run, fork of a run, the run page's Step / Play / Advance clock).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from playground.services import quotas

STEP_ACTIONS = {"step", "step_point", "advance_clock", "play"}
SMALL_POST_BYTES = 64 * 1024


class QuotaMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view: Any, args: Any, kwargs: dict[str, Any]) -> HttpResponse | None:
        match = request.resolver_match
        if request.method != "POST" or match is None or match.namespace != "playground":
            return None
        name = match.url_name
        if name not in ("scenarios", "run_start", "scenario", "run"):
            return None
        if name == "scenario" and self._action(request) != "fork":
            return None
        if name == "run" and self._action(request) not in STEP_ACTIONS | {"fork"}:
            return None
        client = quotas.client_of(request)
        if client.exempt:
            return None
        try:
            if name == "scenarios":
                quotas.check_scenario_create(client)
            elif name == "run_start":
                quotas.check_run_start(client)
            else:
                action = self._action(request)
                if name == "scenario" and action == "fork":
                    quotas.check_scenario_create(client)
                elif name == "run" and action == "fork":
                    quotas.check_run_start(client)
                elif name == "run" and action in STEP_ACTIONS:
                    self._check_step(request, client, kwargs.get("token", ""), action)
        except quotas.QuotaExceeded as error:
            return self._refuse(request, name, error)
        return None

    @staticmethod
    def _action(request: HttpRequest) -> str:
        """The posted action. Only small posts are read here (a fork, a step, a play are a few
        fields): reading a large one would consume it before the view (an editor upload, or
        one too large, which the view explains)."""
        try:
            if int(request.META.get("CONTENT_LENGTH") or 0) > SMALL_POST_BYTES:
                return ""
            return str(request.POST.get("action", ""))
        except (RequestDataTooBig, ValueError):
            return ""

    def _check_step(self, request: HttpRequest, client: quotas.Client, token: str, action: str) -> None:
        from django.http import Http404

        from playground.ownership import actor_for_request, can_control
        from playground.selectors.runs import run_row_by_share_token

        try:
            run = run_row_by_share_token(token=token)
        except Http404:
            return  # the view answers 404
        request.playground_run = run  # the view's own read of it (one query less per action)
        if not can_control(run=run, actor=actor_for_request(request)):
            return  # the view answers 403
        quotas.check_node_steps(client, run.pk)
        if action == "play":
            quotas.check_playing(client, run)
        quotas.remember_client(run.pk, client)

    def _refuse(self, request: HttpRequest, name: str | None, error: quotas.QuotaExceeded) -> HttpResponse:
        if name == "run" and getattr(request, "htmx", False):  # the run page's status line
            context = {"text": error.message, "error": True, "field_errors": []}
            return render(request, "playground/runs/partials/flash.html", context, status=429)
        if getattr(request, "htmx", False):
            return HttpResponse(error.message, status=429, content_type="text/plain; charset=utf-8")
        return render(request, "playground/quota_exceeded.html", {"message": error.message}, status=429)


class ReadLimitMiddleware:
    """Reads (GET, HEAD) of the app's pages and panels limited per client, as writes are by the
    quotas: a client over PLAYGROUND_READS_PER_SECOND gets HTTP 429 with Retry-After and nothing
    is rendered. One client polling a page as fast as it can (the live run page saturated at
    25-30 requests/s from one client) must not slow everyone else's pages.

    The client is its session when the session exists, else its address; counted in Redis
    (every web process shares the count) in fixed windows of one second. Static files, the
    metrics endpoint and websockets are not app views and not counted."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view: Any, args: Any, kwargs: dict[str, Any]) -> HttpResponse | None:
        from django.conf import settings

        from playground.services import rate_limit

        limit = settings.PLAYGROUND_READS_PER_SECOND
        match = request.resolver_match
        if limit <= 0 or request.method not in ("GET", "HEAD") or match is None or match.namespace != "playground":
            return None
        retry_after = rate_limit.hit(f"read:{rate_limit.known_client_key(request)}", limit=limit, window_seconds=1)
        if not retry_after:
            return None
        # Plain text, no template: a refusal must cost far less than the page it refuses.
        response = HttpResponse(read_refusal(limit, retry_after), status=429, content_type="text/plain; charset=utf-8")
        response["Retry-After"] = str(retry_after)
        # Not one warning line per refusal in the server's log: a flood would fill it (Django
        # logs every 4xx unless the response says it has been logged).
        response._has_been_logged = True  # type: ignore[attr-defined]
        return response


def read_refusal(limit: int, retry_after: int) -> str:
    return (
        f"Too many requests: at most {limit} page and panel reads a second per visitor "
        f"(PLAYGROUND_READS_PER_SECOND). Try again in {retry_after} s."
    )


class RefusedReadsGate:
    """ASGI: a GET from a client without a session cookie that this process has just refused
    (ReadLimitMiddleware, its window not over yet) is refused again here, before Django: no
    thread, no middleware, no Redis. A flood is mostly such requests. Anything else (a session
    cookie, which only Django can check; static files; websockets) goes on to `app`."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope.get("method") in ("GET", "HEAD"):
            retry_after = self._refused(scope)
            if retry_after:
                body = read_refusal(self._limit(), retry_after).encode()
                headers = [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    (b"retry-after", str(retry_after).encode()),
                ]
                await send({"type": "http.response.start", "status": 429, "headers": headers})
                await send({"type": "http.response.body", "body": body if scope["method"] == "GET" else b""})
                return
        await self.app(scope, receive, send)

    @staticmethod
    def _limit() -> int:
        from django.conf import settings

        return int(settings.PLAYGROUND_READS_PER_SECOND)

    def _refused(self, scope: dict[str, Any]) -> int:
        from django.conf import settings

        from playground.services import rate_limit

        limit = self._limit()
        client = scope.get("client")
        if limit <= 0 or not client or str(scope.get("path", "")).startswith(str(settings.STATIC_URL or "/static/")):
            return 0
        session_cookie = settings.SESSION_COOKIE_NAME.encode() + b"="
        if any(name == b"cookie" and session_cookie in value for name, value in scope.get("headers", [])):
            return 0
        return rate_limit.refused_for(f"read:ip:{client[0]}", limit=limit)
