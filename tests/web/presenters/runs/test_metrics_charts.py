"""The metrics page's charts as geometry: step lines (a value holds until the next step, no
slope between two steps), x positions in steps even when the points are thinned, round ticks,
and labels that fit the drawing (the browser test measures them in Chromium)."""

from __future__ import annotations

import re

from playground.presenters.runs import chart_axes
from playground.presenters.runs.metrics import hbar_chart, line_chart


def _points(steps: list[int], pending: list[int]) -> list[dict]:
    return [{"step": s, "cycle": s, "time": float(s), "pending": {"active": n}} for s, n in zip(steps, pending, strict=True)]


def test_a_series_is_a_step_path_with_its_x_in_steps() -> None:
    chart = line_chart("c", "Pending", "m", _points([0, 1, 2, 10], [3, 3, 1, 0]),
                       [("activeQ", "q-active", lambda p: p["pending"]["active"])], "/runs/t/")
    path = chart["series"][0]["path"]
    assert re.fullmatch(r"M[\d.]+,[\d.]+( [HV][\d.]+)+", path), path  # no diagonal segment
    xs = [float(c["x"]) for c in chart["columns"]]
    # Steps 0, 1, 2 and 10 of 0..11 (the last value held one step): the gap after step 2 is 8 steps wide.
    unit = xs[1] - xs[0]
    assert abs((xs[3] - xs[2]) - 8 * unit) < 0.05
    assert abs(float(chart["columns"][-1]["w"]) - unit) < 0.05
    # The drop from 3 to 1 happens at step 2's x, not on a slope from step 1.
    assert f"H{xs[2]:.1f} V" in path
    assert [t["label"] for t in chart["y_ticks"]] == ["0", "1", "2", "3"]


def test_ticks_are_round_and_labels_fit() -> None:
    assert chart_axes.nice_ticks(7, integer=True) == [0, 2, 4, 6, 8]
    assert chart_axes.nice_ticks(13) == [0, 5, 10, 15]
    assert chart_axes.nice_ticks(0.0417) == [0, 0.01, 0.02, 0.03, 0.04, 0.05]
    assert chart_axes.nice_ticks(12_345, integer=True)[-1] == 12_500
    chart = line_chart("c", "t", "m", _points([0, 1], [12_345, 0]),
                       [("a", "q-active", lambda p: p["pending"]["active"])], "/r/")
    assert chart["y_ticks"][-1]["label"] == "12,500"
    assert chart["label_x"] - chart_axes.text_width("12,500") >= 0  # the widest label starts inside
    long = "NodeResourcesBalancedAllocation PreScore"
    bars = hbar_chart("h", "t", "m", [long, "x"], [123_456.0, 1.0])["bars"]
    assert bars[0]["shown"].endswith("…") and bars[0]["label"] == long and bars[0]["tip"].startswith(long)
    assert bars[0]["vx"] + chart_axes.text_width("123,456") <= 640
