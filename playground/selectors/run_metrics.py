"""A run's scheduler metrics over its timeline, recomputed from its stored events.

Only the event types the metrics read are loaded (scheduler_core.metrics METRIC_EVENT_TYPES),
streamed in sequence order; a summary is kept at the end of each frame (step), then thinned to
at most `max_points` so the page stays small however long the run and however many nodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playground.models import Run, RunFrame
from scheduler_core.metrics import RunMetrics
from scheduler_core.metrics.run_metrics import METRIC_EVENT_TYPES
from scheduler_core.metrics.wall import PluginWallClock

MAX_POINTS = 200
ITERATOR_CHUNK = 200  # events per database round trip (some carry a whole node list)


@dataclass
class MetricsTimeline:
    metrics: RunMetrics  # at the last step asked for
    points: list[dict[str, Any]]  # {step, cycle, time, pending, attempts, ...}, oldest first
    steps: int  # frames the points were taken from (before thinning)


def metrics_upto(*, run: Run, frame: RunFrame, max_points: int = MAX_POINTS) -> MetricsTimeline:
    """The metrics after `frame`, and a point per frame up to it (thinned to max_points)."""
    metrics = RunMetrics()
    points: list[dict[str, Any]] = []
    frames = list(run.frames.filter(step__lte=frame.step).order_by("step").values_list("step", "last_seq"))
    events = (run.events.filter(seq__lte=frame.last_seq, type__in=METRIC_EVENT_TYPES)
              .order_by("seq").values_list("seq", "data").iterator(chunk_size=ITERATOR_CHUNK))
    pending = next(events, None)
    for step, last_seq in frames:
        while pending is not None and pending[0] <= last_seq:
            metrics.feed(pending[1])
            pending = next(events, None)
        points.append({"step": step, **metrics.summary()})
    return MetricsTimeline(metrics=metrics, points=thin(points, max_points), steps=len(points))


def metrics_at(*, run: Run, frame: RunFrame) -> RunMetrics:
    """The metrics after `frame` alone (the exposition: no timeline)."""
    events = (run.events.filter(seq__lte=frame.last_seq, type__in=METRIC_EVENT_TYPES)
              .order_by("seq").values_list("data", flat=True).iterator(chunk_size=ITERATOR_CHUNK))
    return RunMetrics().feed_all(events)


@dataclass
class WallTimeline:
    """The playground engine's own wall time in the plugins (RunFrame.plugin_wall), not the
    cluster's: totals up to the frame, and a point per frame (thinned like the metrics')."""

    totals: PluginWallClock
    points: list[dict[str, Any]]  # {step, cycle, time, seconds, calls}, oldest first
    steps: int


def plugin_wall_upto(*, run: Run, frame: RunFrame, max_points: int = MAX_POINTS) -> WallTimeline:
    """Totals per (plugin, extension point, profile) after `frame`, and seconds per step."""
    totals = PluginWallClock()
    points: list[dict[str, Any]] = []
    rows = (run.frames.filter(step__lte=frame.step).order_by("step")
            .values_list("step", "cycle", "clock", "plugin_wall").iterator(chunk_size=ITERATOR_CHUNK))
    for step, cycle, clock, wall in rows:
        wall = wall or []
        totals.add_rows(wall)
        points.append({"step": step, "cycle": cycle, "time": clock,
                       "seconds": sum(float(r[3]) for r in wall), "calls": sum(int(r[4]) for r in wall)})
    return WallTimeline(totals=totals, points=thin(points, max_points), steps=len(points))


def thin(points: list[dict[str, Any]], max_points: int) -> list[dict[str, Any]]:
    """At most max_points of them, evenly spaced, always keeping the first and the last."""
    n = len(points)
    if n <= max_points:
        return points
    if max_points < 2:
        return points[-1:]
    picks = sorted({round(i * (n - 1) / (max_points - 1)) for i in range(max_points)})
    return [points[i] for i in picks]
