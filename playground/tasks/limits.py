"""Time limits for worker tasks: no run can hold a worker process.

Celery's own `soft_time_limit`/`time_limit` need a pool that runs each task in a child process
(prefork); the run workers `./dev run` starts use the solo pool (each keeps its runs' engines in
its one process), where Celery enforces no limit at all. So the tasks bound themselves, the same
way in every pool:

- **Soft limit** (`PLAYGROUND_TASK_SOFT_TIME_LIMIT`; a start's preparation:
  `PLAYGROUND_PREPARE_SOFT_TIME_LIMIT`): a watchdog thread raises `SoftTimeLimitExceeded` in the
  thread doing the task's work (the worker's main thread, or the thread a play's later slices
  run on: `working_here`), as Celery's soft limit does in a prefork child. The engine's work is
  Python, so it stops at its next bytecode; the task then records why on the run's page and
  returns, and the worker takes its next task. Nothing half-done is kept: a run's rows are
  written in one transaction per batch, and its engine is dropped (rebuilt from the log).
- **Hard limit** (`PLAYGROUND_TASK_TIME_LIMIT`, `PLAYGROUND_PREPARE_TIME_LIMIT`): work that did
  not stop (it caught the exception, or sat in C code) gets its line recorded by the watchdog,
  then the process is restarted in place: a solo worker re-executes itself (same pid, same
  queues and name: the launcher sees nothing), a prefork pool child exits (its parent starts
  another). A last resort below the watchdog, which needs the interpreter: `faulthandler`'s
  C-level timer ends the process 30 s after the hard limit (the launcher restarts it).

0 turns a limit off. The limits are read from settings at each task (the worker's environment).
Outside a Celery worker (a task body called eagerly) only the soft limit acts: nothing there
ends the process.
"""

from __future__ import annotations

import contextlib
import ctypes
import faulthandler
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import worker_init, worker_process_init

logger = logging.getLogger(__name__)

BACKSTOP_SECONDS = 30.0  # after the hard limit, faulthandler ends a process the watchdog could not
_in_pool_child = False  # a prefork pool's child process (its parent replaces it when it exits)
_in_worker = False  # a Celery worker's process: only there may a hard limit end the process


@worker_init.connect
def _mark_worker(**kwargs: object) -> None:
    """In the worker's main process before its pool starts (a prefork child inherits it). A task
    body run anywhere else (eagerly, in a test) keeps its soft limit and never ends its process."""
    global _in_worker
    _in_worker = True


@worker_process_init.connect
def _mark_pool_child(**kwargs: object) -> None:
    """Sent in each prefork child, and by the solo pool in the worker's own (main) process."""
    from billiard.process import current_process

    global _in_pool_child
    _in_pool_child = current_process().name != "MainProcess"


@dataclass(frozen=True)
class Limits:
    """A task's limits in seconds (0: none) and the settings that set them (named on the page)."""

    soft: float
    hard: float
    soft_setting: str
    hard_setting: str

    @classmethod
    def for_runs(cls) -> Limits:
        from django.conf import settings

        return cls(float(settings.PLAYGROUND_TASK_SOFT_TIME_LIMIT), float(settings.PLAYGROUND_TASK_TIME_LIMIT),
                   "PLAYGROUND_TASK_SOFT_TIME_LIMIT", "PLAYGROUND_TASK_TIME_LIMIT")

    @classmethod
    def for_preparing(cls) -> Limits:
        from django.conf import settings

        return cls(float(settings.PLAYGROUND_PREPARE_SOFT_TIME_LIMIT), float(settings.PLAYGROUND_PREPARE_TIME_LIMIT),
                   "PLAYGROUND_PREPARE_SOFT_TIME_LIMIT", "PLAYGROUND_PREPARE_TIME_LIMIT")

    def soft_message(self) -> str:
        return (f"stopped: it ran longer than the worker's {self.soft:g} s time limit "
                f"({self.soft_setting}); nothing of it was kept")

    def hard_message(self) -> str:
        return (f"stopped: it ran past the worker's {self.hard:g} s hard time limit ({self.hard_setting}); "
                "its worker process was restarted and nothing of it was kept")


@dataclass
class _Watch:
    limits: Limits
    on_hard: Callable[[], None]
    target: int = field(default_factory=threading.get_ident)  # the thread doing the work now
    done: bool = False
    soft_fired: bool = False
    delivered: bool = False  # the soft limit's exception was raised in the work
    lock: threading.Lock = field(default_factory=threading.Lock)
    finished: threading.Event = field(default_factory=threading.Event)


