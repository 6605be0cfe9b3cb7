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

The store, the queue-once mark and the worker's side are services/queued_answers.py and
tasks/queued_answer.py (shared with the compare pages). An answer is keyed by what it is a pure
function of: the scenario and the version of its objects (selectors.scenarios.objects_version),
its seed and gates, the copied pod's text and the number of copies asked for.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import asdict, dataclass
from typing import Any

from playground.services.queued_answers import AnswerStore, Failed, Pending
from scheduler_core.questions.capacity import CapacityResult

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


ANSWERS = AnswerStore(label="capacity", noun="count", task=CAPACITY_TASK, answers=(CapacityResult,),
                      cache_seconds=CACHE_SECONDS, queued_seconds=QUEUED_SECONDS, failed_seconds=FAILED_SECONDS)
lookup = ANSWERS.lookup  # the stored answer or Failed of a Job, or None
store = ANSWERS.store
fail = ANSWERS.fail  # a time limit or an error, shown in place of the answer
send = ANSWERS.send  # queue the worker's task (tests run it in-process instead)


def answer_or_queue(job: Job) -> CapacityResult | Failed | Pending[Job]:
    """The answer if stored; otherwise one task is queued for it (the first viewer's) and
    Pending is returned. Failed when it failed lately, or when no worker could be asked."""
    return ANSWERS.answer_or_queue(job, send)  # this module's `send`, which tests replace


def compute(job: Job) -> CapacityResult | Failed:
    """The worker's part: load the scenario, count the copies, store the answer or the reason it
    failed (_Gone). An answer already stored (a task queued twice) is not counted again."""
    return ANSWERS.compute(job, lambda the_job: _count(the_job), _Gone)


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
