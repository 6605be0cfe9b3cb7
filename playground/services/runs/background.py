"""Work nobody is waiting for, run at a lower CPU priority than the requests people wait for.

A run that just started has its engine built ahead of its first Step (the warm-up: unpickling
a 5,000-node checkpoint takes a second or more of CPU). That happens right when its owner's
browser asks for the run page, and on a small machine the two compete for the same cores: the
page's first byte came 3-4 times later while the warm-up ran. Linux keeps a nice value per
thread, so the warm-up runs in a thread of its own with a higher nice value: it takes whatever
CPU the web processes leave idle, and yields it while they render. The thread, and its nice
value and its database connections, end with the work; the worker thread that called it keeps
its own priority.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from typing import TypeVar

from django.db import connections

logger = logging.getLogger(__name__)

T = TypeVar("T")
BACKGROUND_NICE = 10  # added to the thread's nice value (0 -> 10: about a tenth of a contended core)


def run_in_background(work: Callable[[], T], *, nice: int = BACKGROUND_NICE) -> T:
    """`work()` in a thread whose nice value is raised by `nice`; its result, or its exception.
    Where per-thread priorities are not available the work simply runs at normal priority."""
    outcome: dict[str, object] = {}

    def body() -> None:
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), os.getpriority(os.PRIO_PROCESS, 0) + nice)
        except (AttributeError, OSError):  # not Linux, or not allowed: normal priority
            logger.debug("could not lower the priority of background work", exc_info=True)
        try:
            outcome["value"] = work()
        except BaseException as e:  # handed to the caller's thread
            outcome["error"] = e
        finally:
            connections.close_all()  # the database connections this thread opened (they are per thread)

    thread = threading.Thread(target=body, name="playground-background", daemon=True)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]


def thread_nice() -> int:
    """The calling thread's nice value (for tests and diagnostics)."""
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
