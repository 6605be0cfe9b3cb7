"""A stored run's events as scheduler_core.questions.compare reads them (comparing a fork with its parent).

Only the event types that make a pod's decisions are read, in sequence order; a run with more of
them than MAX_DECISION_EVENTS is refused by the caller rather than read into memory whole.
"""

from __future__ import annotations

from typing import Any

from playground.models import Run

# The events scheduler_core.questions.compare.record_run folds into decisions.
DECISION_EVENT_TYPES = (
    "run_started", "cluster_action", "queue_move", "cycle_started", "prefilter", "filter_verdicts",
    "scores", "selected", "permit_wait", "extension_point", "postfilter", "bound", "victim_deleted",
    "pod_deleted",
)
MAX_DECISION_EVENTS = 200_000


def decision_event_count(*, run: Run) -> int:
    """How many of the run's events a comparison would read."""
    return run.events.filter(type__in=DECISION_EVENT_TYPES).count()


def decision_events(*, run: Run) -> list[dict[str, Any]]:
    """The run's decision events, in sequence order (each the engine's event, whole)."""
    return list(run.events.filter(type__in=DECISION_EVENT_TYPES).order_by("seq").values_list("data", flat=True))
