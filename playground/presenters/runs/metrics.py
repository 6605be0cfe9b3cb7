"""The run's metrics page: charts over the timeline, drawn as SVG on the server.

Every chart is plain SVG geometry computed here (no charting script, nothing for the browser to
build): step charts over the run's steps (queue depths, attempts by result) and bar charts of
the latency histograms and per-plugin evaluations. Each point of a line chart is a link to that
step of the run page (the scrubber's `?step=`) with a tooltip (`<title>`) of its values, and each
chart has a table of the same values for screen readers and copying.
"""

from __future__ import annotations

import math
from typing import Any

from playground.presenters.runs import chart_axes as axes
from scheduler_core.metrics import RunMetrics
from scheduler_core.metrics import definitions as d
from scheduler_core.metrics.histogram import Histogram
from scheduler_core.metrics.wall import PluginWallClock

WIDTH, HEIGHT = 640, 210
LEFT, RIGHT, TOP, BOTTOM = 40, 12, 12, 42  # BOTTOM: tick labels, then the axis title
HBAR_LEFT, ROW = 260, 22
NAMED_BARS = 12  # bar charts with at most this many bars name each bar under it
QUEUES = (("active", "activeQ"), ("backoff", "backoffQ"), ("unschedulable", "unschedulable"), ("gated", "gated"))
RESULTS = (("scheduled", "scheduled"), ("unschedulable", "unschedulable"), ("error", "error"))


def metrics_page(*, points: list[dict[str, Any]], metrics: RunMetrics, run_url: str, steps: int) -> dict[str, Any]:
    """The page's context: the charts and their tables."""
    return {
        "queue_chart": line_chart(
            "chart-queues", "Pending pods by queue", d.PENDING_PODS.name, points,
            [(label, f"q-{key}", lambda p, k=key: p["pending"].get(k, 0)) for key, label in QUEUES], run_url),
        "attempts_chart": line_chart(
            "chart-attempts", "Scheduling attempts by result (cumulative)", d.SCHEDULE_ATTEMPTS.name + "_total",
            points, [(label, f"r-{key}", lambda p, k=key: p["attempts"].get(k, 0)) for key, label in RESULTS],
            run_url),
        "histograms": [
            bar_chart("hist-attempt-duration", "Scheduling attempt duration (virtual seconds)",
                      d.SCHEDULING_ATTEMPT_DURATION.name, *_histogram_bars(metrics.attempt_duration)),
            bar_chart("hist-sli", "Pod scheduling SLI duration (virtual seconds)",
                      d.POD_SCHEDULING_SLI_DURATION.name, *_histogram_bars(metrics.sli_duration)),
            bar_chart("hist-pod-attempts", "Attempts to schedule a pod", d.POD_SCHEDULING_ATTEMPTS.name,
                      *_histogram_bars(metrics.pod_attempts)),
        ],
        "plugin_chart": hbar_chart("chart-plugins", "Plugin evaluations by extension point",
                                   d.PLUGIN_EVALUATION.name + "_total", *_plugin_bars(metrics)),
        "unschedulable": sorted(((pl, prof, n) for (pl, prof), n in metrics.unschedulable.items() if n),
                                key=lambda r: (-r[2], r[0])),
        "preemption_attempts": metrics.preemption_attempts,
        "preemption_victims": metrics.preemption_victims.merged()[1],
        "steps": steps,
        "shown": len(points),
    }


def wall_page(points: list[dict[str, Any]], totals: PluginWallClock, run_url: str) -> dict[str, Any]:
    """The playground engine's own time in the plugins (not the cluster's): a bar per plugin and
    extension point, a line of the time per step, and a table of seconds, calls and the mean."""
    metric = d.PLUGIN_WALL_SECONDS.name + "_total"
    rows = sorted(
        ({"plugin": plugin, "point": point, "profile": profile, "seconds": round(sec, 6),
          "calls": totals.calls.get((plugin, point, profile), 0),
          "mean_us": round(sec * 1e6 / max(totals.calls.get((plugin, point, profile), 0), 1), 1)}
         for (plugin, point, profile), sec in totals.seconds.items()),
        key=lambda r: (-r["seconds"], r["plugin"], r["point"], r["profile"]))
    per_label: dict[str, float] = {}
    for r in rows:
        label = f"{r['plugin']} {r['point']}"
        per_label[label] = per_label.get(label, 0.0) + r["seconds"]
    ordered = sorted(per_label.items(), key=lambda kv: (-kv[1], kv[0]))
    return {
        "wall_chart": hbar_chart("chart-plugin-wall", "Engine wall time per plugin and extension point (ms)", metric,
                                 [k for k, _ in ordered], [round(v * 1000, 3) for _, v in ordered]),
        "wall_step_chart": line_chart(
            "chart-plugin-wall-steps", "Engine wall time in plugins per step (ms)", metric, points,
            [("plugins", "q-active", lambda p: round(p["seconds"] * 1000, 3))], run_url),
        "wall_rows": rows,
        "wall_seconds": round(sum(r["seconds"] for r in rows), 6),
        "wall_calls": sum(r["calls"] for r in rows),
    }


