"""The lesson panel (partials/lesson.html): the scenario's Lesson document (scheduler_core.api.lesson)
step by step over a run: the caption of the step on screen, the panels to watch, the question to
answer before the next step, and the answers checked against the events of the step they are about.

A lesson step is about a frame: `step: S` is the run's step S, `cycle: C` the frame that ran
scheduling cycle C. The learner's answers live in their session, per run (`answers`)."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from playground.selectors.points import POINT_ORDER
from playground.selectors.runs import snapshot_may_hold
from scheduler_core.api.errors import ScenarioError
from scheduler_core.api.lesson import Lesson, LessonStep, lessons_of_text

if TYPE_CHECKING:
    from playground.presenters.runs.screen import Screen

SESSION_KEY = "lesson_answers"
# The page element each `watch` name highlights.
WATCH_SELECTORS = {
    "queues": "#run-queues",
    "cluster": "#run-cluster",
    "filter": "#filter-matrix",
    "scores": "#score-table",
    "preemption": "#run-preemption",
    "evictions": "#run-evictions",
    "waiting": "#run-waiting",
    "pods": "#run-pods",
    "events": "#run-events",
    "framework": "#run-framework",
    "story": "#run-story",
    "devices": "#run-devices",
    "storage": "#run-storage",
}
NO_NODE = "no node: it stays Pending"
PASSES = "none: the node passes"
BOUND = "none: it is bound"


@lru_cache(maxsize=32)
def _lesson_of(text: str) -> Lesson | None:
    try:
        lessons = lessons_of_text(text, source="run")
    except ScenarioError:
        return None  # a run's snapshot was validated when it started; never fail the page here
    return lessons[0] if lessons else None


def lesson_of_run(screen: Screen) -> Lesson | None:
    run = screen.run
    if run is None or not snapshot_may_hold(run=run, kind="Lesson"):
        return None
    return _lesson_of(run.scenario_yaml) if run.scenario_yaml else None


# A stop's `point` (scheduler_core.api.lesson.POINTS) and the event group that reveals it.
POINT_GROUPS = {
    "Pop": "queue",
    "PreFilter": "prefilter",
    "Filter": "filter",
    "PostFilter": "postfilter",
    "Score": "score",
    "Select": "select",
    "Bind": "bind",
}


# The event group each question's answer is read from (`answer_key`).
ANSWER_GROUPS = {"winner": "select", "rejectedBy": "filter", "victims": "postfilter"}


def _point_reached(step: LessonStep, screen: Screen) -> bool:
    """While "Step extension point" reveals the stop's cycle, the stop waits for its point: it is
    reached once the revealed groups get to that point (or past it, when the cycle skips it)."""
    if not step.point or not screen.partial:
        return True
    return POINT_ORDER.index(screen.point_reached) >= POINT_ORDER.index(POINT_GROUPS[step.point])


def _is_at(step: LessonStep, screen: Screen) -> bool:
    if step.step is not None:
        return screen.step == step.step
    return screen.is_cycle and screen.frame.cycle == step.cycle and _point_reached(step, screen)


def _is_before(step: LessonStep, screen: Screen) -> bool:
    """The step is still ahead of the screen (its frame, or its point of it, not shown yet)."""
    if step.step is not None:
        return screen.step < step.step
    cycles_done = int(screen.view.get("cycles", screen.view.get("cycle", 0)) or 0)
    cycle = screen.frame.cycle if screen.is_cycle else cycles_done
    if screen.is_cycle and cycle == step.cycle:
        return not _point_reached(step, screen)
    return cycle < (step.cycle or 0)


def _answer_shown(step: LessonStep, screen: Screen) -> bool:
    """An answer is checked once the events it is read from are on screen: the whole cycle, or,
    in "Step extension point" mode, the point that decides it (a `rejectedBy` is known at Filter,
    `victims` at PostFilter, `winner` at Select; where the pod goes only at the end)."""
    if not screen.partial:
        return True
    group = ANSWER_GROUPS.get(step.predict.question if step.predict else "")
    if group is None:
        return False
    return POINT_ORDER.index(screen.point_reached) >= POINT_ORDER.index(group)


# ---- predictions: choices, the answer read off the events, the explanation -----------------------


def choices(step: LessonStep, screen: Screen) -> list[str]:
    question = step.predict.question if step.predict else ""
    if question == "winner":
        return [n["name"] for n in screen.view.get("nodes", [])] + [NO_NODE]
    if question == "rejectedBy":
        profile = (screen.profiles or {}).get("default-scheduler") or {}
        return list(profile.get("filter") or []) + ["an extender", PASSES]
    if question == "victims":
        return [p for n in screen.view.get("nodes", []) for p in n.get("pods", [])]
    if question == "queue":
        return ["activeQ", "backoffQ", "unschedulable", BOUND]
    return []


def answer_key(step: LessonStep, screen: Screen) -> tuple[str, str]:
    """(the right answer, why), both read off the events of the step's frame."""
    question = step.predict.question if step.predict else ""
    if question == "winner":
        selected = screen.first("selected")
        if selected is None:
            return NO_NODE, screen.failed_message or "No node was feasible."
        scores = screen.scores
        runner = ""
        if scores and len(scores["rows"]) > 1:
            second = scores["rows"][1]
            runner = f"; runner-up {second['node']} with {second['total']}"
        score = f" with a total score of {selected['score']}" if selected.get("score") is not None else ""
        return selected["node"], f"{selected['node']} won{score}{runner}."
    if question == "rejectedBy":
        node = step.predict.node if step.predict else ""
        matrix = screen.filter_matrix or {}
        for row in matrix.get("rows", []):
            if row["node"] != node:
                continue
            for column, cell in zip(matrix.get("columns", []), row["cells"], strict=False):
                if cell["kind"] in ("reject", "error"):
                    name = "an extender" if column["extender"] else column["name"]
                    return name, f"{column['name']} rejected {node}: {'; '.join(cell['reasons']) or cell['code']}."
            return PASSES, f"{node} passed every Filter plugin."
        return PASSES, f"{node} was not evaluated in this cycle."
    if question == "victims":
        victims = sorted(e["pod"] for e in screen.all("victim_deleted"))
        preemption = screen.first("preemption") or {}
        why = f"DefaultPreemption chose {preemption.get('chosen')}: {preemption.get('why')}." if victims else ""
        return ", ".join(victims) or "none", why or "Preemption deleted no pod."
    if question == "queue":
        started = screen.first("cycle_started") or {}
        if screen.first("bound") is not None:
            return BOUND, f"{started.get('pod')} was bound to {screen.first('bound')['node']}."
        moves = [m for m in screen.all("queue_move") if m.get("pod") == started.get("pod") and m.get("to") != "none"]
        if not moves:
            return BOUND, "The pod did not go back to a queue."
        last = moves[-1]
        because = last.get("event") or last.get("reason") or ""
        return last["to"], f"{last['pod']} went to {last['to']}" + (f" ({because})" if because else "") + "."
    return "", ""


