"""Websocket routes (the ASGI app in config.asgi serves them)."""

from __future__ import annotations

from django.urls import path

from playground.consumers.challenges import ChallengeResultsConsumer
from playground.consumers.diagnostics import DiagnosticsConsumer
from playground.consumers.runs import RunConsumer

websocket_urlpatterns = [
    path("ws/diagnostics/", DiagnosticsConsumer.as_asgi(), name="ws-diagnostics"),
    path("ws/runs/<str:token>/", RunConsumer.as_asgi(), name="ws-run"),
    path("ws/challenges/<str:token>/results/", ChallengeResultsConsumer.as_asgi(), name="ws-challenge-results"),
]
