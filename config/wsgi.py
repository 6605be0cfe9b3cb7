"""WSGI entry point (HTTP only, no websockets); the app is meant to run under an ASGI server (playground.infra.web_processes)."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()