def line_chart(id_: str, title: str, metric: str, points: list[dict[str, Any]],
               series: list[tuple[str, str, Any]], run_url: str) -> dict[str, Any]:
    """Series over the points as step lines: each stored point is the state after a step, and
    it holds until the next one (a queue does not fill gradually between two steps), so a series
    is a path of horizontal and vertical segments only, with the x axis in steps (not in points,
    which are thinned on long runs). One hit column per point (link + tooltip), round ticks on
    both axes, and a value table."""
    values = [[fn(p) for p in points] for _, _, fn in series]
    largest = max((max(v) for v in values if v), default=0)
    integer = all(float(v).is_integer() for vs in values for v in vs)
    y_ticks = axes.nice_ticks(largest, integer=integer)
    top = y_ticks[-1]
    y_labels = [axes.label(t) for t in y_ticks]
    left = max(LEFT, round(max(axes.text_width(t) for t in y_labels) + 10))
    plot_w, plot_h = WIDTH - left - RIGHT, HEIGHT - TOP - BOTTOM
    first = points[0]["step"] if points else 0
    last = points[-1]["step"] if points else 0
    span = last + 1 - first  # the last point holds for one step, up to the right edge

    def x(step: float) -> float:
        return left + plot_w * (step - first) / span

    def y(v: float) -> float:
        return TOP + plot_h * (1 - v / top)

    columns = []
    rows = []
    for i, p in enumerate(points):
        vals = [(name, values[j][i]) for j, (name, _, _) in enumerate(series)]
        tip = f"step {p['step']} · cycle {p['cycle']} · t={p['time']:g}s: " + ", ".join(f"{k} {v}" for k, v in vals)
        end = points[i + 1]["step"] if i + 1 < len(points) else last + 1
        columns.append({"x": round(x(p["step"]), 2), "w": round(x(end) - x(p["step"]), 2), "tip": tip,
                        "href": f"{run_url}?step={p['step']}", "step": p["step"]})
        rows.append({"step": p["step"], "cycle": p["cycle"], "time": p["time"], "href": f"{run_url}?step={p['step']}",
                     "values": [v for _, v in vals]})
    x_ticks = [first + t for t in axes.nice_ticks(span - 1, most=6, integer=True) if first + t <= last]
    return {
        "id": id_, "title": title, "metric": metric, "width": WIDTH, "height": HEIGHT,
        "series": [{"name": name, "css": css, "path": _step_path([x(p["step"]) for p in points] + [x(last + 1)],
                                                                  [y(v) for v in values[j]])}
                   for j, (name, css, _) in enumerate(series)],
        "columns": columns, "rows": rows, "names": [s[0] for s in series], "plot_h": plot_h,
        "y_ticks": [{"y": round(y(t), 2), "ty": round(y(t) + axes.FONT * 0.35, 2), "label": lab}
                    for t, lab in zip(y_ticks, y_labels, strict=True)],
        "x_ticks": [{"x": round(x(s + 0.5), 2), "label": axes.label(s)} for s in x_ticks],
        "y_top": TOP, "y_bottom": HEIGHT - BOTTOM, "left": left, "right": WIDTH - RIGHT,
        "tick_y": HEIGHT - BOTTOM + 16, "axis_y": HEIGHT - 6, "axis_x": round(left + plot_w / 2, 2),
        "label_x": left - 6, "first_step": first, "last_step": last,
    }


def _step_path(xs: list[float], ys: list[float]) -> str:
    """`M x0,y0 H x1 V y1 H x2 ...`: value i holds from xs[i] to xs[i+1] (xs has one more entry)."""
    if not ys:
        return ""
    parts = [f"M{xs[0]:.1f},{ys[0]:.1f}"]
    for i in range(1, len(ys)):
        parts.append(f"H{xs[i]:.1f}")
        if ys[i] != ys[i - 1]:
            parts.append(f"V{ys[i]:.1f}")
    parts.append(f"H{xs[-1]:.1f}")
    return " ".join(parts)


