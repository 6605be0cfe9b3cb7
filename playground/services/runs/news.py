"""The run page's live news: after a commit, every open page of the run is told that the log
grew (they read what changed from the database), and whoever else follows runs hears of it.

Nothing but "the log grew" travels: the database is the truth, so a lost message only delays a
page until its next reconnect. Other concepts that follow runs (a challenge's results table)
`subscribe` here, at start-up (playground/apps.py); this module never imports them, so the run
pipeline does not depend on what listens to it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from playground.groups import RUN_UPDATED_EVENT, run_group, send_to_group

logger = logging.getLogger(__name__)

Listener = Callable[..., None]  # called as listener(run_id=<id>)

_listeners: list[Listener] = []


def subscribe(listener: Listener) -> Listener:
    """Call `listener(run_id=...)` after every run's news from now on (once, however often it
    subscribes: the app's start-up may run twice in a process). Returns it, so it can decorate."""
    if listener not in _listeners:
        _listeners.append(listener)
    return listener


def unsubscribe(listener: Listener) -> None:
    """Stop calling `listener` (tests that subscribed one of their own)."""
    if listener in _listeners:
        _listeners.remove(listener)


def notify(run_id: int, *, head_step: int | None = None, last_seq: int | None = None) -> None:
    """Tell every open page of the run that the log grew, then every subscriber. A failing
    subscriber is logged and the others are still told: the news never fails the worker's
    commit that it follows."""
    try:
        send_to_group(run_group(run_id), RUN_UPDATED_EVENT, head_step=head_step, last_seq=last_seq)
    except Exception:  # the log is the truth: a lost notification is caught up on reconnect
        logger.warning("run %s: notification failed", run_id, exc_info=True)
    for listener in list(_listeners):
        try:
            listener(run_id=run_id)
        except Exception:
            logger.warning("run %s: a follower of the run's news failed", run_id, exc_info=True)
