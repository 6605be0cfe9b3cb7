"""The cycle inspector at scale (partials/filter_groups.html, top_scores.html): the Filter
verdicts of thousands of nodes grouped by outcome ("1,204 nodes: NodeResourcesFit — Insufficient
cpu"), each group's nodes a page at a time, and the best scores with the winner and its ties.

Up to SMALL_CYCLE nodes the inspector shows the whole node x plugin matrix and score table
(`cycle.filter_matrix`, `cycle.scores`), as it always did.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from playground.presenters.runs.paging import Page, paginate
from scheduler_core.events.compact import feasible_nodes, iter_verdicts, num_not_evaluated, score_totals

if TYPE_CHECKING:
    from playground.presenters.runs.screen import Screen

SMALL_CYCLE = 50  # nodes (evaluated or not) up to which the whole matrix is shown
TOP_SCORES = 10
GROUP_PAGE = 100
SCORE_PAGE = 100
PASSED = ("Success", "Skip", "NotEvaluated")  # NotEvaluated: never ran (an earlier plugin rejected)
CANCELLED_PLUGIN = "_"  # the engine's row for the node that passed after the search had enough
CANCELLED_LABEL = "passed, but not counted: the search had already found enough feasible nodes"


def is_large(screen: Screen) -> bool:
    event = screen.first("filter_verdicts") or screen.first("scores")
    if event is None:
        return False
    if event["type"] == "scores":
        return len(score_totals(event)) > SMALL_CYCLE
    return len(event.get("nodes") or []) + num_not_evaluated(event) > SMALL_CYCLE


def _outcome(verdicts: dict[str, Any]) -> str:
    """The group label of a verdict row: "" (feasible), the rejecting plugin(s) with reasons, or
    the cancelled walk's own sentence. Plugins that never ran are not named."""
    if CANCELLED_PLUGIN in verdicts:
        return CANCELLED_LABEL
    failing = [(p, v) for p, v in verdicts.items() if (v or {}).get("code") not in PASSED]
    if not failing:
        return ""
    return "; ".join(f"{p} — {'; '.join(v.get('reasons') or []) or v.get('code')}" for p, v in failing)


def filter_groups(screen: Screen) -> dict[str, Any] | None:
    """The evaluated nodes grouped by outcome (feasible first, then the biggest groups), and the
    not-evaluated count; None when the cycle ran no Filter or is small (see the matrix)."""
    event = screen.first("filter_verdicts")
    if event is None or not is_large(screen):
        return None
    groups = _groups(event)
    return {
        "groups": [
            {"index": i, "label": label or "feasible", "feasible": not label, "count": len(nodes)}
            for i, (label, nodes) in enumerate(groups)
        ],
        "evaluated": len(event.get("nodes") or []),
        "feasible": len(feasible_nodes(event)),
        "not_evaluated": num_not_evaluated(event),
        "num_to_find": event.get("num_to_find"),
        "start_index": event.get("start_index"),
        "nominated_only": event.get("nominated_only", False),
        "nominated_tried": screen.first("nominated_node_tried"),
    }


def _groups(event: dict[str, Any]) -> list[tuple[str, list[str]]]:
    by_label: dict[str, list[str]] = {}
    for node, verdicts in iter_verdicts(event):
        by_label.setdefault(_outcome(verdicts or {}), []).append(node)
    return sorted(by_label.items(), key=lambda item: (item[0] != "", item[0] == CANCELLED_LABEL, -len(item[1]), item[0]))


def group_nodes(screen: Screen, index: int, page: int) -> tuple[dict[str, Any] | None, Page | None]:
    """One group's label and a page of its nodes ("not-evaluated": index -1)."""
    event = screen.first("filter_verdicts")
    if event is None:
        return None, None
    if index == -1:
        nodes = screen.not_evaluated
        return {"label": "not evaluated", "count": len(nodes), "index": -1}, paginate(nodes, page, GROUP_PAGE)
    groups = _groups(event)
    if not 0 <= index < len(groups):
        return None, None
    label, nodes = groups[index]
    return {"label": label or "feasible", "count": len(nodes), "index": index}, paginate(nodes, page, GROUP_PAGE)


def top_scores(screen: Screen, full: dict[str, Any] | None) -> dict[str, Any] | None:
    """The best TOP_SCORES rows of the score table, and the winner's row if it is not among them."""
    if full is None or not is_large(screen):
        return None
    rows = full["rows"][:TOP_SCORES]
    chosen = next((r for r in full["rows"] if r["chosen"]), None)
    if chosen is not None and chosen not in rows:
        rows = [*rows, chosen]
    return {**full, "rows": rows, "scored": len(full["rows"])}


def score_page(full: dict[str, Any] | None, page: int) -> Page | None:
    return None if full is None else paginate(full["rows"], page, SCORE_PAGE)
