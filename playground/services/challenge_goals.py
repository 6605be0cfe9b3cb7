"""A challenge's goals checked against the scenario they judge, before the builder saves them.

The Challenge document's own format is checked by the loader (scheduler_core/api/challenge.py),
which cannot see more than the document: a goal naming a pod or a node the scenario does not
have parses fine and then fails for every learner, whatever they do ("there is no pod web-9").
The builder refuses such a goal with its field and the names the scenario does have, and saves
nothing. Only the builder checks: a learner's own copy may drop the pods its goals name (that is
an answer, judged as wrong), and the loader must keep accepting what it accepted.

The names a goal may use are the ones a run can have without the learner adding them: the
scenario's pods (those its workloads create at load included) and nodes, and those its timeline
adds (addPod, addNode).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scheduler_core.api.challenge import Challenge

LISTED = 12  # names quoted in a refusal: enough to spot the typo, short enough to read


@dataclass(frozen=True)
class ScenarioNames:
    """The pods (as `namespace/name`) and nodes a run of the scenario can have."""

    pods: frozenset[str]
    nodes: frozenset[str]


def scenario_names(loaded: Any) -> ScenarioNames:
    """The names of a loaded scenario (`scheduler_core.api.scenario.Scenario`)."""
    pods = {f"{p.namespace}/{p.name}" for p in loaded.pods}
    nodes = {n.name for n in loaded.nodes}
    for action in loaded.timeline:
        if action.action == "addPod":
            pod = action.params["pod"]
            pods.add(f"{pod.namespace}/{pod.name}")
        elif action.action == "addNode":
            nodes.add(action.params["node"].name)
    return ScenarioNames(frozenset(pods), frozenset(nodes))


def _key(name: str) -> str:
    return name if "/" in name else f"default/{name}"


def _shown(names: frozenset[str], *, pods: bool) -> str:
    if not names:
        return "it has none"
    shown = sorted(n.removeprefix("default/") if pods else n for n in names)
    more = f", … ({len(shown) - LISTED} more)" if len(shown) > LISTED else ""
    return "it has " + ", ".join(shown[:LISTED]) + more


def _refs(kind: str, value: Any, where: str) -> list[tuple[str, str, str]]:
    """(field, "pod" or "node", name) for every name the goal uses."""
    if kind == "podOn":
        return [(f"{where}.pod", "pod", value["pod"]), (f"{where}.node", "node", value["node"])]
    if kind == "podPending":
        return [(where, "pod", value)]
    if kind == "nodeEmpty":
        return [(where, "node", value)]
    if kind == "nodeRuns":
        return [(f"{where}.node", "node", value["node"])] + [
            (f"{where}.pods[{j}]", "pod", name) for j, name in enumerate(value["pods"])]
    if kind == "distinctNodes":
        return [(f"{where}[{j}]", "pod", name) for j, name in enumerate(value)]
    if kind == "preemptions":
        return [(f"{where}.preemptor", "pod", value["preemptor"])]
    return []  # allBound names nothing


def goal_problems(challenge: Challenge, names: ScenarioNames) -> list[tuple[str, str]]:
    """(field, why) for each name a goal uses that the scenario lacks, and each pod a list names
    twice (such a goal can never hold); empty when every goal can be judged."""
    problems: list[tuple[str, str]] = []
    for i, goal in enumerate(challenge.goals):
        where = f"goals[{i}].{goal.kind}"
        seen: set[str] = set()
        for field, what, name in _refs(goal.kind, goal.value, where):
            if what == "pod":
                key = _key(name)
                if key not in names.pods:
                    problems.append((field, f'no pod "{name}" in this scenario ({_shown(names.pods, pods=True)})'))
                elif key in seen and goal.kind in ("nodeRuns", "distinctNodes"):
                    problems.append((field, f'pod "{name}" is named twice: the goal could never hold'))
                seen.add(key)
            elif name not in names.nodes:
                problems.append((field, f'no node "{name}" in this scenario ({_shown(names.nodes, pods=False)})'))
    return problems
