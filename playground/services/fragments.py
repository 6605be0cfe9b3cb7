"""Pushing rendered HTML fragments to browsers through the Channels layer.

Any code (a view, a Celery task) can call `push_fragment`; every websocket consumer that joined
`group` (see `playground.consumers.FragmentConsumer`) forwards the HTML to its browser, where the
htmx ws extension swaps it in out-of-band by element id (or per its `hx-swap-oob` attribute).
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.template.loader import render_to_string

FRAGMENT_EVENT = "html.fragment"  # handled by FragmentConsumer.html_fragment


def push_fragment(group: str, html: str) -> None:
    """Send `html` to every websocket in `group`."""
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("CHANNEL_LAYERS is not configured")
    async_to_sync(layer.group_send)(group, {"type": FRAGMENT_EVENT, "html": html})


def push_template(group: str, template_name: str, context: dict[str, Any]) -> None:
    """Render `template_name` with `context` and push it to `group`."""
    push_fragment(group, render_to_string(template_name, context))
