"""BuildBrokenLinearFunction: a piecewise-linear utilisation -> score function.

Used by RequestedToCapacityRatio (NodeResourcesFit) and VolumeBinding's capacity scoring; the
shape's points come from the plugin args, already scaled to MaxNodeScore.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from scheduler_core.framework.plugins.helper.gomath import go_div


@dataclass(frozen=True)
class FunctionShapePoint:
    utilization: int
    score: int


FunctionShape = list[FunctionShapePoint]


def build_broken_linear_function(shape: FunctionShape) -> Callable[[int], int]:
    """f(p) = shape[0].score below the first point, shape[-1].score above the last one, and linear
    (with Go's truncating integer division) in between."""
    points = tuple(shape)

    def fn(p: int) -> int:
        for i, pt in enumerate(points):
            if p <= pt.utilization:
                if i == 0:
                    return points[0].score
                prev = points[i - 1]
                return prev.score + go_div(
                    (pt.score - prev.score) * (p - prev.utilization), pt.utilization - prev.utilization
                )
        return points[-1].score

    return fn
