"""Metrics the web processes update as things happen (prometheus_client; multiprocess-safe)."""

from __future__ import annotations

from prometheus_client import Gauge

# livesum: the connections open now, over the processes alive now (a dead process's count goes).
WEBSOCKET_CONNECTIONS = Gauge(
    "playground_websocket_connections", "Websocket connections open now, by consumer.",
    ["consumer"], multiprocess_mode="livesum")


def socket_opened(consumer: object, kind: str) -> None:
    """An accepted websocket: counted until `socket_closed` (once, whatever closes it)."""
    WEBSOCKET_CONNECTIONS.labels(kind).inc()
    consumer._counted_as = kind  # type: ignore[attr-defined]


def socket_closed(consumer: object) -> None:
    kind = getattr(consumer, "_counted_as", None)
    if kind is not None:
        WEBSOCKET_CONNECTIONS.labels(kind).dec()
        consumer._counted_as = None  # type: ignore[attr-defined]
