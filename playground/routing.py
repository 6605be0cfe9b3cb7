from __future__ import annotations

from django.urls import path

from playground import consumers

websocket_urlpatterns = [
    path("ws/diagnostics/", consumers.DiagnosticsConsumer.as_asgi(), name="ws-diagnostics"),
]
