"""The teacher's results page of a challenge: each learner (by nickname) with their attempts (runs
of their forks of the challenge scenario), whether one solved it, a link to their latest run, and
the most common wrong answer (the goals that failed, with why, across the settled attempts that
did not solve it).

Each attempt is judged at the run's head by the same checker as the run page (its screen, so what
the learner sees is what is judged), but against the challenge scenario's goals as they read now
(`selectors.challenge_results.current_challenge`), not the copy each run started from: when the
teacher fixes a goal, every attempt is judged again by the fixed one (no failure of the old goals
stays), and a learner who edits the goals in their own copy does not change their verdict here."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.db.models import Q

from playground.models import ChallengeLearner, Run, RunEvent, Scenario
from playground.ownership import Actor
from playground.presenters.runs.challenge import FINAL
from playground.presenters.runs.picker import run_screen
from playground.selectors.challenge_results import current_challenge
from scheduler_core.api.challenge import Challenge, GoalResult, check

MAX_RUNS = 500  # attempts read per page: a class, not the internet


def attempt_verdict(run: Run, challenge: Challenge) -> tuple[bool, list[GoalResult]]:
    """(settled, each goal's result) of one attempt at its head, against `challenge`."""
    screen = run_screen(run=run, actor=Actor())
    events = RunEvent.objects.filter(run=run, type="victim_deleted", seq__lte=screen.shown_seq).values_list(
        "data", flat=True)
    return screen.frame.result in FINAL, check(challenge, screen.view.get("pods", []), events)


def challenge_results(*, scenario: Scenario) -> dict[str, Any]:
    challenge = current_challenge(scenario=scenario)
    learners = list(ChallengeLearner.objects.filter(scenario=scenario).order_by("created_at"))
    tokens = {learner.owner_token: learner for learner in learners}
    runs = (Run.objects.filter(Q(scenario=scenario) | Q(scenario__forked_from=scenario), owner_token__in=list(tokens))
            .order_by("created_at", "pk")[:MAX_RUNS])
    rows = {t: {"nickname": learner.nickname, "attempts": 0, "settled": 0, "solved": False, "latest": None}
            for t, learner in tokens.items()}
    wrong: Counter[str] = Counter()
    for run in runs:
        row = rows[run.owner_token]
        row["attempts"] += 1
        row["latest"] = run  # runs come oldest first: the last one seen is the latest
        if challenge is None:
            continue
        final, results = attempt_verdict(run, challenge)
        if not final:
            continue
        row["settled"] += 1
        if all(r.passed for r in results):
            row["solved"] = True
        else:
            wrong["; ".join(f"{r.goal}: {r.why}" for r in results if not r.passed)] += 1
    common = wrong.most_common(1)
    return {
        "challenge": challenge,
        "learners": list(rows.values()),
        "solved": sum(1 for r in rows.values() if r["solved"]),
        "common_wrong": {"answer": common[0][0], "count": common[0][1]} if common else None,
    }
