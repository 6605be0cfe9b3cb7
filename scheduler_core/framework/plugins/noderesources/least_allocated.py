"""LeastAllocated (the default strategy): prefer nodes with more free capacity left after the pod,
as the weighted mean of (allocatable - requested) * 100 / allocatable."""

from __future__ import annotations

from scheduler_core.framework.interface import MAX_NODE_SCORE
from scheduler_core.framework.plugins.noderesources.resource_allocation import ResourceSpec, ScorerFn


def least_requested_score(requested: int, capacity: int) -> int:
    if capacity == 0 or requested > capacity:
        return 0
    return ((capacity - requested) * MAX_NODE_SCORE) // capacity


def least_resource_scorer(resources: list[ResourceSpec]) -> ScorerFn:
    weights = [r.weight for r in resources]

    def scorer(requested: list[int], allocatable: list[int]) -> int:
        node_score = weight_sum = 0
        for req, alloc, w in zip(requested, allocatable, weights, strict=True):
            if alloc == 0:
                continue
            node_score += least_requested_score(req, alloc) * w
            weight_sum += w
        if weight_sum == 0:
            return 0
        return node_score // weight_sum

    return scorer
