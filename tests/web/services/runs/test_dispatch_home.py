"""Engine affinity and capacity: a run's task goes to the worker holding its engine ("home"),
unless that worker already has a backlog, when any free worker takes it (real Redis, kombu's
queue lists)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from playground.infra import redis_client
from playground.infra.queues import CONTINUATION_PRIORITY, home_queue
from playground.services.runs import dispatch, fleet

SHARED = "home-test-shared"


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch, redis_url: str, settings: Any,
         request: pytest.FixtureRequest) -> Iterator[list[str | None]]:
    """The queue each scheduled task was sent to (the task itself is not sent; a worker takes
    it at once unless the test is marked `tasks_wait`). The session's Redis is shared with the
    live workers: only this test's own keys are removed after it."""
    settings.REDIS_URL = redis_url
    settings.PLAYGROUND_EXTENDER_QUEUE = ""
    queues: list[str | None] = []

    def send_task(name: str, args: tuple[int, int], kwargs: Any = None, **options: Any) -> None:
        assert name == dispatch.ADVANCE_RUN_TASK
        queues.append(options.get("queue"))
        if not request.node.get_closest_marker("tasks_wait"):
            dispatch.taken(args[0])  # a worker takes it at once

    monkeypatch.setattr(dispatch, "send_task", send_task)
    monkeypatch.setattr(dispatch, "action_priority", lambda *a, **k: 0)
    # A shared queue of this test's own: the session's live workers (same Redis) serve another.
    monkeypatch.setattr(dispatch, "runs_queue", lambda: SHARED)
    yield queues
    client = redis_client.shared()
    for pattern in ("*@home-test*", "playground:run-home:-*", "playground:run-queued:-*", f"{SHARED}*"):
        for key in client.scan_iter(match=pattern):
            client.delete(key)


def _waiting(queue: str, tasks: int, priority: int = 0) -> None:
    from kombu.transport.redis import Channel

    key = f"{queue}{Channel.sep}{priority}" if priority else queue
    redis_client.shared().rpush(key, *[b"task"] * tasks)


def test_a_run_goes_home_while_its_worker_keeps_up_and_to_any_worker_past_a_backlog(sent: list[str | None]) -> None:
    home = home_queue("runs1@home-test")
    fleet.beat_alive(home)
    fleet.set_home(-7, home)
    dispatch.schedule(-7, 1)
    _waiting(home, 2)
    _waiting(home, 1, priority=CONTINUATION_PRIORITY)  # a play's next slice: not a backlog
    dispatch.schedule(-7, 2)
    _waiting(home, 1, priority=3)  # every client priority's list counts
    dispatch.schedule(-7, 3)
    assert sent == [home, home, dispatch.queue_for(-7)]  # the shared queue
    assert fleet.waiting_in(home) == fleet.HOME_BACKLOG


def test_a_dead_or_busy_home_is_skipped(sent: list[str | None]) -> None:
    home = home_queue("runs2@home-test")
    fleet.set_home(-8, home)
    dispatch.schedule(-8, 1)  # not beating: dead
    fleet.beat_alive(home)
    with fleet.busy(home):
        dispatch.schedule(-8, 2)
    dispatch.schedule(-8, 3)
    shared = dispatch.queue_for(-8)
    assert sent == [shared, shared, home]


def test_a_run_without_an_engine_gets_one_where_the_least_waits_and_workers_take_turns(
        sent: list[str | None]) -> None:
    """A class starting together: new runs' engines alternate between the workers that serve
    the runs' shared queue, a worker with a backlog gets none until the other has as many, and
    a worker serving another queue (runs with extenders have their own) or busy gets none."""
    first, second = home_queue("runs1@home-test"), home_queue("runs2@home-test")
    other, busy = home_queue("extenders@home-test"), home_queue("runs3@home-test")
    for home in (first, second, busy):
        fleet.beat_alive(home, [SHARED])
    fleet.beat_alive(other, ["another-queue"])
    with fleet.busy(busy):
        for run_id in range(-20, -26, -1):
            dispatch.schedule(run_id, 1)
        assert sorted(sent) == sorted([first, second] * 3)
        assert all(a != b for a, b in zip(sent, sent[1:], strict=False))  # in turn
        sent.clear()
        _waiting(first, 2)
        for run_id in range(-30, -32, -1):
            dispatch.schedule(run_id, 1)
            _waiting(sent[-1], 1)
        assert sent == [second, second]  # the other catches up first
        placed = sent[0]
        sent.clear()
        dispatch.schedule(-30, 2)  # the run's next action, its engine not yet built: it follows
        assert sent == [placed] and fleet.home_of(-30) == placed


def test_no_worker_serving_the_runs_queue_leaves_a_new_run_to_the_shared_queue(sent: list[str | None]) -> None:
    fleet.beat_alive(home_queue("extenders@home-test"), ["another-queue"])
    fleet.beat_alive(home_queue("old@home-test"))  # says nothing of what it serves
    dispatch.schedule(-40, 1)
    assert sent == [SHARED]


@pytest.mark.tasks_wait
def test_a_run_with_a_task_waiting_gets_no_second_one_until_a_worker_takes_it(sent: list[str | None]) -> None:
    """A task executes all of its run's pending actions: the run's next actions ride on the one
    waiting. Once a worker has taken it, the next action needs its own; a sweep re-queueing a
    run (its task may be lost) always sends one."""
    for index in (1, 2, 3):
        dispatch.schedule(-9, index)
    dispatch.schedule(-10, 1)  # another run: its own task
    assert len(sent) == 2
    dispatch.taken(-9)
    dispatch.schedule(-9, 4)
    dispatch.schedule(-9, 5)
    assert len(sent) == 3
    dispatch.schedule(-9, 5, force=True)
    assert len(sent) == 4
