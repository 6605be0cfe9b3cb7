"""A comparison computed by a worker, never by the web request that asks for it.

Comparing runs the scenario twice to the end (up to 300 nodes x 500 pods: 1-2 s of CPU, a long
Timeline more), and a web process that spends seconds on one page stalls every page and push
it serves. So the page's GET only looks the comparison up: found, it is shown; missing, one
task is queued (`playground.compare_scenario`, tasks/compare.py) and the page says it is
comparing and polls until the worker has stored the result, or a failure (the scenario cannot
run or is too large, the worker's time limit stopped it) with its reason.

The store, the queue-once mark and the worker's side are services/queued_answers.py and
tasks/queued_answer.py (shared with the capacity page's big scenarios). A comparison is keyed by
what it is a pure function of: the scenario's text (digest), the seed, and for "gates on vs off"
the version and the canonical gates. A fork's comparison with its original (reading up to
200,000 events of each run: seconds too) is keyed by the fork and where both runs stood (`fork_at`).
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from playground.selectors.run_decisions import MAX_DECISION_EVENTS
from playground.services.queued_answers import AnswerStore, Failed, Pending
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


COMPARE_TASK = "playground.compare_scenario"  # playground/tasks/compare.py, sent by name
ANSWERS = AnswerStore(label="compare", noun="comparison", task=COMPARE_TASK,
                      answers=(Comparison, ForkComparison), cache_seconds=CACHE_SECONDS,
                      queued_seconds=QUEUED_SECONDS, failed_seconds=FAILED_SECONDS)
lookup = ANSWERS.lookup  # the stored comparison or Failed of a Job, or None
store = ANSWERS.store
fail = ANSWERS.fail  # why the worker stopped (its time limit): the page shows it
send = ANSWERS.send  # queue the worker's task (tests run it in-process instead)


def comparison_or_queue(job: Job) -> Comparison | ForkComparison | Failed | Pending[Job]:
    """The comparison if stored; otherwise one task is queued for it (the first viewer's) and
    Pending is returned. Failed when it failed lately, or when no worker could be asked."""
    return ANSWERS.answer_or_queue(job, send)  # this module's `send`, which tests replace


def compute(job: Job) -> Comparison | ForkComparison | Failed:
    """The worker's part: run both sides and store the comparison, or the reason it failed
    (CompareError). A result already stored (a task queued twice) is not computed again."""
    return ANSWERS.compute(job, _compare, CompareError)


def _compare(job: Job) -> Comparison | ForkComparison:
    if job.kind == "fork":
        return _compare_fork(job)
    if job.kind == "gates":
        return compare_gates(job.yaml_text, job.seed, job.gates, job.version)
    return compare_versions(job.yaml_text, job.seed)


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

