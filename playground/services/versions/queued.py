"""A comparison computed by a worker, never by the web request that asks for it.

Comparing runs the scenario twice to the end (up to 300 nodes x 500 pods: 1-2 s of CPU, a long
Timeline more), and a web process that spends seconds on one page stalls every page and push
it serves. So the page's GET only looks the comparison up: found, it is shown; missing, one
task is queued (`playground.compare_scenario`, tasks/compare.py) and the page says it is
comparing and polls until the worker has stored the result, or a failure (the scenario cannot
run or is too large, the worker's time limit stopped it) with its reason.

The store is Redis (the worker and the web processes share it; Django's default cache is each
process's own memory), keyed by what the comparison is a pure function of: the scenario's
text (digest), the seed, and for "gates on vs off" the version and the canonical gates. A
fork's comparison with its original (reading up to 200,000 events of each run: seconds too)
is keyed by the fork and where both runs stood (`fork_at`).
Concurrent viewers queue one task: the first sets a "queued" mark with NX, the others find it.
A mark outlives a lost task by QUEUED_SECONDS at most; the next poll then queues it again.
"""

from __future__ import annotations

import hashlib
import logging
import pickle
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from playground.selectors.run_decisions import MAX_DECISION_EVENTS
from playground.services.versions.compare import (
    CACHE_SECONDS,
    CACHE_SHAPE,
    VERSIONS,
    CompareError,
    Comparison,
    compare_gates,
    compare_versions,
)
from playground.services.versions.fork_compare import ForkComparison
from playground.services.versions.headless import MAX_UNITS

if TYPE_CHECKING:
    from playground.models import Run

logger = logging.getLogger(__name__)

QUEUED_SECONDS = 300  # a "queued" mark lasts at most this long (a lost task is queued again after it)
FAILED_SECONDS = 300  # a failure is shown this long before a visit tries again


@dataclass(frozen=True)
class Job:
    """One comparison to compute: `kind` "versions" (VERSIONS), "gates" (`gates` on in
    `version` against its defaults) or "fork" (run `run_id` against its original, read from
    both logs as they stood at `at`: fork_at()). Plain fields: it travels to the worker as JSON."""

    kind: str
    yaml_text: str = ""
    seed: int = 0
    version: str = VERSIONS[0]
    gates: str = ""
    run_id: int = 0
    at: str = ""

    @property
    def key(self) -> str:
        if self.kind == "fork":
            return f"playground:compare-fork:{CACHE_SHAPE}:{self.run_id}:{self.at}"
        digest = hashlib.sha256(self.yaml_text.encode("utf-8")).hexdigest()
        if self.kind == "gates":
            return f"playground:compare-gates:{CACHE_SHAPE}:{digest}:{self.seed}:{self.version}:{self.gates}"
        return f"playground:compare:{CACHE_SHAPE}:{digest}:{self.seed}"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self) -> str:
        """What the worker runs, for the page while it waits."""
        if self.kind == "fork":
            return (f"reading both runs' scheduling events, up to {MAX_DECISION_EVENTS:,} each, "
                    "and comparing them decision by decision")
        if self.kind == "gates":
            what = f"{self.version} with {self.gates} and with its default gates"
        else:
            what = " and ".join(VERSIONS)
        return f"two runs of up to {MAX_UNITS:,} engine steps each: {what}, seed {self.seed}"


@dataclass(frozen=True)
class Pending:
    """Queued or being computed: the page polls."""

    job: Job


@dataclass(frozen=True)
class Failed:
    """The comparison could not be made; `message` says what and why."""

    message: str


def _redis() -> Any:
    from playground.infra import redis_client

    return redis_client.shared()


def _mark_key(key: str) -> str:
    return f"{key}:queued"


def lookup(job: Job) -> Comparison | ForkComparison | Failed | None:
    """The stored comparison or failure of `job`, or None. Reads only: no engine work."""
    raw = _redis().get(job.key)
    if raw is None:
        return None
    found = pickle.loads(raw)  # written only by store() below, in a worker
    return found if isinstance(found, (Comparison, ForkComparison, Failed)) else None


def store(job: Job, outcome: Comparison | ForkComparison | Failed) -> None:
    seconds = FAILED_SECONDS if isinstance(outcome, Failed) else CACHE_SECONDS
    client = _redis()
    client.set(job.key, pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL), ex=seconds)
    client.delete(_mark_key(job.key))


COMPARE_TASK = "playground.compare_scenario"  # playground/tasks/compare.py, sent by name


def send(job: Job) -> None:
    """Queue the worker's task for `job` (the runs' queue, behind the Steps already waiting
    there: a Step is milliseconds, a comparison seconds). Tests run it in-process instead."""
    from playground.infra.queues import WARM_PRIORITY, runs_queue, send_task

    queue = runs_queue()
    send_task(COMPARE_TASK, (job.as_dict(),), priority=WARM_PRIORITY, **({"queue": queue} if queue else {}))


def comparison_or_queue(job: Job) -> Comparison | ForkComparison | Failed | Pending:
    """The comparison if stored; otherwise one task is queued for it (the first viewer's) and
    Pending is returned. Failed when it failed lately, or when no worker could be asked."""
    try:
        found = lookup(job)
        if found is not None:
            return found
        if not _redis().set(_mark_key(job.key), 1, nx=True, ex=QUEUED_SECONDS):
            return Pending(job)  # another viewer queued it
    except Exception:
        logger.warning("compare: the result store cannot be reached", exc_info=True)
        return Failed("The comparison could not be started: the worker's store (Redis) cannot be reached now. "
                      "Try again in a moment.")
    try:
        send(job)
    except Exception:
        logger.warning("compare: could not queue the comparison", exc_info=True)
        _redis().delete(_mark_key(job.key))
        return Failed("The comparison could not be started: no worker could be reached. Try again in a moment.")
    return lookup(job) or Pending(job)  # (computed already when the task ran in-process)


def compute(job: Job) -> Comparison | ForkComparison | Failed:
    """The worker's part: run both sides and store the comparison, or the reason it failed.
    A result already stored (a task queued twice) is not computed again."""
    found = lookup(job)
    if found is not None:
        return found
    outcome: Comparison | ForkComparison | Failed
    try:
        if job.kind == "fork":
            outcome = _compare_fork(job)
        elif job.kind == "gates":
            outcome = compare_gates(job.yaml_text, job.seed, job.gates, job.version)
        else:
            outcome = compare_versions(job.yaml_text, job.seed)
    except CompareError as error:
        outcome = Failed(error.message)
    store(job, outcome)
    return outcome


def fork_at(run: Run) -> str:
    """Where a fork and its original stand (head step and status of each): the fork comparison
    is a function of both logs up to there. "" when the run has no original (the worker says so)."""
    parent = run.forked_from
    if parent is None:
        return ""
    return f"{run.head_step}.{run.status}.{parent.pk}.{parent.head_step}.{parent.status}"


def _compare_fork(job: Job) -> ForkComparison:
    """The fork comparison of `job.run_id` (its logs as they are now: at `job.at` or later; a
    page polling for `job.at` gets this, a later visit asks afresh)."""
    from playground.models import Run
    from playground.services.versions.fork_compare import compare_fork

    run = Run.objects.filter(pk=job.run_id).select_related("forked_from").first()
    if run is None:
        raise CompareError("This run was deleted.")
    return compare_fork(fork=run)


def fail(job: Job, message: str) -> None:
    """Record why the worker stopped computing `job` (its time limit): the page shows it."""
    store(job, Failed(message))
