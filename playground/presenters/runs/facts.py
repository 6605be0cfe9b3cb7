"""The smaller facts several panels of the run page read (what moved, the cycle's filter and
score tables, the story's lines, ...), each built by its presenter module once per Screen.

They are installed on `Screen` here, as the panels' own presenters are by the panel registry
(`panels.py`), so that `screen.py` imports no presenter: the presenters read a Screen, and the
Screen does not need them to exist (no import cycle between the two)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any

from playground.presenters.runs import cluster as cluster_panel
from playground.presenters.runs import cycle as cycle_panel
from playground.presenters.runs import cycle_groups
from playground.presenters.runs import pods as pods_panel
from playground.presenters.runs import queues as queues_panel
from playground.presenters.runs import storage as storage_panel
from playground.presenters.runs import story as story_panel
from playground.presenters.runs import waiting as waiting_panel
from playground.presenters.runs.moves import where
from playground.presenters.runs.screen import Screen


def _previous_where(screen: Screen) -> dict[str, str]:
    """pod -> where it was in the frame before (to mark what moved)."""
    return where(screen.previous)


def _top_scores(screen: Screen) -> dict[str, Any] | None:
    return cycle_groups.top_scores(screen, screen.scores)


FACTS: dict[str, Callable[[Screen], Any]] = {
    "previous_where": _previous_where,
    "moves": queues_panel.moves,
    "start_entries": queues_panel.start_entries,
    "hint_skips": queues_panel.hint_skips,
    "nodes": cluster_panel.nodes,
    "large_cluster": cluster_panel.is_large,
    "pods": pods_panel.pods,
    "pending_pods": pods_panel.pending_pods,
    "many_pods": pods_panel.many_pods,
    "has_storage": storage_panel.has_storage,
    "waiting_groups": waiting_panel.waiting_groups,
    "permit_rejections": waiting_panel.permit_rejections,
    "point_labels": cycle_panel.point_labels,
    "snapshot": cycle_panel.snapshot,
    "prefilters": cycle_panel.prefilters,
    "filter_matrix": cycle_panel.filter_matrix,
    "filter_groups": cycle_groups.filter_groups,
    "extender_calls": cycle_panel.extender_calls,
    "postfilters": cycle_panel.postfilters,
    "failed_message": cycle_panel.failed_message,
    "scores": cycle_panel.scores,
    "top_scores": _top_scores,
    "large_cycle": cycle_groups.is_large,
    "selected": cycle_panel.selected,
    "binding": cycle_panel.binding,
    "outcome": story_panel.outcome,
    "pop": story_panel.pop,
    "steps_between": story_panel.steps_between,
    "settled_text": story_panel.settled_text,
    "max_time_text": story_panel.max_time_text,
}


def install(screen_class: type) -> None:
    """Give `screen_class` one cached property per fact (built once per screen)."""
    for name, build in FACTS.items():
        prop = cached_property(build)
        prop.__set_name__(screen_class, name)
        setattr(screen_class, name, prop)


install(Screen)
