"""ASGI entry point (uvicorn via playground.infra.web_processes; daphne for runserver): HTTP through Django, websockets through Channels."""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from config.asgi_handler import get_asgi_application  # noqa: E402

django_asgi_app = get_asgi_application()  # sets Django up before the imports below

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

from playground.middleware import RefusedReadsGate  # noqa: E402
from playground.routing import websocket_urlpatterns  # noqa: E402
from playground.web_warmup import prepare_collector, warm_web_process  # noqa: E402

# The ASGI server serves no static files: in development Django's handler does, in production whitenoise
# serves the collected files.
http_application = ASGIStaticFilesHandler(django_asgi_app) if settings.DEBUG else django_asgi_app
http_application = RefusedReadsGate(http_application)  # a flooding reader, refused before Django

warm_web_process()  # imports and templates ready before the first request, not during it

application = ProtocolTypeRouter(
    {
        "http": http_application,
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)

prepare_collector()  # the collector's full passes: rarer, and they skip all of the above
