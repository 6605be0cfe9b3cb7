"""Challenge documents: a task for the learner, goals checked on a run's outcome, and hints.

A scenario may carry one Challenge (playground.kube-scheduler.dev/v1). The engine ignores it (the
loader takes it out of the document stream, like a Lesson, so error messages keep the file's
document numbers). The learner forks the scenario, edits it (editor or YAML), runs it, and the run
page checks the goals against the run: the pods' final places (the run's view) and its events
(`victim_deleted` for preemptions). See docs/challenges.md.

    apiVersion: playground.kube-scheduler.dev/v1
    kind: Challenge
    metadata: {name: keep-a-empty}
    title: "Keep node a empty"
    task: "Make web-3 run on node b while node a stays empty."
    goals:
    - podOn: {pod: web-3, node: b}
    - nodeEmpty: a
    hints: ["A taint keeps pods off a node unless they tolerate it."]

Goals (all must hold; pods are `name` in the default namespace or `namespace/name`):
`podOn: {pod, node}`, `podPending: pod`, `nodeEmpty: node`, `nodeRuns: {node, pods: [...]}` (exactly
those pods), `allBound: true`, `distinctNodes: [pods]`, `preemptions: {preemptor, victims: N}`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from scheduler_core.api.errors import ScenarioError

__all__ = ["Challenge", "Goal", "GoalResult", "parse_challenge", "split_challenges", "challenges_of_text",
           "check", "GOAL_KINDS"]

GOAL_KINDS = ("podOn", "podPending", "nodeEmpty", "nodeRuns", "allBound", "distinctNodes", "preemptions")
MAX_TEXT = 600
MAX_GOALS = 20
MAX_HINTS = 10


@dataclass(frozen=True)
class Goal:
    kind: str
    value: Any

    def describe(self) -> str:
        v = self.value
        if self.kind == "podOn":
            return f"{v['pod']} runs on {v['node']}"
        if self.kind == "podPending":
            return f"{v} stays Pending"
        if self.kind == "nodeEmpty":
            return f"node {v} runs no pod"
        if self.kind == "nodeRuns":
            return f"node {v['node']} runs exactly {', '.join(v['pods']) or 'no pod'}"
        if self.kind == "allBound":
            return "every pod is bound"
        if self.kind == "distinctNodes":
            return f"{', '.join(v)} run on different nodes"
        return f"{v['preemptor']} preempts exactly {v['victims']} pod{'' if v['victims'] == 1 else 's'}"


@dataclass(frozen=True)
class Challenge:
    name: str
    title: str
    task: str
    goals: tuple[Goal, ...]
    hints: tuple[str, ...] = ()


@dataclass(frozen=True)
class GoalResult:
    goal: str
    passed: bool
    why: str


def _text(obj: Any, path: str, err: Any, *, required: bool = False) -> str:
    if obj is None and not required:
        return ""
    if not isinstance(obj, str) or (required and not obj.strip()):
        raise err(path, "Required value: text" if required else "expected text")
    if len(obj) > MAX_TEXT:
        raise err(path, f"Too long: at most {MAX_TEXT} characters")
    return obj.strip()


def _names(obj: Any, path: str, err: Any) -> list[str]:
    if not isinstance(obj, list) or not all(isinstance(x, str) and x for x in obj):
        raise err(path, "expected a list of names")
    return list(obj)


def _goal(obj: Any, path: str, err: Any) -> Goal:
    if not isinstance(obj, dict) or len(obj) != 1:
        raise err(path, f"expected one goal, a mapping with one of: {', '.join(GOAL_KINDS)}")
    ((kind, value),) = obj.items()
    where = f"{path}.{kind}"
    if kind not in GOAL_KINDS:
        raise err(where, f"Unsupported value: {kind!r}: one of {', '.join(GOAL_KINDS)}")
    if kind == "podOn":
        if not isinstance(value, dict) or set(value) != {"pod", "node"}:
            raise err(where, "expected {pod, node}")
        return Goal(kind, {"pod": _text(value["pod"], f"{where}.pod", err, required=True),
                           "node": _text(value["node"], f"{where}.node", err, required=True)})
    if kind in ("podPending", "nodeEmpty"):
        return Goal(kind, _text(value, where, err, required=True))
    if kind == "nodeRuns":
        if not isinstance(value, dict) or set(value) != {"node", "pods"}:
            raise err(where, "expected {node, pods}")
        return Goal(kind, {"node": _text(value["node"], f"{where}.node", err, required=True),
                           "pods": _names(value["pods"], f"{where}.pods", err)})
    if kind == "allBound":
        if value is not True:
            raise err(where, "expected true")
        return Goal(kind, True)
    if kind == "distinctNodes":
        names = _names(value, where, err)
        if len(names) < 2:
            raise err(where, "expected at least two pods")
        return Goal(kind, names)
    if not isinstance(value, dict) or set(value) != {"preemptor", "victims"}:
        raise err(where, "expected {preemptor, victims}")
    victims = value["victims"]
    if isinstance(victims, bool) or not isinstance(victims, int) or victims < 0:
        raise err(f"{where}.victims", "expected a number of pods (0 or more)")
    return Goal(kind, {"preemptor": _text(value["preemptor"], f"{where}.preemptor", err, required=True),
                       "victims": victims})


def parse_challenge(obj: dict[str, Any], source: str = "<input>", document: int | None = None) -> Challenge:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = meta.get("name") if isinstance(meta.get("name"), str) else ""

    def err(path: str, reason: str) -> ScenarioError:
        return ScenarioError(reason, file=source, document=document, kind="Challenge", name=name, field=path)

    if obj.get("apiVersion") != "playground.kube-scheduler.dev/v1":
        raise err("apiVersion", 'Unsupported value: expected "playground.kube-scheduler.dev/v1"')
    unknown = set(obj) - {"apiVersion", "kind", "metadata", "title", "task", "goals", "hints"}
    if unknown:
        raise err(sorted(unknown)[0], "unknown field (allowed: metadata, title, task, goals, hints)")
    if not name:
        raise err("metadata.name", "Required value")
    goals = obj.get("goals")
    if not isinstance(goals, list) or not goals:
        raise err("goals", "Required value: a list of goals")
    if len(goals) > MAX_GOALS:
        raise err("goals", f"Too many: at most {MAX_GOALS}")
    hints = obj.get("hints") or []
    if not isinstance(hints, list) or len(hints) > MAX_HINTS:
        raise err("hints", f"expected a list of at most {MAX_HINTS} hints")
    return Challenge(
        name=name,
        title=_text(obj.get("title"), "title", err),
        task=_text(obj.get("task"), "task", err, required=True),
        goals=tuple(_goal(g, f"goals[{i}]", err) for i, g in enumerate(goals)),
        hints=tuple(_text(h, f"hints[{i}]", err, required=True) for i, h in enumerate(hints)),
    )


def split_challenges(docs: list[Any], source: str = "<input>") -> tuple[list[Any], list[Challenge]]:
    """The documents with every Challenge replaced by None (numbers stay), and at most one
    Challenge parsed."""
    found: list[Challenge] = []
    out: list[Any] = []
    for index, doc in enumerate(docs, start=1):
        if isinstance(doc, dict) and doc.get("kind") == "Challenge":
            if found:
                raise ScenarioError("only one Challenge document is allowed", file=source, document=index,
                                    kind="Challenge")
            found.append(parse_challenge(doc, source=source, document=index))
            out.append(None)
        else:
            out.append(doc)
    return out, found


def challenges_of_text(text: str, source: str = "<input>") -> list[Challenge]:
    """The Challenge of a scenario's YAML text (reading only the document that declares it)."""
    if "kind: Challenge" not in text:
        return []
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    docs = [yaml.load(chunk, Loader=loader) if "kind: Challenge" in chunk else {}
            for chunk in text.split("\n---")]
    return split_challenges(docs, source)[1]


