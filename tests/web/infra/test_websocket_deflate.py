"""playground.infra.websocket_deflate: a message sent on many connections is compressed once, and each
connection sends what a fresh compression of that message would have sent."""

from __future__ import annotations

import zlib

import pytest
from websockets.extensions.permessage_deflate import (
    ClientPerMessageDeflateFactory,
    PerMessageDeflate,
)
from websockets.frames import Frame, Opcode

from playground.infra import websocket_deflate
from playground.infra.websocket_deflate import SharedDeflateFactory


@pytest.fixture(autouse=True)
def _fresh() -> None:
    websocket_deflate.compressions.clear()


def _connection() -> tuple[PerMessageDeflate, PerMessageDeflate]:
    """A server side as a browser's offer makes it, and the matching client side."""
    client_factory = ClientPerMessageDeflateFactory(client_max_window_bits=True)
    offer = client_factory.get_request_params()
    response, server = SharedDeflateFactory().process_request_params(offer, [])
    client = client_factory.process_response_params(response, [])
    return server, client


def test_one_message_on_many_connections_is_compressed_once_and_reads_back() -> None:
    message = ("<tr><td>node-%d</td><td>✓ passed</td></tr>" * 400 % tuple(range(400))).encode()
    connections = [_connection() for _ in range(5)]
    sent = [server.encode(Frame(Opcode.TEXT, message)) for server, _ in connections]
    assert websocket_deflate.compressions.misses == 1 and websocket_deflate.compressions.hits == 4
    assert all(frame.rsv1 and frame.data == sent[0].data for frame in sent)
    assert len(sent[0].data) < len(message) / 4
    # What a fresh compression of the message without context gives, and the client reads it back.
    fresh = zlib.compressobj(wbits=-websocket_deflate.WINDOW_BITS, **websocket_deflate.COMPRESS_SETTINGS)
    assert bytes(sent[0].data) == (fresh.compress(message) + fresh.flush(zlib.Z_SYNC_FLUSH))[:-4]
    for frame, (_, client) in zip(sent, connections, strict=True):
        assert client.decode(frame).data == message
        assert client.decode(frame).data == message  # no context kept between messages


def test_different_messages_short_ones_and_control_frames_are_not_shared() -> None:
    server, client = _connection()
    one, two = b"<p>" + b"a" * 2000 + b"</p>", b"<p>" + b"b" * 2000 + b"</p>"
    assert client.decode(server.encode(Frame(Opcode.TEXT, one))).data == one
    assert client.decode(server.encode(Frame(Opcode.TEXT, two))).data == two
    assert websocket_deflate.compressions.misses == 2 and websocket_deflate.compressions.hits == 0
    assert client.decode(server.encode(Frame(Opcode.TEXT, b"short"))).data == b"short"
    assert server.encode(Frame(Opcode.PING, b"x")).data == b"x"
    assert websocket_deflate.compressions.misses == 2


def test_the_table_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(websocket_deflate, "MAX_KEPT", 3)
    server, _ = _connection()
    for i in range(10):
        server.encode(Frame(Opcode.TEXT, (f"<p>{i}</p>" * 300).encode()))
    assert len(websocket_deflate.compressions.table) == 3
    assert websocket_deflate.compressions.held == sum(len(k[0]) + len(v) for k, v in websocket_deflate.compressions.table.items())
