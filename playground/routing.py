from __future__ import annotations

from django.urls import path

from playground import consumers, consumers_runs

websocket_urlpatterns = [
    path("ws/diagnostics/", consumers.DiagnosticsConsumer.as_asgi(), name="ws-diagnostics"),
    path("ws/runs/<str:token>/", consumers_runs.RunConsumer.as_asgi(), name="ws-run"),
]
