"""The run's metrics page: charts over the timeline, drawn as SVG on the server.

Every chart is plain SVG geometry computed here (no charting script, nothing for the browser to
build): line charts over the run's steps (queue depths, attempts by result) and bar charts of
the latency histograms and per-plugin evaluations. Each point of a line chart is a link to that
step of the run page (the scrubber's `?step=`) with a tooltip (`<title>`) of its values, and each
chart has a table of the same values for screen readers and copying.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.metrics import RunMetrics
from scheduler_core.metrics import definitions as d
from scheduler_core.metrics.histogram import Histogram
from scheduler_core.metrics.wall import PluginWallClock

WIDTH, HEIGHT = 640, 180
LEFT, RIGHT, TOP, BOTTOM = 44, 8, 10, 22
HBAR_LEFT, ROW = 240, 18
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
    """Series over the points; one hit column per point (link + tooltip) and a value table."""
    values = [[fn(p) for p in points] for _, _, fn in series]
    top = max((max(v) for v in values if v), default=0) or 1
    n = len(points)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + (plot_w * i / (n - 1) if n > 1 else plot_w / 2)

    def y(v: float) -> float:
        return TOP + plot_h * (1 - v / top)

    col_w = plot_w / max(n, 1)
    columns = []
    rows = []
    for i, p in enumerate(points):
        vals = [(name, values[j][i]) for j, (name, _, _) in enumerate(series)]
        tip = f"step {p['step']} · cycle {p['cycle']} · t={p['time']:g}s: " + ", ".join(f"{k} {v}" for k, v in vals)
        columns.append({"x": round(x(i) - col_w / 2, 2), "w": round(col_w, 2), "tip": tip,
                        "href": f"{run_url}?step={p['step']}", "step": p["step"]})
        rows.append({"step": p["step"], "cycle": p["cycle"], "time": p["time"], "href": f"{run_url}?step={p['step']}",
                     "values": [v for _, v in vals]})
    return {
        "id": id_, "title": title, "metric": metric, "width": WIDTH, "height": HEIGHT,
        "series": [{"name": name, "css": css,
                    "points": " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values[j]))}
                   for j, (name, css, _) in enumerate(series)],
        "columns": columns, "rows": rows, "names": [s[0] for s in series], "plot_h": plot_h,
        "top": top, "y_top": TOP, "y_bottom": HEIGHT - BOTTOM, "left": LEFT, "right": WIDTH - RIGHT,
        "first_step": points[0]["step"] if points else 0, "last_step": points[-1]["step"] if points else 0,
    }


def bar_chart(id_: str, title: str, metric: str, labels: list[str], counts: list[float]) -> dict[str, Any]:
    """Vertical bars, one per label, each with its tooltip; the table lists the same."""
    top = max(counts, default=0) or 1
    n = max(len(labels), 1)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    slot = plot_w / n
    bars = []
    for i, (label, c) in enumerate(zip(labels, counts, strict=True)):
        h = plot_h * c / top
        bars.append({"x": round(LEFT + i * slot + slot * 0.1, 2), "w": round(slot * 0.8, 2),
                     "y": round(TOP + plot_h - h, 2), "h": round(h, 2), "label": label, "value": _num(c),
                     "tip": f"{label}: {_num(c)}", "tx": round(LEFT + i * slot + slot / 2, 2)})
    return {"id": id_, "title": title, "metric": metric, "width": WIDTH, "height": HEIGHT, "bars": bars,
            "top": _num(top), "y_top": TOP, "y_bottom": HEIGHT - BOTTOM, "left": LEFT, "right": WIDTH - RIGHT,
            "named": len(labels) <= NAMED_BARS, "label_every": max(1, len(labels) // 10)}


def hbar_chart(id_: str, title: str, metric: str, labels: list[str], counts: list[float]) -> dict[str, Any]:
    """Horizontal bars, one row per label (long names: plugins), named on the left."""
    top = max(counts, default=0) or 1
    plot_w = WIDTH - HBAR_LEFT - RIGHT - 40
    bars = [{"y": TOP + i * ROW, "h": ROW - 4, "w": round(plot_w * c / top, 2), "label": label, "value": _num(c),
             "tip": f"{label}: {_num(c)}", "ty": TOP + i * ROW + ROW - 6,
             "vx": round(HBAR_LEFT + plot_w * c / top + 4, 2)}
            for i, (label, c) in enumerate(zip(labels, counts, strict=True))]
    return {"id": id_, "title": title, "metric": metric, "width": WIDTH, "height": TOP + len(bars) * ROW + 4,
            "left": HBAR_LEFT, "bars": bars}


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
