"""The one home of "an answer a worker computes and stores in Redis, the page polls"
(services/queued_answers.py), read through a kind of answer of its own: viewers queue one task,
the worker's answer or refusal is what the next poll finds, a stored value of another kind reads
as missing, and an unreachable worker is said and leaves no mark behind. The store is the
session's real Redis. (The compare and capacity pages' tests run the same through their pages.)"""

from __future__ import annotations

import pickle
from dataclasses import asdict, dataclass
from typing import Any

import pytest

from playground.infra import redis_client
from playground.services.queued_answers import AnswerStore, Failed, Pending


@dataclass(frozen=True)
class Square:
    """A toy kind of answer: the square of `n`, refused for a negative `n`."""

    n: int

    @property
    def key(self) -> str:
        return f"playground:test-square:{self.n}"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class Negative(Exception):
    pass


def _square(job: Square) -> int:
    if job.n < 0:
        raise Negative(f"{job.n} is negative: no square is counted for it here.")
    return job.n * job.n


SQUARES = AnswerStore(label="square", noun="square", task="playground.test_square", answers=(int,),
                      cache_seconds=60)


@pytest.fixture
def client(settings: Any, redis_url: str) -> Any:
    settings.REDIS_URL = redis_url
    found = redis_client.shared()
    for key in found.scan_iter("playground:test-square:*"):
        found.delete(key)
    return found


def test_viewers_queue_one_task_and_the_next_poll_finds_the_workers_answer(client: Any) -> None:
    sent: list[Square] = []
    job = Square(7)
    assert SQUARES.answer_or_queue(job, sent.append) == Pending(job)
    assert SQUARES.answer_or_queue(job, sent.append) == Pending(job)  # a second viewer: no second task
    assert sent == [job]
    assert SQUARES.compute(job, _square, Negative) == 49
    assert client.get(f"{job.key}:queued") is None  # the mark is lifted with the answer
    assert SQUARES.answer_or_queue(job, sent.append) == 49 and sent == [job]
    assert SQUARES.compute(job, lambda _job: pytest.fail("computed twice"), Negative) == 49


def test_a_refused_job_is_stored_as_its_reason_and_shown_for_a_shorter_while(client: Any) -> None:
    job = Square(-2)
    failed = SQUARES.compute(job, _square, Negative)
    assert failed == Failed("-2 is negative: no square is counted for it here.")
    assert SQUARES.lookup(job) == failed
    assert 0 < client.ttl(job.key) <= SQUARES.failed_seconds


def test_a_stored_value_of_another_kind_reads_as_missing(client: Any) -> None:
    job = Square(3)
    client.set(job.key, pickle.dumps("not a square"))
    assert SQUARES.lookup(job) is None


def test_no_worker_reachable_is_said_and_the_next_viewer_can_queue_again(client: Any) -> None:
    job = Square(5)

    def down(_job: Square) -> None:
        raise ConnectionError("no broker")

    outcome = SQUARES.answer_or_queue(job, down)
    assert outcome == Failed("The square could not be started: no worker could be reached. Try again in a moment.")
    assert client.get(f"{job.key}:queued") is None
    sent: list[Square] = []
    assert SQUARES.answer_or_queue(job, sent.append) == Pending(job) and sent == [job]
