"""The "How many more fit?" answer for a big scenario, computed by a worker.

A scenario past the request's bounds (services.capacity: MAX_NODES nodes, MAX_OBJECTS objects)
takes seconds to load and seconds more to place a thousand copies: a web process spending that
on one page stalls every page and push it serves. So, as the compare pages do
(services/versions/queued.py), the GET only looks the answer up: found, it is shown; missing,
one task is queued (`playground.capacity_scenario`, tasks/capacity.py) and the page says it is
counting and polls until the worker has stored the answer, or a failure with its reason.

Bounds in the worker: the scenario was stored under the web's limits (the same a run's worker
loads), at most MAX_COPIES copies are added, the copies get WORKER_CPU_BUDGET seconds of CPU
(past it the answer is "at least N", as in the request), and the task stops at the run tasks'
time limits (PLAYGROUND_TASK_SOFT_TIME_LIMIT / PLAYGROUND_TASK_TIME_LIMIT), the page then
naming the limit.

The store is Redis (shared by the worker and the web processes), keyed by what the answer is a
pure function of: the scenario and the version of its objects (selectors.scenarios.objects_version),
its seed and gates, the copied pod's text and the number of copies asked for. Concurrent viewers
queue one task: the first sets a "queued" mark with NX; a mark outlives a lost task by
QUEUED_SECONDS at most, and the next poll then queues it again.
"""

from __future__ import annotations

import hashlib
import logging
import pickle
import time
from dataclasses import asdict, dataclass
from typing import Any

from scheduler_core.questions.capacity import CapacityResult

logger = logging.getLogger(__name__)

CACHE_SECONDS = 3600  # an answer is kept this long (a changed scenario has another key anyway)
QUEUED_SECONDS = 300
FAILED_SECONDS = 300
WORKER_CPU_BUDGET = 60.0  # seconds of CPU for the copies, in the worker
CAPACITY_TASK = "playground.capacity_scenario"  # tasks/capacity.py, sent by name


@dataclass(frozen=True)
class Job:
    """One count to make: copies of the pod in `template_text` (its `source` for messages) on
    scenario `scenario_id` as its objects stood at `version`. Plain fields: it travels to the
    worker as JSON; the worker reads the scenario itself (megabytes stay out of the message)."""

    scenario_id: int
    version: str
    seed: int
    gates: str
    template_text: str
    source: str
    max_copies: int

    @property
    def key(self) -> str:
        digest = hashlib.sha256(self.template_text.encode("utf-8")).hexdigest()
        return (f"playground:capacity:{self.scenario_id}:{self.version}:{self.seed}:{self.gates}:"
                f"{digest}:{self.max_copies}")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Pending:
    """Queued or being counted: the page polls."""

    job: Job


@dataclass(frozen=True)
class Failed:
    """The count could not be made; `message` says what and why."""

    message: str


def _redis() -> Any:
    from playground.infra import redis_client

    return redis_client.shared()


def _mark_key(key: str) -> str:
    return f"{key}:queued"


def lookup(job: Job) -> CapacityResult | Failed | None:
    """The stored answer or failure of `job`, or None. Reads only: no engine work."""
    raw = _redis().get(job.key)
    if raw is None:
        return None
    found = pickle.loads(raw)  # written only by store() below, in a worker
    return found if isinstance(found, (CapacityResult, Failed)) else None


def store(job: Job, outcome: CapacityResult | Failed) -> None:
    client = _redis()
    seconds = FAILED_SECONDS if isinstance(outcome, Failed) else CACHE_SECONDS
    client.set(job.key, pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL), ex=seconds)
    client.delete(_mark_key(job.key))


def fail(job: Job, message: str) -> None:
    """Store a failure the page shows in place of the answer (a time limit, an error)."""
    store(job, Failed(message))


def send(job: Job) -> None:
    """Queue the worker's task for `job` on the runs' queue (tests run it in-process instead)."""
    from playground.infra.queues import WARM_PRIORITY, runs_queue, send_task

    queue = runs_queue()
    send_task(CAPACITY_TASK, (job.as_dict(),), priority=WARM_PRIORITY, **({"queue": queue} if queue else {}))


def answer_or_queue(job: Job) -> CapacityResult | Failed | Pending:
    """The answer if stored; otherwise one task is queued for it (the first viewer's) and
    Pending is returned. Failed when it failed lately, or when no worker could be asked."""
    try:
        found = lookup(job)
        if found is not None:
            return found
        if not _redis().set(_mark_key(job.key), 1, nx=True, ex=QUEUED_SECONDS):
            return Pending(job)  # another viewer queued it
    except Exception:
        logger.warning("capacity: the result store cannot be reached", exc_info=True)
        return Failed("The count could not be started: the worker's store (Redis) cannot be reached now. "
                      "Try again in a moment.")
    try:
        send(job)
    except Exception:
        logger.warning("capacity: could not queue the count", exc_info=True)
        _redis().delete(_mark_key(job.key))
        return Failed("The count could not be started: no worker could be reached. Try again in a moment.")
    return lookup(job) or Pending(job)  # (counted already when the task ran in-process)


def compute(job: Job) -> CapacityResult | Failed:
    """The worker's part: load the scenario, count the copies, store the answer or the reason it
    failed. An answer already stored (a task queued twice) is not computed again."""
    found = lookup(job)
    if found is not None:
        return found
    outcome: CapacityResult | Failed
    try:
        outcome = _count(job)
    except _Gone as gone:
        outcome = Failed(str(gone))
    store(job, outcome)
    return outcome


class _Gone(Exception):
    """The scenario was deleted or changed since the page asked, or cannot be counted."""


def _count(job: Job) -> CapacityResult:
    from playground.limits import web_limits
    from playground.models import Scenario
    from playground.selectors.scenarios import objects_version, scenario_yaml
    from scheduler_core.api.errors import ScenarioError
    from scheduler_core.loader import load_scenario_text
    from scheduler_core.questions.capacity import count_capacity, parse_pod_template
    from scheduler_core.simulation import Simulation

    scenario = Scenario.objects.filter(pk=job.scenario_id).first()
    if scenario is None:
        raise _Gone("This scenario was deleted.")
    if objects_version(scenario=scenario) != job.version:
        raise _Gone("The scenario changed while its copies were being counted: ask again.")
    try:
        template = parse_pod_template(job.template_text, job.source)
        sim = Simulation(load_scenario_text(scenario_yaml(scenario=scenario), source=scenario.name,
                                            limits=web_limits()),
                         seed=job.seed, feature_gates=job.gates or None)
        started = time.process_time()
        return count_capacity(sim, template, job.max_copies,
                              out_of_budget=lambda: time.process_time() - started > WORKER_CPU_BUDGET)
    except ScenarioError as e:
        raise _Gone(str(e)) from None
