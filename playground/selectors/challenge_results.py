"""The teacher's results page of a challenge: each learner (by nickname) with their attempts (runs
of their forks of the challenge scenario), whether one solved it, and the most common wrong
answer (the goals that failed, with why, across the settled attempts that did not solve it).
Each attempt is judged by the run page's own checker, at the run's head."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.db.models import Q

from playground.models import ChallengeLearner, Run, Scenario
from playground.ownership import Actor
from playground.presenters.runs.screen import run_screen

MAX_RUNS = 500  # attempts read per page: a class, not the internet


def challenge_results(*, scenario: Scenario) -> dict[str, Any]:
    learners = list(ChallengeLearner.objects.filter(scenario=scenario).order_by("created_at"))
    tokens = {learner.owner_token: learner for learner in learners}
    runs = (Run.objects.filter(Q(scenario=scenario) | Q(scenario__forked_from=scenario), owner_token__in=list(tokens))
            .order_by("created_at")[:MAX_RUNS])
    rows = {t: {"nickname": learner.nickname, "attempts": 0, "settled": 0, "solved": False}
            for t, learner in tokens.items()}
    wrong: Counter[str] = Counter()
    for run in runs:
        row = rows[run.owner_token]
        row["attempts"] += 1
        verdict = run_screen(run=run, actor=Actor()).challenge
        if verdict is None or not verdict["final"]:
            continue
        row["settled"] += 1
        if verdict["solved"]:
            row["solved"] = True
        else:
            wrong["; ".join(f"{r.goal}: {r.why}" for r in verdict["results"] if not r.passed)] += 1
    common = wrong.most_common(1)
    return {
        "learners": list(rows.values()),
        "solved": sum(1 for r in rows.values() if r["solved"]),
        "common_wrong": {"answer": common[0][0], "count": common[0][1]} if common else None,
    }
