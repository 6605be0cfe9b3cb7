"""A labelled histogram kept as plain numbers (the run's metrics are data, not global state)."""

from __future__ import annotations

from bisect import bisect_left
from typing import Any


class Histogram:
    """Observations per label values: counts per bucket (the last is +Inf), sum and count."""

    __slots__ = ("buckets", "series")

    def __init__(self, buckets: tuple[float, ...]) -> None:
        self.buckets = buckets
        self.series: dict[tuple[str, ...], list[Any]] = {}  # labels -> [counts, sum, count]

    def observe(self, labels: tuple[str, ...], value: float) -> None:
        s = self.series.get(labels)
        if s is None:
            s = self.series[labels] = [[0] * (len(self.buckets) + 1), 0.0, 0]
        # Prometheus buckets are upper bounds, inclusive: value <= le.
        s[0][bisect_left(self.buckets, value)] += 1
        s[1] += value
        s[2] += 1

    def cumulative(self, labels: tuple[str, ...]) -> list[tuple[str, int]]:
        """[(le, cumulative count)] as the exposition writes them, +Inf last."""
        counts = self.series[labels][0]
        out, total = [], 0
        for le, c in zip([*map(_le, self.buckets), "+Inf"], counts, strict=True):
            total += c
            out.append((le, total))
        return out

    def merged(self) -> tuple[list[int], float, int]:
        """Every label set's observations together (the charts show one histogram)."""
        counts = [0] * (len(self.buckets) + 1)
        total_sum, total = 0.0, 0
        for c, s, n in self.series.values():
            counts = [a + b for a, b in zip(counts, c, strict=True)]
            total_sum += s
            total += n
        return counts, total_sum, total


def _le(v: float) -> str:
    return repr(float(v))
