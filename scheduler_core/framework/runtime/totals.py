"""Weighted score totals per node, the sum selectHost compares (upstream sums
`score * weight` per node over the Score plugins). Kept apart from the framework so the sum
can be done in one pass over the nodes rather than one list pass per plugin.

A list with one value for every node (score_list.ScoreList.uniform: zeros of a plugin with
nothing to say, TaintToleration's 100 without taints anywhere) adds a constant, so it is folded
into one offset instead of being summed node by node. With `vector` (the fast path on a snapshot
that has node arrays, so NumPy is loaded already) the other lists are summed by NumPy straight
from their bytes (ScoreList.packed); the sums are of integers far inside int64 (checked), so they
are the same numbers. Without NumPy, when no node's total can pass 255 (the `relative` totals
of the usual two resource scores), the lists' bytes are summed as one big integer, a byte per
node (_byte_totals).
"""

from __future__ import annotations

from itertools import repeat
from operator import add, mul
from typing import Any

from scheduler_core.framework.interface import MAX_NODE_SCORE
from scheduler_core.framework.runtime.score_list import ScoreList

_INT64_BOUND = 1 << 62


def weighted_totals(weighted: list[tuple[int, ScoreList]], count: int, vector: bool = False,
                    relative: bool = False) -> list[int]:
    """sum(weight * score) per node over the plugins' score lists (each `count` long).

    `relative`: less the share every node has alike (the uniform lists' sum). The totals then
    differ from the true ones by one constant, so they order the nodes the same way and pick
    the same host; for callers that only select (nobody listens for the scores)."""
    offset = 0
    varied: list[tuple[int, ScoreList]] = []
    for w, scores in weighted:
        if scores.uniform:
            offset += w * scores.values[0]
        elif count:
            varied.append((w, scores))
    if relative:
        offset = 0
    if not varied:
        return [offset] * count
    if vector and all(s.packed is not None for _, s in varied):
        bound = abs(offset) + 255 * sum(abs(w) for w, _ in varied)
        if bound < _INT64_BOUND:
            return _vector_totals(varied, offset, keep=not relative)
    if all(s.packed is not None for _, s in varied):
        small = _byte_totals(varied, offset, count)
        if small is not None:
            return small
    lists = [s.values if w == 1 else list(map(mul, s.values, repeat(w, count))) for w, s in varied]
    # Integer sums: the order of the additions changes nothing. Comprehensions for the usual
    # one or two lists, C-level maps chained over one pass for more.
    if len(lists) == 1:
        return [x + offset for x in lists[0]] if offset else list(lists[0])
    if len(lists) == 2:
        a, b = lists
        return [x + y + offset for x, y in zip(a, b, strict=True)] if offset else list(map(add, a, b))
    summed = map(add, lists[0], lists[1])
    for more in lists[2:]:
        summed = map(add, summed, more)
    if offset:
        summed = map(add, summed, repeat(offset, count))
    return list(summed)


class VectorTotals(list):
    """Totals summed by NumPy, with the int64 array they came from (`array`), so a caller that
    reports them (the `selected` event's ties: the nodes with the top total) compares them
    in one vector pass instead of int by int. Pickled as the plain list it is."""

    array: Any = None

    def __reduce__(self) -> tuple[type, tuple[list[int]]]:
        return list, (list(self),)


def _vector_totals(varied: list[tuple[int, ScoreList]], offset: int, keep: bool = False) -> list[int]:
    """The sum over NumPy views of the packed scores (uint8, widened to int64 by the first add).
    `keep`: as VectorTotals, with the array (the true totals, reported)."""
    import numpy as np

    total = np.full(len(varied[0][1].values), offset, dtype=np.int64)
    for w, s in varied:
        col = np.frombuffer(s.packed, dtype=np.uint8)  # type: ignore[arg-type]
        if w == 1:
            total += col
        else:
            total += col * np.int64(w)
    if keep:
        out = VectorTotals(total.tolist())
        out.array = total
        return out
    return total.tolist()


def _byte_totals(varied: list[tuple[int, ScoreList]], offset: int, count: int) -> list[int] | None:
    """The sums when no node's total can pass 255 (usually so for `relative` totals: two or
    three resource scores of at most 100), else None. Each list's bytes (ScoreList.packed) read
    as one integer, one byte per node: adding such integers, and multiplying one by a weight,
    adds and multiplies every node's byte at once, and since no byte passes 255 nothing carries
    into the next node's byte. One big-integer sum instead of an addition per node, and the
    totals come back as small cached ints."""
    if offset < 0 or any(w < 0 for w, _ in varied):
        return None
    # Bounded by MAX_NODE_SCORE per list: the framework's range check found them so (each
    # ScoreList remembers it); lists not checked yet are checked here, in C.
    if offset + MAX_NODE_SCORE * sum(w for w, _ in varied) > 255:
        return None
    if not all(s.in_range(0, MAX_NODE_SCORE) for _, s in varied):
        return None
    total = offset * int.from_bytes(b"\x01" * count, "little") if offset else 0
    for w, s in varied:
        v = int.from_bytes(s.packed, "little")  # type: ignore[arg-type]
        total += v if w == 1 else v * w
    return list(total.to_bytes(count, "little"))