def _normalise(answer: str) -> str:
    return ", ".join(sorted(a.strip() for a in answer.split(",") if a.strip()))


def lesson(screen: Screen) -> dict[str, Any] | None:
    """Everything the lesson panel shows for this screen, or None when the run has no lesson."""
    doc = lesson_of_run(screen)
    if doc is None:
        return None
    answers = screen.answers or {}
    steps = []
    current = None
    for index, step in enumerate(doc.steps):
        at = _is_at(step, screen)
        item: dict[str, Any] = {"index": index, "step": step, "at": at, "ahead": _is_before(step, screen)}
        given = answers.get(str(index))
        item["given"] = given
        if step.predict and at and _answer_shown(step, screen):
            right, why = answer_key(step, screen)
            item.update(right=right, why=why, correct=given is not None and _normalise(given) == _normalise(right))
        elif step.predict and given is not None and not at and not item["ahead"]:
            other = screen.elsewhere(step=step.step, cycle=step.cycle)  # a stop already passed
            right, why = answer_key(step, other)
            item.update(right=right, why=why, correct=_normalise(given) == _normalise(right))
        # No spoilers: a stop's caption is shown once its frame is on screen and, for a stop that
        # asks a prediction, once the answer is revealed (in "Step extension point" mode the stop
        # is reached before the point that decides it). A stop ahead shows only where it is.
        item["caption_shown"] = not item["ahead"] and (step.predict is None or "right" in item or not at)
        steps.append(item)
        if at and current is None:
            current = item
    upcoming = next((s for s in steps if s["ahead"]), None)
    question = None
    if upcoming is not None and upcoming["step"].predict is not None:
        question = {**upcoming, "text": upcoming["step"].predict.text, "choices": choices(upcoming["step"], screen)}
    judged = [s for s in steps if "correct" in s and s["given"] is not None]
    # Scores count answered predictions only: the learner's answers, how many of them are
    # checked (their stop revealed) and how many of those were right.
    answered = sum(1 for s in steps if s["step"].predict is not None and s["given"] is not None)
    watch = current["step"].watch if current else ()
    return {
        "lesson": doc,
        "steps": steps,
        "current": current,
        "upcoming": upcoming,
        "question": question,
        "score": sum(1 for s in judged if s["correct"]),
        "checked": len(judged),
        "answered": answered,
        "to_check": answered - len(judged),
        "questions": sum(1 for s in doc.steps if s.predict),
        "watch": [WATCH_SELECTORS[w] for w in watch],
    }


def answers_for(session: Any, run_token: str) -> dict[str, str]:
    """The learner's answers for a run, from their session."""
    try:
        return dict((session.get(SESSION_KEY) or {}).get(run_token) or {})
    except Exception:  # noqa: BLE001 - a session that cannot be read means no answers yet
        return {}


def record_answer(session: Any, run_token: str, index: int, answer: str) -> None:
    stored = dict(session.get(SESSION_KEY) or {})
    mine = dict(stored.get(run_token) or {})
    mine[str(index)] = answer[:500]
    stored[run_token] = mine
    session[SESSION_KEY] = stored
