"""RequestedToCapacityRatio: score each resource's utilisation (0..100 %) through a user-given
piecewise-linear shape, then take the weighted mean (resources scoring 0 do not count)."""

from __future__ import annotations

from scheduler_core.framework.interface import MAX_NODE_SCORE
from scheduler_core.framework.plugins.helper.gomath import go_round
from scheduler_core.framework.plugins.helper.shape_score import (
    FunctionShape,
    FunctionShapePoint,
    build_broken_linear_function,
)
from scheduler_core.framework.plugins.noderesources.resource_allocation import ResourceSpec, ScorerFn

MAX_UTILIZATION = 100
MAX_CUSTOM_PRIORITY_SCORE = 10  # config.MaxCustomPriorityScore: shape scores are 0..10


def build_requested_to_capacity_ratio_scorer_function(shape: FunctionShape,
                                                      resources: list[ResourceSpec]) -> ScorerFn:
    raw = build_broken_linear_function(shape)
    weights = [r.weight for r in resources]

    def resource_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw(MAX_UTILIZATION)
        return raw(requested * MAX_UTILIZATION // capacity)

    def scorer(requested: list[int], allocatable: list[int]) -> int:
        node_score = weight_sum = 0
        for i, alloc in enumerate(allocatable):
            if alloc == 0:
                continue
            w = weights[i]
            s = resource_score(requested[i], alloc)
            if s > 0:
                node_score += s * w
                weight_sum += w
        if weight_sum == 0:
            return 0
        return go_round(float(node_score) / float(weight_sum))

    return scorer


def requested_to_capacity_ratio_scorer(resources: list[ResourceSpec],
                                       shape: list[tuple[int, int]]) -> ScorerFn:
    """`shape` holds (utilization, score 0..10) points; scores are scaled to MaxNodeScore."""
    points = [
        FunctionShapePoint(u, s * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE)) for u, s in shape
    ]
    return build_requested_to_capacity_ratio_scorer_function(points, resources)
