"""A run worker runs below the web processes' CPU priority (playground/tasks/priority.py)."""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings

from playground.tasks.priority import lower_priority


def _niceness(pid: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, pid)


def test_a_real_worker_lowers_its_priority_and_the_web_server_does_not(celery_worker: Any, asgi_server: Any) -> None:
    own = _niceness(os.getpid())
    assert settings.PLAYGROUND_WORKER_NICE == 5
    assert _niceness(celery_worker.process.pid) == min(own + settings.PLAYGROUND_WORKER_NICE, 19)
    assert _niceness(asgi_server.process.pid) == own


def test_an_increment_of_zero_leaves_the_priority_as_it_is() -> None:
    assert lower_priority(0) == _niceness(os.getpid())
