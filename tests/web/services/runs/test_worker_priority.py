"""A run worker runs below the web processes' CPU priority (playground/tasks/priority.py)."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from django.conf import settings

from playground.tasks.priority import lower_priority


def _niceness(pid: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, pid)


def _thread_niceness() -> int:
    """The calling thread's niceness (Linux ranks threads)."""
    return _niceness(threading.get_native_id())


def test_a_real_worker_lowers_its_priority_and_the_web_server_does_not(celery_worker: Any, asgi_server: Any) -> None:
    own = _niceness(os.getpid())
    assert settings.PLAYGROUND_WORKER_NICE == 5
    assert _niceness(celery_worker.process.pid) == min(own + settings.PLAYGROUND_WORKER_NICE, 19)
    assert _niceness(asgi_server.process.pid) == own
    group = Path(f"/proc/{celery_worker.process.pid}/autogroup")
    if group.exists():  # it leads its own session: its autogroup is ranked too (a new group starts at 0)
        assert group.read_text().split()[-1] == str(settings.PLAYGROUND_WORKER_NICE)
        assert Path(f"/proc/{asgi_server.process.pid}/autogroup").read_text().split()[-1] == "0"


def test_an_increment_of_zero_leaves_the_priority_as_it_is() -> None:
    assert lower_priority(0) == _niceness(os.getpid())


def test_a_plays_slices_run_on_one_lower_ranked_thread(settings: Any) -> None:
    from playground.tasks import priority

    settings.PLAYGROUND_PLAY_NICE = 3
    own = _thread_niceness()
    first = priority.in_background(lambda: (_thread_niceness(), threading.get_native_id()))
    again = priority.in_background(lambda: (_thread_niceness(), threading.get_native_id()))
    assert first == again and first[0] == min(own + 3, 19) and first[1] != threading.get_native_id()
    assert _thread_niceness() == own
    settings.PLAYGROUND_PLAY_NICE = 0
    assert priority.in_background(threading.get_native_id) == threading.get_native_id()
