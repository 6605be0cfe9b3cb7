"""Fragments pushed through the real Redis channel layer reach a websocket consumer."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from playground.groups import DIAGNOSTICS_GROUP, push_fragment
from tests.web.call_async import call_async

# Consumers close stale DB connections on each message, so the database must be reachable.
pytestmark = [pytest.mark.usefixtures("channel_layer"), pytest.mark.django_db]


def test_pushed_fragment_reaches_the_diagnostics_socket() -> None:
    async def scenario() -> tuple[str, str]:
        communicator = WebsocketCommunicator(
            application, "/ws/diagnostics/", headers=[(b"host", b"localhost"), (b"origin", b"http://localhost")]
        )
        connected, _ = await communicator.connect(timeout=5)
        assert connected
        status = await communicator.receive_from(timeout=5)
        await sync_to_async(push_fragment)(DIAGNOSTICS_GROUP, '<p id="probe">hello</p>')
        pushed = await communicator.receive_from(timeout=5)
        await communicator.disconnect()
        return status, pushed

    status, pushed = call_async(scenario)
    assert 'id="socket-status"' in status and "connected" in status
    assert pushed == '<p id="probe">hello</p>'


def test_socket_from_a_foreign_origin_is_refused() -> None:
    async def scenario() -> bool:
        communicator = WebsocketCommunicator(
            application, "/ws/diagnostics/", headers=[(b"host", b"localhost"), (b"origin", b"http://evil.example")]
        )
        connected, _ = await communicator.connect(timeout=5)
        await communicator.disconnect()
        return connected

    assert call_async(scenario) is False
