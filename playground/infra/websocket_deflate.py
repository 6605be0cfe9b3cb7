"""Websocket compression done once per message, not once per connection.

The live pages' websockets are compressed (permessage-deflate): a step's update is tens of
kilobytes of HTML that deflates several times over, and a class's hundred viewers get it every
step. The server compressed it once per connection, on the event loop: a hundred viewers of one
run cost a hundred compressions of the same bytes, about a twentieth of the web processes' CPU
in a class, all of it on the thread that every push and request waits for.

Here the server announces `server_no_context_takeover` (RFC 7692 lets a server do so whatever
the browser offered), so each message is compressed on its own and the same message compresses
to the same bytes on every connection: the first connection's compression is kept (a bounded,
least-recently-used table) and the others send it as is. Context takeover bought little anyway:
the window is 4 KB (uvicorn's `server_max_window_bits=12`) against messages of tens of KB.
Browsers decompress as before; what they receive is byte for byte what a fresh compression of
that message gives.

Serve with `uvicorn --ws playground.infra.websocket_deflate:SharedDeflateWebSocketProtocol`
(playground.infra.web_processes does).
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.extensions.base import Extension
from websockets.extensions.permessage_deflate import PerMessageDeflate, ServerPerMessageDeflateFactory
from websockets.frames import Frame, Opcode
from websockets.typing import ExtensionParameter

# uvicorn's own settings for its websockets implementations.
WINDOW_BITS = 12
COMPRESS_SETTINGS = {"memLevel": 5}
# The compressions kept: a step's few distinct messages (owner, viewers, a status line) times
# the runs being watched; bounded by the bytes held too (the message and its compression).
MAX_KEPT = 64
MAX_KEPT_BYTES = 16 * 1024 * 1024
SMALLEST_SHARED = 512  # shorter messages (pings of state, a flash line) are cheaper to compress again


class _Compressions:
    """Messages compressed lately (message bytes -> compressed bytes), least recently used out.
    Used from the event loop's thread only (the protocol's sends)."""

    def __init__(self) -> None:
        self.table: OrderedDict[tuple[bytes, int], bytes] = OrderedDict()
        self.held = 0
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple[bytes, int]) -> bytes | None:
        found = self.table.get(key)
        if found is not None:
            self.table.move_to_end(key)
            self.hits += 1
        return found

    def put(self, key: tuple[bytes, int], compressed: bytes) -> None:
        self.misses += 1
        self.table[key] = compressed
        self.held += len(key[0]) + len(compressed)
        while len(self.table) > 1 and (len(self.table) > MAX_KEPT or self.held > MAX_KEPT_BYTES):
            (message, _), old = self.table.popitem(last=False)
            self.held -= len(message) + len(old)

    def clear(self) -> None:
        self.table.clear()
        self.held = self.hits = self.misses = 0


compressions = _Compressions()


class SharedPerMessageDeflate(PerMessageDeflate):
    """permessage-deflate whose whole messages, compressed without context, are compressed
    once per process (`compressions`)."""

    def encode(self, frame: Frame) -> Frame:
        shareable = (
            self.local_no_context_takeover
            and frame.fin
            and frame.opcode in (Opcode.TEXT, Opcode.BINARY)
            and len(frame.data) >= SMALLEST_SHARED
        )
        if not shareable:
            return super().encode(frame)
        key = (bytes(frame.data), self.local_max_window_bits)
        data = compressions.get(key)
        if data is None:
            encoded = super().encode(frame)
            compressions.put(key, bytes(encoded.data))
            return encoded
        return dataclasses.replace(frame, data=data, rsv1=True)


class SharedDeflateFactory(ServerPerMessageDeflateFactory):
    """Negotiates as uvicorn does, plus `server_no_context_takeover`; the extension it makes
    shares its compressions."""

    def __init__(self) -> None:
        super().__init__(
            server_no_context_takeover=True,
            server_max_window_bits=WINDOW_BITS,
            client_max_window_bits=WINDOW_BITS,
            compress_settings=dict(COMPRESS_SETTINGS),
        )

    def process_request_params(
        self, params: Sequence[ExtensionParameter], accepted_extensions: Sequence[Extension]
    ) -> tuple[list[ExtensionParameter], PerMessageDeflate]:
        response, extension = super().process_request_params(params, accepted_extensions)
        shared = SharedPerMessageDeflate(
            extension.remote_no_context_takeover,
            extension.local_no_context_takeover,
            extension.remote_max_window_bits,
            extension.local_max_window_bits,
            extension.compress_settings,
        )
        return response, shared


class SharedDeflateWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websockets (sans-I/O) protocol with `SharedDeflateFactory` as its compression."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.config.ws_per_message_deflate:
            self.conn.available_extensions = [SharedDeflateFactory()]