_current: _Watch | None = None


def _raise_in(thread_id: int, exception: type[BaseException] | None) -> None:
    """Have `thread_id` raise `exception` at its next bytecode (None: withdraw a pending one)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(exception) if exception is not None else None
    )


def _watch(watch: _Watch) -> None:
    started = time.monotonic()
    limits = watch.limits
    if limits.soft > 0 and (limits.hard <= 0 or limits.soft < limits.hard):
        if watch.finished.wait(limits.soft):
            return
        with watch.lock:
            if watch.done:
                return
            watch.soft_fired = True
            logger.warning("task over its soft time limit (%g s, %s): stopping it", limits.soft, limits.soft_setting)
            _raise_in(watch.target, SoftTimeLimitExceeded)
    if limits.hard <= 0 or watch.finished.wait(max(0.0, limits.hard - (time.monotonic() - started))):
        return
    with watch.lock:
        if watch.done:
            return
    if not _in_worker:
        logger.error("task over its hard time limit (%g s, %s), outside a worker: left running",
                     limits.hard, limits.hard_setting)
        return
    logger.error("task over its hard time limit (%g s, %s): restarting this worker process",
                 limits.hard, limits.hard_setting)
    try:
        watch.on_hard()
    except Exception:
        logger.exception("could not record the task's hard time limit")
    restart_in_place()


def restart_in_place() -> None:
    """End the work this process holds: a prefork pool child exits (the pool starts another);
    any other worker process executes its own command line again (same pid, queues and name)."""
    for handler in logging.getLogger().handlers:
        with contextlib.suppress(Exception):
            handler.flush()
    sys.stdout.flush()
    sys.stderr.flush()
    if not _in_pool_child:
        try:
            argv = [part.decode() for part in Path("/proc/self/cmdline").read_bytes().split(b"\0")[:-1]]
            os.environ["PLAYGROUND_WORKER_RESTARTED"] = "1"  # its niceness is already lowered (priority.py)
            os.execv(sys.executable, argv)
        except OSError:
            logger.exception("could not execute the worker again; exiting")
    os._exit(70)


def _backstop(seconds: float) -> bool:
    """Arm faulthandler's timer (a C thread: it fires even while the interpreter is held) to
    print every thread's stack and end the process after `seconds`. Celery replaces
    sys.stderr with a logging proxy, so the process's real standard error is given."""
    stream = sys.__stderr__
    if stream is None:
        return False
    try:
        faulthandler.dump_traceback_later(seconds, exit=True, file=stream)
    except (ValueError, OSError, AttributeError, RuntimeError):
        return False
    return True


@contextlib.contextmanager
def time_limited(limits: Limits, on_hard: Callable[[], None] = lambda: None) -> Iterator[None]:
    """Run the block under `limits` (module doc). `on_hard` records why the work ended, from the
    watchdog thread, just before the process restarts. SoftTimeLimitExceeded propagates."""
    global _current
    watch = _Watch(limits, on_hard)
    previous, _current = _current, watch
    backstop = _in_worker and limits.hard > 0 and _backstop(limits.hard + BACKSTOP_SECONDS)
    try:
        if limits.soft > 0 or limits.hard > 0:
            threading.Thread(target=_watch, args=(watch,), name="time-limit", daemon=True).start()
        yield
    except SoftTimeLimitExceeded:
        watch.delivered = True
        raise
    finally:
        with watch.lock:
            watch.done = True
            if watch.soft_fired and not watch.delivered:
                _raise_in(watch.target, None)  # the work ended on its own first: withdrawn
        watch.finished.set()
        if backstop:
            faulthandler.cancel_dump_traceback_later()
        _current = previous


@contextlib.contextmanager
def working_here() -> Iterator[None]:
    """The calling thread does the current task's work for the block (a play's slice on the
    lower-priority thread: tasks/priority.py): the soft limit is raised here."""
    watch = _current
    if watch is None:
        yield
        return
    with watch.lock:
        before, watch.target = watch.target, threading.get_ident()
    try:
        yield
    except SoftTimeLimitExceeded:
        watch.delivered = True
        raise
    finally:
        with watch.lock:
            if watch.soft_fired and not watch.delivered:
                _raise_in(watch.target, None)  # the work ended on its own first: withdrawn
            watch.target = before
