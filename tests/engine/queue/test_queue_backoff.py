"""Backoff durations and timing (upstream backoff_queue.go, v1.35 with SchedulerPopFromBackoffQ)."""

from __future__ import annotations

import pytest
from queue_fakes import FakeClock, fail, make_queue, mkpod

from scheduler_core.backend.queue import ZERO_TIME, calculate_backoff_duration_ns
from scheduler_core.backend.queue.backoff_queue import BackoffQueue
from scheduler_core.framework.types import PodInfo, QueuedPodInfo

S = 1_000_000_000


@pytest.mark.parametrize(
    "count,initial,maximum,expected",
    [
        (0, 1, 10, 0),
        (1, 1, 10, 1),
        (2, 1, 10, 2),
        (3, 1, 10, 4),
        (4, 1, 10, 8),
        (5, 1, 10, 10),  # 16 capped
        (6, 1, 10, 10),
        (64, 1, 10, 10),  # shift beyond int64 width
        (1000, 1, 10, 10),  # overflow safe
        (10**6, 1, 10, 10),
        (1, 2, 10, 2),
        (3, 2, 10, 8),
        (4, 2, 10, 10),
        (1, 5, 3, 3),  # initial above max: max
        (3, 0, 10, 0),
    ],
)
def test_calculate_backoff_duration(count, initial, maximum, expected):
    assert calculate_backoff_duration_ns(count, initial * S, maximum * S) == expected * S


def _qpi(name="p", ts=0.0, unsched=0, errors=0):
    q = QueuedPodInfo(PodInfo(mkpod(name)), timestamp=ts)
    q.unschedulable_count = unsched
    q.consecutive_errors_count = errors
    return q


def test_backoff_time_uses_errors_when_last_attempt_errored():
    bq = BackoffQueue(FakeClock(), 1, 10, lambda a, b: False)
    q = _qpi(ts=0.0, unsched=4, errors=1)
    assert bq.get_backoff_time(q) == 1.0  # error count 1 -> 1 s, not 8 s
    q2 = _qpi(ts=0.0, unsched=4)
    assert bq.get_backoff_time(q2) == 8.0


def test_no_backoff_without_attempts_or_with_zero_max():
    bq = BackoffQueue(FakeClock(), 1, 10, lambda a, b: False)
    assert bq.get_backoff_time(_qpi(unsched=0)) == ZERO_TIME
    bq0 = BackoffQueue(FakeClock(), 1, 0, lambda a, b: False)
    assert bq0.get_backoff_time(_qpi(unsched=3)) == ZERO_TIME
    assert not bq0.is_pod_backing_off(_qpi(unsched=3))


def test_expiry_truncated_to_window_and_window_still_backing_off():
    clock = FakeClock(1.5)
    bq = BackoffQueue(clock, 1, 10, lambda a, b: False, pop_from_backoff_q_enabled=True)
    q = _qpi(ts=0.3, unsched=1)
    assert bq.get_backoff_time(q) == 1.0  # floor(1.3)
    assert bq.is_pod_backing_off(q)  # now's window (1) is the expiry window
    clock.t = 1.999
    assert bq.is_pod_backing_off(q)
    clock.t = 2.0
    assert not bq.is_pod_backing_off(q)


def test_expiry_exact_without_pop_from_backoff_gate():
    clock = FakeClock(1.5)
    bq = BackoffQueue(clock, 1, 10, lambda a, b: False, pop_from_backoff_q_enabled=False)
    q = _qpi(ts=0.3, unsched=1)
    assert bq.get_backoff_time(q) == pytest.approx(1.3)
    assert not bq.is_pod_backing_off(q)


def test_expiry_cached_until_requeued():
    clock = FakeClock(0.0)
    q = make_queue(clock)
    q.add(mkpod("a"))
    p = q.pop()
    assert fail(q, p, "NodeResourcesFit") is None
    bq = q.backoff_q
    assert bq.get_backoff_time(p) == 1.0
    p.unschedulable_count = 3  # not re-added: cached value stays
    assert bq.get_backoff_time(p) == 1.0


def test_backoff_grows_per_failed_attempt_and_caps():
    """Pod rejected repeatedly; each failure is immediately followed by an event that sends it
    to backoffQ. Expiries: ts + 1, 2, 4, 8, 10, 10 (truncated to whole seconds)."""
    from queue_fakes import NODE_ADD, HintPlugin

    pl = HintPlugin("NodeResourcesFit")
    clock = FakeClock(0.0)
    q = make_queue(clock, hints=[(NODE_ADD, pl)])
    q.add(mkpod("a"))
    expiries = []
    for _ in range(6):
        p = q.pop()
        assert p is not None
        fail(q, p, "NodeResourcesFit")
        assert q.unschedulable_pods.get(p.pod) is p
        q.move_all_to_active_or_backoff_queue(NODE_ADD, None, None)
        assert q.backoff_q.has(p)
        expiries.append(q.backoff_q.get_backoff_time(p) - clock.t)
        clock.t += 0.25
    assert expiries == [1.0, 1.75, 3.5, 7.25, 10.0, 9.75]  # floor(t + min(2^(n-1), 10)) - t
    assert [p.unschedulable_count] == [6]


def test_error_attempts_go_to_error_queue_and_count_separately():
    clock = FakeClock(0.0)
    q = make_queue(clock)
    q.add(mkpod("a"))
    p = q.pop()
    fail(q, p)  # no rejecting plugin: an error
    assert p.consecutive_errors_count == 1 and p.unschedulable_count == 0
    assert q.backoff_q.pod_error_backoff_q.has(p)
    # PopFromBackoffQ only takes from the regular backoff heap, never the error heap.
    assert q.pop() is None
    clock.t = 1.0
    q.flush_backoff_q_completed()
    assert q.pop() is None  # expiry 1 is still "backing off" during window 1
    clock.t = 2.0
    q.flush_backoff_q_completed()
    p2 = q.pop()
    assert p2 is p and p.attempts == 2
    fail(q, p, "NodeAffinity")
    assert p.consecutive_errors_count == 0 and p.unschedulable_count == 1
