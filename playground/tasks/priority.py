"""A run worker gives the web processes the cores first: it lowers its own CPU priority at start.

On one server (`./dev run`, a class's machine) the workers and the web processes share the
cores. A Step's latency is mostly its web work (the post, then the live push that shows the
result), while a worker spends most of its CPU on plays, which may take longer without anyone
waiting for one particular step. Raising the worker's niceness by `PLAYGROUND_WORKER_NICE`
(default 5) lets the kernel run the web processes first when both want a core, and gives the
workers every cycle the web leaves; nothing is slowed while the machine has a core to spare.
A worker on a machine of its own loses nothing (niceness only ranks processes that compete for
the same cores). Raising niceness needs no privilege; lowering it again would, so it is done
once, in the worker's main process before its pool starts (pool processes inherit it).
"""

from __future__ import annotations

import logging
import os

from celery.signals import worker_init

logger = logging.getLogger(__name__)


def lower_priority(increment: int) -> int:
    """Raise this process's niceness by `increment` (0: leave it); return the niceness now."""
    if increment > 0:
        try:
            return os.nice(increment)
        except OSError:  # a platform without niceness: run as it is
            logger.warning("could not lower the worker's CPU priority", exc_info=True)
    return os.nice(0)


@worker_init.connect
def _lower_worker_priority(sender: object = None, **kwargs: object) -> None:
    from django.conf import settings

    niceness = lower_priority(settings.PLAYGROUND_WORKER_NICE)
    logger.info("worker niceness %d (PLAYGROUND_WORKER_NICE=%d)", niceness, settings.PLAYGROUND_WORKER_NICE)
