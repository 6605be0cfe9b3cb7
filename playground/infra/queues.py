"""The Celery queues' names, priorities and lengths (kombu's Redis lists), read by dispatch,
the workers and the metrics alike.

Task priorities (Redis: 0 is served first; see CELERY_BROKER_TRANSPORT_OPTIONS): a client's
first waiting action gets 0, its second 1, ... so one client's backlog never stands in front
of another client's Step; a play's next slice waits behind every action; warming is between.
"""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings

from playground.infra import redis_client

INTERACTIVE_PRIORITIES = 8  # 0..7
WARM_PRIORITY = 8
CONTINUATION_PRIORITY = 9


def send_task(name: str, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None, **options: Any) -> None:
    """Send the task registered as `name` through the project's Celery app (config.celery, the
    one the settings configure), with Celery's sending `options` (queue, priority). Services send
    tasks by name, so none imports a tasks module: the tasks call services, never the reverse.
    Not `celery.current_app`: any other Celery app made in the process since (a probe of the
    broker, a test's sender) becomes "current", and the task would go to that app's broker."""
    from config.celery import app

    app.send_task(name, args=args, kwargs=kwargs or {}, **options)


def default_queue() -> str:
    """The queue a task goes to when none is named (Celery's task_default_queue)."""
    from config.celery import app

    return app.conf.task_default_queue


def runs_queue() -> str | None:
    """The Celery queue for run tasks (None: the default). Tests point it at their own worker."""
    return getattr(settings, "PLAYGROUND_RUNS_QUEUE", None) or os.environ.get("PLAYGROUND_RUNS_QUEUE") or None


def home_queue(hostname: str) -> str:
    """The queue of one worker process (its Celery hostname), where the runs whose engines it
    holds are sent (services/runs/fleet.py)."""
    return f"home.{hostname}"


def lengths(queues: list[str], *, below: int) -> list[int] | None:
    """The lengths of kombu's Redis lists of `queues` for each priority under `below` (one
    pipeline); None when Redis cannot be asked."""
    from kombu.transport.redis import Channel

    keys = [f"{name}{Channel.sep}{p}" if p else name for name in queues for p in range(below)]  # kombu's lists
    try:
        with redis_client.shared().pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.llen(key)
            return list(pipe.execute())
    except Exception:
        return None


def others_waiting(queues: list[str], *, below: int = CONTINUATION_PRIORITY + 1) -> bool:
    """Do tasks wait in `queues` for a free worker process? A play yields then. `below`: only
    tasks of a priority under it count (CONTINUATION_PRIORITY: a client's action or a warm-up,
    not another play's next slice)."""
    return any(lengths(queues, below=below) or [0])
