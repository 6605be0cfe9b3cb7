"""VolumeBinding's capacity scorer (StorageCapacityScoring, alpha): per storage class, the share
of the node's capacity the pod's volumes would use, mapped through the args' `shape`, then the
classes' plain mean (all classes weigh the same while the feature is alpha).

Upstream volumebinding/scorer.go: a class whose capacity is 0, or smaller than what is
requested, counts as fully used.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from scheduler_core.framework.plugins.helper.gomath import go_round
from scheduler_core.framework.plugins.helper.shape_score import FunctionShape, build_broken_linear_function

__all__ = ["StorageResource", "VolumeCapacityScorer", "build_scorer_function"]

MAX_UTILIZATION = 100


@dataclass
class StorageResource:
    """Bytes one class's volumes request on a node, and the capacity they would take it from."""

    requested: int = 0
    capacity: int = 0


VolumeCapacityScorer = Callable[[dict[str, StorageResource]], int]


def build_scorer_function(shape: FunctionShape) -> VolumeCapacityScorer:
    """The node score for a class -> StorageResource map (`shape` already scaled to MaxNodeScore)."""
    raw = build_broken_linear_function(shape)

    def utilisation_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw(MAX_UTILIZATION)
        return raw(requested * MAX_UTILIZATION // capacity)

    def score(classes: dict[str, StorageResource]) -> int:
        if not classes:
            return 0
        total = sum(utilisation_score(r.requested, r.capacity) for r in classes.values())
        return go_round(total / len(classes))

    return score
