from __future__ import annotations

from django.apps import AppConfig


class PlaygroundConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "playground"

    def ready(self) -> None:
        # Web and worker processes alike: the operator's out-of-tree plugins (PLAYGROUND_PLUGINS).
        from playground.plugins import load_configured_plugins

        load_configured_plugins()
