"""Classroom mode: one presenter leads, followers' pages show the presenter's step.

The run's owner turns presenting on (their session remembers it). From then on every page of the
run the presenter opens publishes where they are: a step (a pinned page) or the live head. The
position is kept in Redis (for followers who join late) and sent to the run's Channels group
(`classroom.step`), where each follower's `RunConsumer` re-renders its page at that step.
A follower opened the run with `?follow=1`; any other link (rewind, jump, the timeline, "Explore
on my own") leaves follow mode, because it opens the run without it.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from playground.groups import run_group, send_to_group

logger = logging.getLogger(__name__)

CLASSROOM_EVENT = "classroom.step"  # handled by RunConsumer.classroom_step
SESSION_KEY = "presenting_runs"
_TTL = 12 * 3600  # a lesson's length, generously


def _key(run_id: int) -> str:
    return f"playground:classroom:{run_id}"


def _redis() -> Any:
    from playground.infra import redis_client

    return redis_client.shared()


def is_presenting(session: Any, token: str) -> bool:
    return token in (session.get(SESSION_KEY) or [])


def set_presenting(session: Any, token: str, on: bool) -> None:
    tokens = [t for t in (session.get(SESSION_KEY) or []) if t != token]
    if on:
        tokens.append(token)
    session[SESSION_KEY] = tokens[-20:]


def publish(run_id: int, step: int | None) -> None:
    """The presenter is at `step` (None: live at the head): remember it and tell the followers."""
    try:
        _redis().set(_key(run_id), json.dumps({"step": step}), ex=_TTL)
    except Exception:  # noqa: BLE001 - followers then catch up on the next move
        logger.warning("run %s: could not store the presenter's step", run_id, exc_info=True)
    try:
        send_to_group(run_group(run_id), CLASSROOM_EVENT, step=step)
    except Exception:  # noqa: BLE001
        logger.warning("run %s: could not tell the followers", run_id, exc_info=True)


def presenter_step(run_id: int) -> tuple[bool, int | None]:
    """(a presenter has published, their step or None for the live head)."""
    try:
        raw = _redis().get(_key(run_id))
    except Exception:  # noqa: BLE001
        return False, None
    if not raw:
        return False, None
    step = json.loads(raw).get("step")
    return True, step if isinstance(step, int) else None
