"""The "How many more fit?" page's answer: `scheduler_core.questions.capacity` on a stored scenario.

Small scenarios (the hand-made and gallery ones: at most MAX_NODES nodes and MAX_OBJECTS
objects, counted in the database before anything is loaded) are answered in the request, where
the answer takes a fraction of a second: at most MAX_COPIES copies and CPU_BUDGET seconds of CPU
for them once the cluster is loaded; past the budget the answer is "at least N" and says so.
A bigger scenario (an imported dump of thousands of nodes) is counted by a worker
(services.capacity_queued): the page says it is counting and polls for the answer. The command
line (`python -m scheduler_core capacity`) has no such bounds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import yaml

from playground.models import Scenario
from playground.selectors.scenarios import objects_version, scenario_yaml
from playground.services.capacity_queued import Failed, Job, Pending, answer_or_queue
from scheduler_core.questions.capacity import CapacityResult, PodTemplate, count_capacity, parse_pod_template

MAX_NODES = 300
MAX_OBJECTS = 1000
MAX_COPIES = 500
DEFAULT_COPIES = 100
MAX_PASTE = 20_000  # characters of pasted YAML
CPU_BUDGET = 0.5  # seconds of CPU for the copies, in the request
TEMPLATE_KINDS = ("Pod", "Deployment", "ReplicaSet")


class CapacityError(Exception):
    """The question cannot be answered here; `message` says why (and what to do)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass
class Choice:
    """A pod or workload of the scenario that copies can be made of."""

    id: int
    kind: str
    key: str  # namespace/name

    @property
    def label(self) -> str:
        return f"{self.kind} {self.key}"


def capacity_choices(*, scenario: Scenario) -> list[Choice]:
    """The scenario's Deployments, ReplicaSets and pods not bound in advance, in document order."""
    rows = scenario.kube_objects.filter(kind__in=TEMPLATE_KINDS).order_by("order", "id")
    out = []
    for row in rows.values("id", "kind", "namespace", "name", "manifest"):
        spec = (row["manifest"] or {}).get("spec") if isinstance(row["manifest"], dict) else None
        if row["kind"] == "Pod" and isinstance(spec, dict) and spec.get("nodeName"):
            continue
        out.append(Choice(row["id"], row["kind"], f"{row['namespace'] or 'default'}/{row['name']}"))
    return out


def _template(scenario: Scenario, pick: str | None, pasted: str | None) -> tuple[PodTemplate, str, str]:
    """The pod to copy, with its YAML text and where it came from (for a worker to parse again)."""
    from scheduler_core.api.errors import ScenarioError

    if pasted is not None and pasted.strip():
        if len(pasted) > MAX_PASTE:
            raise CapacityError(f"Pasted YAML: at most {MAX_PASTE:,} characters.")
        text, source = pasted, "pasted YAML"
    elif pick:
        try:
            row = scenario.kube_objects.get(pk=int(pick), kind__in=TEMPLATE_KINDS)
        except (ValueError, scenario.kube_objects.model.DoesNotExist):
            raise CapacityError(f"pod: {pick!r} is not a Pod, Deployment or ReplicaSet of this scenario.") from None
        text, source = yaml.safe_dump(row.manifest, sort_keys=False), f"{row.kind} {row.name}"
    else:
        raise CapacityError("Pick a pod or workload of the scenario, or paste a Pod or Deployment.")
    try:
        return parse_pod_template(text, source), text, source
    except ScenarioError as e:
        raise CapacityError(str(e)) from None


def _copies(value: str | None) -> int:
    if value in (None, ""):
        return DEFAULT_COPIES
    try:
        n = int(value)
    except ValueError:
        raise CapacityError(f"max: {value!r} is not a whole number.") from None
    if not 1 <= n <= MAX_COPIES:
        raise CapacityError(f"max: {n} is out of range (1 to {MAX_COPIES}); the command line has no limit.")
    return n


def capacity_answer(*, scenario: Scenario, pick: str | None, pasted: str | None,
                    max_copies: str | None) -> CapacityResult | Pending:
    """How many copies of the picked (or pasted) pod fit the scenario's cluster (see module):
    the answer, or Pending while a worker counts them for a big scenario."""
    from scheduler_core.api.errors import ScenarioError
    from scheduler_core.loader import load_scenario_text
    from scheduler_core.simulation import Simulation

    limit = _copies(max_copies)
    template, text, source = _template(scenario, pick, pasted)
    nodes = scenario.kube_objects.filter(kind="Node").count()
    objects = scenario.kube_objects.count()
    if nodes > MAX_NODES or objects > MAX_OBJECTS:
        outcome = answer_or_queue(Job(scenario_id=scenario.pk, version=objects_version(scenario=scenario),
                                      seed=scenario.seed, gates=scenario.feature_gates or "",
                                      template_text=text, source=source, max_copies=limit))
        if isinstance(outcome, Failed):
            raise CapacityError(outcome.message)
        return outcome
    try:
        sim = Simulation(load_scenario_text(scenario_yaml(scenario=scenario), source=scenario.name),
                         seed=scenario.seed, feature_gates=scenario.feature_gates or None)
        started = time.process_time()
        return count_capacity(sim, template, limit,
                              out_of_budget=lambda: time.process_time() - started > CPU_BUDGET)
    except ScenarioError as e:
        raise CapacityError(str(e)) from None
