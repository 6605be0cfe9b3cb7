"""Weighted score totals per node, the sum selectHost compares (upstream sums
`score * weight` per node over the Score plugins). Kept apart from the framework so the sum
can be done in one pass over the nodes rather than one list pass per plugin."""

from __future__ import annotations

from itertools import repeat
from operator import add, mul


def weighted_totals(weighted: list[tuple[int, list[int]]], count: int) -> list[int]:
    """sum(weight * score) per node over the plugins' score lists, in one pass over the nodes:
    lists of zeros (plugins with nothing to say, e.g. no taints anywhere) are left out, weights
    applied by C-level maps, and the remaining lists summed column-wise."""
    lists = []
    for w, lst in weighted:
        if not any(lst):
            continue
        lists.append(lst if w == 1 else list(map(mul, lst, repeat(w, len(lst)))))
    if not lists:
        return [0] * count
    if len(lists) == 1:
        return list(lists[0])
    if len(lists) == 2:
        return list(map(add, lists[0], lists[1]))
    return list(map(sum, zip(*lists, strict=True)))
