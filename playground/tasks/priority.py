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

A play's later slices (its continuations: nobody is waiting on one of them) run lower still,
by `PLAYGROUND_PLAY_NICE` (10) more: on a thread of the worker kept for them, whose own
niceness is raised once (Linux ranks threads, not only processes, so this needs no privilege
and the worker's main thread keeps its priority for the class's Steps). While the class is
busy the kernel gives a play's slices only the cycles left over; on an idle machine a play
runs at full speed.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from celery.signals import worker_init

logger = logging.getLogger(__name__)
T = TypeVar("T")
AUTOGROUP = Path("/proc/self/autogroup")
_background: ThreadPoolExecutor | None = None
_background_lock = threading.Lock()


def lower_priority(increment: int) -> int:
    """Raise this process's niceness by `increment` (0: leave it); return the niceness now.

    Linux's autogroups (on by default in many kernels) share the cores between sessions first
    and only then between the processes of a session by their niceness, so a worker that leads
    a session of its own (as `./dev run` starts it) raises its group's niceness too; one that
    shares its session (a shell's) leaves the group, which holds other programs, alone."""
    if increment <= 0:
        return os.nice(0)
    try:
        niceness = os.nice(increment)
    except OSError:  # a platform without niceness: run as it is
        logger.warning("could not lower the worker's CPU priority", exc_info=True)
        return os.nice(0)
    if os.getsid(0) == os.getpid():
        _lower_autogroup(increment)
    return niceness


def _lower_autogroup(increment: int) -> None:
    try:
        group = AUTOGROUP.read_text().split()  # "/autogroup-123 nice 0"
        AUTOGROUP.write_text(str(min(int(group[-1]) + increment, 19)))
    except (OSError, ValueError, IndexError):  # no autogroups here: niceness alone ranks processes
        return


@worker_init.connect
def _lower_worker_priority(sender: object = None, **kwargs: object) -> None:
    from django.conf import settings

    if os.environ.get("PLAYGROUND_WORKER_RESTARTED"):  # restarted in place (tasks/limits.py): lowered once already
        logger.info("worker niceness %d (kept across a restart)", os.nice(0))
        return
    niceness = lower_priority(settings.PLAYGROUND_WORKER_NICE)
    logger.info("worker niceness %d (PLAYGROUND_WORKER_NICE=%d)", niceness, settings.PLAYGROUND_WORKER_NICE)


def _lower_this_thread(increment: int) -> None:
    tid = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + increment)
    except OSError:
        logger.warning("could not lower the play thread's CPU priority", exc_info=True)


def _background_thread(increment: int) -> ThreadPoolExecutor:
    global _background
    with _background_lock:
        if _background is None:
            _background = ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="play-slices", initializer=_lower_this_thread, initargs=(increment,)
            )
        return _background


def _with_own_connections(call: Callable[[], T]) -> T:
    """`call` on the background thread, whose database connections are its own: closed around
    each call when unusable or past their age, as Celery does for the main thread's."""
    from django.db import close_old_connections

    from playground.tasks.limits import working_here

    close_old_connections()
    try:
        with working_here():  # the task's soft time limit stops the work here (tasks/limits.py)
            return call()
    finally:
        close_old_connections()


def in_background(call: Callable[[], T]) -> T:
    """Run `call` (a play's continuation) on the worker's lower-priority thread and wait for it;
    at once here when PLAYGROUND_PLAY_NICE is 0 or threads cannot be ranked (not Linux)."""
    from django.conf import settings

    increment = settings.PLAYGROUND_PLAY_NICE
    if increment <= 0 or not sys.platform.startswith("linux"):
        return call()
    return _background_thread(increment).submit(_with_own_connections, call).result()
