"""LeastAllocated (the default strategy): prefer nodes with more free capacity left after the pod,
as the weighted mean of (allocatable - requested) * 100 / allocatable."""

from __future__ import annotations

from collections.abc import Callable

from scheduler_core.framework.interface import MAX_NODE_SCORE
from scheduler_core.framework.plugins.noderesources.resource_allocation import (
    ResourceSpec,
    ScorerFn,
    weighted_mean_scorer,
)
from scheduler_core.framework.types import NodeInfo


def least_requested_score(requested: int, capacity: int) -> int:
    if capacity == 0 or requested > capacity:
        return 0
    return ((capacity - requested) * MAX_NODE_SCORE) // capacity


def least_resource_scorer(resources: list[ResourceSpec]) -> ScorerFn:
    return weighted_mean_scorer(resources, least_requested_score)


def least_cpu_mem_batch(resources: list[ResourceSpec]) -> Callable[[list[NodeInfo], int, int], list[int]]:
    """The scorer above for (cpu, memory) on the nodes' non-zero requests, over a node list."""
    wc, wm = resources[0].weight, resources[1].weight

    def batch(nodes: list[NodeInfo], pc: int, pm: int) -> list[int]:
        out = []
        append = out.append
        for ni in nodes:
            a = ni.allocatable
            u = ni.non_zero_requested
            ac = a.milli_cpu
            am = a.memory
            ns = ws = 0
            if ac:
                r = u.milli_cpu + pc
                if r <= ac:
                    ns = ((ac - r) * MAX_NODE_SCORE) // ac * wc
                ws = wc
            if am:
                r = u.memory + pm
                if r <= am:
                    ns += ((am - r) * MAX_NODE_SCORE) // am * wm
                ws += wm
            append(ns // ws if ws else 0)
        return out

    return batch