def bar_chart(id_: str, title: str, metric: str, labels: list[str], counts: list[float]) -> dict[str, Any]:
    """Vertical bars, one per label, each with its tooltip; round ticks on the count axis; the
    table lists the same."""
    y_ticks = axes.nice_ticks(max(counts, default=0), integer=all(float(c).is_integer() for c in counts))
    top = y_ticks[-1]
    y_labels = [axes.label(t) for t in y_ticks]
    left = max(LEFT, round(max(axes.text_width(t) for t in y_labels) + 10))
    n = max(len(labels), 1)
    plot_w, plot_h = WIDTH - left - RIGHT, HEIGHT - TOP - BOTTOM
    slot = plot_w / n
    named = len(labels) <= NAMED_BARS
    every = 1 if named else max(1, math.ceil(len(labels) / 10))
    bars = []
    for i, (name, c) in enumerate(zip(labels, counts, strict=True)):
        h = plot_h * c / top
        shown = axes.fit(name, slot - 2, axes.FONT - 1) if named else (str(i + 1) if i % every == 0 else "")
        bars.append({"x": round(left + i * slot + slot * 0.1, 2), "w": round(slot * 0.8, 2),
                     "y": round(TOP + plot_h - h, 2), "h": round(h, 2), "label": name, "value": _num(c),
                     "shown": shown, "tip": f"{name}: {_num(c)}", "tx": round(left + i * slot + slot / 2, 2)})
    return {"id": id_, "title": title, "metric": metric, "width": WIDTH, "height": HEIGHT, "bars": bars,
            "y_ticks": [{"y": round(TOP + plot_h * (1 - t / top), 2),
                         "ty": round(TOP + plot_h * (1 - t / top) + axes.FONT * 0.35, 2), "label": lab}
                        for t, lab in zip(y_ticks, y_labels, strict=True)],
            "y_top": TOP, "y_bottom": HEIGHT - BOTTOM, "left": left, "right": WIDTH - RIGHT,
            "tick_y": HEIGHT - BOTTOM + 16, "axis_y": HEIGHT - 6, "axis_x": round(left + plot_w / 2, 2),
            "label_x": left - 6, "x_title": "bucket" if named else "bucket (numbered as in the table)"}


def hbar_chart(id_: str, title: str, metric: str, labels: list[str], counts: list[float]) -> dict[str, Any]:
    """Horizontal bars, one row per label (long names: plugins), named on the left, shortened
    with an ellipsis where a name is longer than the margin (the tooltip and table keep it whole)."""
    top = max(counts, default=0) or 1
    values = [axes.label(_num(c)) for c in counts]
    value_w = max((axes.text_width(v) for v in values), default=0) + 8
    plot_w = WIDTH - HBAR_LEFT - RIGHT - value_w
    bars = [{"y": TOP + i * ROW, "h": ROW - 4, "w": round(plot_w * c / top, 2), "label": label,
             "shown": axes.fit(label, HBAR_LEFT - 10), "value": shown,
             "tip": f"{label}: {_num(c)}", "ty": TOP + i * ROW + ROW - 7,
             "vx": round(HBAR_LEFT + plot_w * c / top + 4, 2)}
            for i, (label, c, shown) in enumerate(zip(labels, counts, values, strict=True))]
    return {"id": id_, "title": title, "metric": metric, "width": WIDTH, "height": TOP + len(bars) * ROW + 4,
            "left": HBAR_LEFT, "label_x": HBAR_LEFT - 6, "bars": bars}


def _histogram_bars(h: Histogram) -> tuple[list[str], list[float]]:
    """Per-bucket counts (not cumulative), up to the last bucket any observation fell in."""
    counts, _, total = h.merged()
    if total == 0:
        return [], []
    last = max(i for i, c in enumerate(counts) if c)
    labels = [f"≤ {b:g}" for b in h.buckets] + ["> " + f"{h.buckets[-1]:g}"]
    return labels[: last + 1], [float(c) for c in counts[: last + 1]]


def _plugin_bars(metrics: RunMetrics) -> tuple[list[str], list[float]]:
    totals: dict[str, int] = {}
    for (plugin, point, _profile), n in metrics.plugin_evaluations.items():
        totals[f"{plugin} {point}"] = totals.get(f"{plugin} {point}", 0) + n
    ordered = sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))
    return [k for k, _ in ordered], [float(v) for _, v in ordered]


def _num(v: float) -> int | float:
    return int(v) if float(v).is_integer() else round(v, 6)
