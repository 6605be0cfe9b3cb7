"""config.asgi_handler: an HTTP request's middleware chain and view run in one call on the
request's thread, not handed back and forth between that thread and the event loop."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from asgiref import sync
from asgiref.testing import ApplicationCommunicator
from django.core.handlers.asgi import ASGIHandler

from config.asgi_handler import SyncChainASGIHandler

pytestmark = pytest.mark.django_db(transaction=True)


def _serve(handler: ASGIHandler, path: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, bytes, dict[str, int]]:
    """GET `path` through `handler`; the response's status and body, and how often the request
    crossed between its thread and the event loop (each way)."""
    crossings = {"to_loop": 0, "to_thread": 0}
    to_loop, to_thread = sync.AsyncToSync.__call__, sync.SyncToAsync.__call__

    def counted_to_loop(self: Any, *args: Any, **kwargs: Any) -> Any:
        crossings["to_loop"] += 1
        return to_loop(self, *args, **kwargs)

    async def counted_to_thread(self: Any, *args: Any, **kwargs: Any) -> Any:
        crossings["to_thread"] += 1
        return await to_thread(self, *args, **kwargs)

    monkeypatch.setattr(sync.AsyncToSync, "__call__", counted_to_loop)
    monkeypatch.setattr(sync.SyncToAsync, "__call__", counted_to_thread)
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
        "headers": [(b"host", b"testserver")], "client": ("127.0.0.1", 5000), "server": ("testserver", 80),
    }

    async def exchange() -> tuple[int, bytes]:
        communicator = ApplicationCommunicator(handler, scope)
        await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
        start = await communicator.receive_output(30)
        body = b""
        while True:
            message = await communicator.receive_output(30)
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        await communicator.wait(30)
        return start["status"], body

    result: list[Any] = []
    runner = threading.Thread(target=lambda: result.append(asyncio.run(exchange())))  # a loop of its own
    runner.start()
    runner.join(60)
    monkeypatch.undo()
    status, body = result[0]
    return status, body, crossings


def test_a_request_meets_the_event_loop_only_to_arrive_answer_and_close(monkeypatch: pytest.MonkeyPatch) -> None:
    status, body, crossings = _serve(SyncChainASGIHandler(), "/docs/", monkeypatch)
    assert status == 200 and b"<html" in body.lower()
    # request_started's receivers, the whole chain, the response's close: three calls to the
    # request's thread and never one back to the loop in between.
    assert crossings == {"to_loop": 0, "to_thread": 3}
    # Django's own handler crosses back and forth for the same page (a sync middleware between
    # async-capable ones, each sync process_view, the view).
    status, _, django_crossings = _serve(ASGIHandler(), "/docs/", monkeypatch)
    assert status == 200
    assert django_crossings["to_loop"] >= 1 and django_crossings["to_thread"] > 3
