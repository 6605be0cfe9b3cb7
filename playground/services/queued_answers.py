"""An answer a worker computes and stores in Redis while the page that asked polls for it.

Some answers take seconds of CPU (comparing two runs, counting copies on a big scenario): a web
process spending that on one page stalls every page and push it serves. So the page's GET only
looks the answer up: found, it is shown; missing, one task is queued and the page says it is
working and polls until the worker has stored the answer, or a failure with its reason.

The store is Redis: the worker and the web processes share it (Django's default cache is each
process's own memory). An answer is keyed by what it is a pure function of (each kind's Job
says what: its `key`). Concurrent viewers queue one task: the first sets a "queued" mark with NX,
the others find it. A mark outlives a lost task by `queued_seconds` at most; the next poll then
queues it again. A failure is kept `failed_seconds`, then a visit asks afresh.

Each kind of answer (services/capacity_queued.py, services/versions/queued.py) names its task,
its answer types and its wording in one AnswerStore; the worker's side of the task is
tasks/queued_answer.py.
"""

from __future__ import annotations

import logging
import pickle
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

logger = logging.getLogger(__name__)


class QueuedJob(Protocol):
    """What a kind's Job gives: the answer's key, and plain fields to send to the worker as JSON."""

    @property
    def key(self) -> str: ...

    def as_dict(self) -> dict[str, Any]: ...


J = TypeVar("J", bound=QueuedJob)


@dataclass(frozen=True)
class Pending(Generic[J]):
    """Queued or being computed: the page polls."""

    job: J


@dataclass(frozen=True)
class Failed:
    """The answer could not be computed; `message` says what and why."""

    message: str


def _redis() -> Any:
    from playground.infra import redis_client

    return redis_client.shared()


def _mark_key(key: str) -> str:
    return f"{key}:queued"


@dataclass(frozen=True)
class AnswerStore:
    """Where one kind of answer is stored, and how it is asked for.

    `label` starts its log lines ("capacity"); `noun` names the work on the page ("count":
    "The count could not be started: ..."); `task` is the worker's task, sent by name;
    `answers` are the types a stored answer may have (besides Failed): anything else read
    back is treated as missing."""

    label: str
    noun: str
    task: str
    answers: tuple[type, ...]
    cache_seconds: int
    queued_seconds: int = 300
    failed_seconds: int = 300

    def lookup(self, job: QueuedJob) -> Any:
        """The stored answer or Failed of `job`, or None. Reads only: no engine work."""
        raw = _redis().get(job.key)
        if raw is None:
            return None
        found = pickle.loads(raw)  # written only by store() below, in a worker
        return found if isinstance(found, (*self.answers, Failed)) else None

    def store(self, job: QueuedJob, outcome: Any) -> None:
        """Keep `outcome` (an answer, or Failed for a shorter while) and lift the queued mark."""
        client = _redis()
        seconds = self.failed_seconds if isinstance(outcome, Failed) else self.cache_seconds
        client.set(job.key, pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL), ex=seconds)
        client.delete(_mark_key(job.key))

    def fail(self, job: QueuedJob, message: str) -> None:
        """Store a failure the page shows in place of the answer (a time limit, an error)."""
        self.store(job, Failed(message))

    def send(self, job: QueuedJob) -> None:
        """Queue the worker's task for `job` on the runs' queue, behind the Steps already waiting
        there (a Step is milliseconds, these answers seconds)."""
        from playground.infra.queues import WARM_PRIORITY, runs_queue, send_task

        queue = runs_queue()
        send_task(self.task, (job.as_dict(),), priority=WARM_PRIORITY, **({"queue": queue} if queue else {}))

    def answer_or_queue(self, job: J, send: Callable[[J], None]) -> Any:
        """The answer if stored; otherwise one task is queued for it through `send` (the first
        viewer's) and Pending is returned. Failed when it failed lately, or when no worker could
        be asked."""
        try:
            found = self.lookup(job)
            if found is not None:
                return found
            if not _redis().set(_mark_key(job.key), 1, nx=True, ex=self.queued_seconds):
                return Pending(job)  # another viewer queued it
        except Exception:
            logger.warning("%s: the result store cannot be reached", self.label, exc_info=True)
            return Failed(f"The {self.noun} could not be started: the worker's store (Redis) cannot be reached "
                          "now. Try again in a moment.")
        try:
            send(job)
        except Exception:
            logger.warning("%s: could not queue the %s", self.label, self.noun, exc_info=True)
            _redis().delete(_mark_key(job.key))
            return Failed(f"The {self.noun} could not be started: no worker could be reached. Try again in a moment.")
        return self.lookup(job) or Pending(job)  # (computed already when the task ran in-process)

    def compute(self, job: J, work: Callable[[J], Any], refused: type[Exception]) -> Any:
        """The worker's part: `work(job)` and store its answer, or Failed with the message of
        the `refused` error it raised (the input cannot be answered). An answer already stored
        (a task queued twice) is not computed again."""
        found = self.lookup(job)
        if found is not None:
            return found
        try:
            outcome = work(job)
        except refused as error:
            outcome = Failed(str(error))
        self.store(job, outcome)
        return outcome
