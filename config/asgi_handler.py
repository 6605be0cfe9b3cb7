"""Django's ASGI handler with the whole middleware chain and the view on one thread.

Django's own ASGI handler builds its middleware chain for the event loop: every sync
middleware, every sync `process_view` and the sync view itself is a hand-over between the
event loop and the request's thread (`async_to_sync` one way, `sync_to_async` the other).
Each hand-over waits for the event loop's turn, and in a web process that also serves a
class's websockets the loop is seldom idle: a page made ten such trips (nine to the thread, one
back), and a Step post spent about a hundred milliseconds in the web process for some fifteen of
its own work.

This project's middleware and views are all synchronous, so the chain is loaded in sync mode
(as under WSGI) and run in one `sync_to_async` call on the request's thread: the request
meets the event loop when it arrives, when its response is ready and when it is closed.
Everything else (reading the body, streaming, disconnects) stays Django's.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.http import HttpRequest, HttpResponseBase


class SyncChainASGIHandler(ASGIHandler):
    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)

    async def get_response_async(self, request: HttpRequest) -> HttpResponseBase:
        # thread_sensitive: the thread of this request's ThreadSensitiveContext (Django's
        # handler opens one per request), where its signals and `response.close` run too.
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)


def get_asgi_application() -> Any:
    """As django.core.asgi.get_asgi_application, with this handler."""
    import django

    django.setup(set_prefix=False)
    return SyncChainASGIHandler()
