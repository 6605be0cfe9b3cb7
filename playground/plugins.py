"""Out-of-tree scheduler plugins for the web app: the modules PLAYGROUND_PLUGINS names.

Why at app start: every process that loads or runs a scenario (each web process validating an
upload, each Celery worker restoring a run's engine from a checkpoint) must know the same
plugins, so each imports the configured modules once, when Django is set up. Only the operator
chooses them (the setting); a scenario can only enable what is installed. A module that cannot
be used stops the process at start with one line naming it and the setting.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from scheduler_core.framework.plugins.plugin_modules import PluginModuleError, load_plugin_modules


def load_configured_plugins() -> list[str]:
    """Import the PLAYGROUND_PLUGINS modules; the names of the plugins they registered."""
    modules = list(getattr(settings, "PLAYGROUND_PLUGINS", []) or [])
    if not modules:
        return []
    try:
        return load_plugin_modules(modules)
    except PluginModuleError as e:
        raise ImproperlyConfigured(f"PLAYGROUND_PLUGINS: {e}") from None
