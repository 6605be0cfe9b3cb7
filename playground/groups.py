"""Channels groups: their names, and the one helper that sends to a group.

Any code (a view, a service, a Celery task) sends through `send_to_group`; the consumers in
`playground.consumers` join the groups and handle the message by its `type`:

- `html.fragment` (`push_fragment` / `push_template`): ready HTML that `FragmentConsumer`
  forwards to its browser, where the htmx ws extension swaps it in out-of-band by element id.
- `run.updated` (`playground.services.runs.news.notify`): the run's log grew; each `RunConsumer`
  renders what changed for its own viewer from the database.
- `challenge.changed` (`playground.services.challenges.notify_results`): a learner of a
  challenge joined or one of their runs moved; each `ChallengeResultsConsumer` re-renders the
  teacher's results table.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from concurrent.futures import Future
from typing import Any

from channels.layers import get_channel_layer
from django.template.loader import render_to_string

logger = logging.getLogger(__name__)

DIAGNOSTICS_GROUP = "diagnostics"
FRAGMENT_EVENT = "html.fragment"  # handled by FragmentConsumer.html_fragment
RUN_UPDATED_EVENT = "run.updated"  # handled by RunConsumer.run_updated


CHALLENGE_CHANGED_EVENT = "challenge.changed"  # handled by ChallengeResultsConsumer.challenge_changed


def challenge_group(scenario_id: int) -> str:
    """The group of the teacher's results pages of one challenge scenario."""
    return f"challenge_{scenario_id}"


def run_group(run_id: int) -> str:
    """The group of every open page of one run."""
    return f"run_{run_id}"


SEND_TIMEOUT = 10.0  # s a sender waits for the layer (its Redis retries included)

_sender_loop: asyncio.AbstractEventLoop | None = None
_sender_lock = threading.Lock()


def _loop() -> asyncio.AbstractEventLoop:
    """This process's event loop for group sends from synchronous code (views, tasks).

    `async_to_sync` would run every send on a fresh loop, and the Redis channel layer keeps
    its connections per loop: each notification would connect to Redis anew. One long-lived
    loop in a daemon thread keeps them open (a worker notifies several times a second)."""
    global _sender_loop
    with _sender_lock:
        if _sender_loop is None or _sender_loop.is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="group-sender", daemon=True).start()
            _sender_loop = loop
        return _sender_loop


def send_to_group(group: str, event_type: str, **payload: Any) -> None:
    """Send a `{"type": event_type, **payload}` message to every consumer in `group`."""
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("CHANNEL_LAYERS is not configured")
    message = {"type": event_type, **payload}
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # synchronous code (no loop in this thread): the sender loop
        future = asyncio.run_coroutine_threadsafe(layer.group_send(group, message), _loop())
        future.result(timeout=SEND_TIMEOUT)
        return
    # A loop runs in this thread (synchronous code called by an async caller): asgiref refuses
    # to block it, and waiting would stall it. The sender loop sends it; a failure is logged.
    future = asyncio.run_coroutine_threadsafe(layer.group_send(group, message), _loop())
    future.add_done_callback(_log_failure)


def _log_failure(future: Future[Any]) -> None:
    """A send handed off from a loop's thread: nobody waits for it, so its failure is logged here."""
    error = None if future.cancelled() else future.exception()
    if error is not None:
        logger.warning("a group send from an event loop's thread failed", exc_info=error)


def push_fragment(group: str, html: str) -> None:
    """Send `html` to every websocket in `group`."""
    send_to_group(group, FRAGMENT_EVENT, html=html)


def push_template(group: str, template_name: str, context: dict[str, Any]) -> None:
    """Render `template_name` with `context` and push it to `group`."""
    push_fragment(group, render_to_string(template_name, context))
