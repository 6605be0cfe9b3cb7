"""The task time limits' mechanism (playground/tasks/limits.py) in this process: the soft limit
stops the thread doing the work (the task's own, or the one a play's later slices run on), and a
block that ends in time is never interrupted afterwards. Outside a worker the hard limit ends
nothing. The live tests with real workers are in test_time_limits_live.py."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from celery.exceptions import SoftTimeLimitExceeded

from playground.tasks.limits import Limits, time_limited, working_here

SOFT = Limits(soft=0.3, hard=0, soft_setting="SOFT_SETTING", hard_setting="HARD_SETTING")


def _spin(seconds: float) -> int:
    """Python work (bytecodes, where the limit's exception is raised) for `seconds`."""
    deadline, turns = time.monotonic() + seconds, 0
    while time.monotonic() < deadline:
        turns += sum(range(100))
    return turns


def test_the_soft_limit_stops_the_work_of_this_thread() -> None:
    with pytest.raises(SoftTimeLimitExceeded), time_limited(SOFT):
        _spin(30)


def test_the_soft_limit_stops_the_work_on_the_thread_doing_it() -> None:
    """A play's later slice runs on another thread while the task's thread waits for it."""
    stopped_on: list[str] = []

    def slice_of_play() -> None:
        try:
            with working_here():
                _spin(30)
        except SoftTimeLimitExceeded:
            stopped_on.append(threading.current_thread().name)
            raise

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="play-slices") as pool:
        with pytest.raises(SoftTimeLimitExceeded), time_limited(SOFT):
            pool.submit(slice_of_play).result()
        assert pool.submit(lambda: _spin(0.5)).result() > 0  # the thread lives on, not interrupted
    assert stopped_on == ["play-slices_0"]


def test_work_that_ends_in_time_is_not_interrupted_later() -> None:
    with time_limited(SOFT):
        _spin(0.1)
    assert _spin(0.6) > 0  # past the limit after the block: nothing is raised


def test_outside_a_worker_the_hard_limit_ends_nothing() -> None:
    hard = Limits(soft=0, hard=0.3, soft_setting="SOFT_SETTING", hard_setting="HARD_SETTING")
    recorded: list[bool] = []
    with time_limited(hard, lambda: recorded.append(True)):
        _spin(0.8)
    assert recorded == []  # neither recorded nor restarted: this process is no worker


def test_the_messages_name_the_limit_and_the_setting() -> None:
    assert "0.3 s" in SOFT.soft_message() and "SOFT_SETTING" in SOFT.soft_message()