def _key(name: str) -> str:
    return name if "/" in name else f"default/{name}"


def check(challenge: Challenge, pods: Iterable[dict[str, Any]], events: Iterable[dict[str, Any]]) -> list[GoalResult]:
    """Each goal against a run: `pods` as the run's view lists them (key, status, node), `events`
    the run's events (only `victim_deleted` is read). Says why for each goal."""
    pods = list(pods)
    by_key = {p["key"]: p for p in pods}
    on_node: dict[str, list[str]] = {}
    for p in pods:
        if p.get("status") == "Bound" and p.get("node"):
            on_node.setdefault(p["node"], []).append(p["key"])
    victims: dict[str, list[str]] = {}
    for e in events:
        if e.get("type") == "victim_deleted" and e.get("preemptor"):
            victims.setdefault(e["preemptor"], []).append(e["pod"])

    def where(name: str) -> str:
        p = by_key.get(_key(name))
        if p is None:
            return f"there is no pod {name}"
        if p.get("status") == "Bound":
            return f"{name} runs on {p.get('node')}"
        return f"{name} is {p.get('status')}" + (f" ({p['deletedBy']})" if p.get("deletedBy") else "")

    results = []
    for goal in challenge.goals:
        v = goal.value
        if goal.kind == "podOn":
            p = by_key.get(_key(v["pod"]), {})
            ok = p.get("status") == "Bound" and p.get("node") == v["node"]
            why = where(v["pod"])
        elif goal.kind == "podPending":
            ok = by_key.get(_key(v), {}).get("status") == "Pending"
            why = where(v)
        elif goal.kind == "nodeEmpty":
            there = on_node.get(v, [])
            ok = not there
            why = f"node {v} runs " + (", ".join(there) if there else "no pod")
        elif goal.kind == "nodeRuns":
            there = sorted(on_node.get(v["node"], []))
            ok = there == sorted(_key(n) for n in v["pods"])
            why = f"node {v['node']} runs " + (", ".join(there) if there else "no pod")
        elif goal.kind == "allBound":
            waiting = [p["key"] for p in pods if p.get("status") == "Pending"]
            ok = not waiting
            why = "every pod is bound" if ok else f"{len(waiting)} pending: " + ", ".join(waiting[:5])
        elif goal.kind == "distinctNodes":
            nodes = [by_key.get(_key(n), {}).get("node") if by_key.get(_key(n), {}).get("status") == "Bound"
                     else None for n in v]
            ok = None not in nodes and len(set(nodes)) == len(nodes)
            why = "; ".join(where(n) for n in v)
        else:
            deleted = victims.get(_key(v["preemptor"]), [])
            ok = len(deleted) == v["victims"]
            why = f"{v['preemptor']} preempted {len(deleted)}" + (f": {', '.join(deleted)}" if deleted else "")
        results.append(GoalResult(goal.describe(), ok, why))
    return results
