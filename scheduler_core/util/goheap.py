"""Go's `container/heap` on a Python list, step for step.

Upstream keeps several min-heaps (the scheduling queue's activeQ/backoffQ, selectHost's score heap)
and, where two elements compare equal, which one comes out first depends on the exact sequence of
swaps Go's algorithm performs. Python's `heapq` uses a different sift strategy and would break
those ties differently, so everything that must reproduce upstream's tie order uses these functions.

`less(a, b)` returns True when `a` must come out before `b`. The list is modified in place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
Less = Callable[[Any, Any], bool]


def _up(h: list, j: int, less: Less) -> None:
    # Go computes the parent as (j-1)/2 with truncation toward zero, so j == 0 stops the loop.
    while j > 0:
        i = (j - 1) // 2
        if not less(h[j], h[i]):
            break
        h[i], h[j] = h[j], h[i]
        j = i


def _down(h: list, i0: int, n: int, less: Less) -> bool:
    i = i0
    while True:
        j1 = 2 * i + 1
        if j1 >= n:
            break
        j = j1
        j2 = j1 + 1
        if j2 < n and less(h[j2], h[j1]):
            j = j2
        if not less(h[j], h[i]):
            break
        h[i], h[j] = h[j], h[i]
        i = j
    return i > i0


def heap_init(h: list, less: Less) -> None:
    """heap.Init: sift down every internal node, from the last one to the root."""
    n = len(h)
    for i in range(n // 2 - 1, -1, -1):
        _down(h, i, n, less)


def heap_push(h: list, x: Any, less: Less) -> None:
    """heap.Push: append then sift up."""
    h.append(x)
    _up(h, len(h) - 1, less)


def heap_pop(h: list[T], less: Less) -> T:
    """heap.Pop: swap the root with the last element, sift the new root down over the first
    n-1 elements, then remove and return the last element."""
    n = len(h) - 1
    h[0], h[n] = h[n], h[0]
    _down(h, 0, n, less)
    return h.pop()


def heap_remove(h: list[T], i: int, less: Less) -> T:
    """heap.Remove: take element i out, keeping the heap invariant."""
    n = len(h) - 1
    if n != i:
        h[i], h[n] = h[n], h[i]
        if not _down(h, i, n, less):
            _up(h, i, less)
    return h.pop()


def heap_fix(h: list, i: int, less: Less) -> None:
    """heap.Fix: restore the invariant after element i changed."""
    if not _down(h, i, len(h), less):
        _up(h, i, less)


def max_heap_init_root(values: list[int]) -> int:
    """The index of the element `heap_init(h, lambda a, b: a > b)` would leave at the root, without
    moving anything (selectHost over totals when no tie-breaking randomizer is set).

    heap.Init sifts every internal node down after its subtrees became heaps, and an element only
    sinks below a child that is strictly greater. So the root keeps its element when that equals
    the maximum m; otherwise the larger child's subtree root comes up (the left one when both
    subtrees reach m). Following that rule from the root finds the winner."""
    if not values:
        raise IndexError("max_heap_init_root of an empty list")
    m = max(values)
    if values[0] == m:
        return 0
    # A unique maximum (the usual case) is found with two C scans (list.index).
    first = values.index(m)
    try:
        values.index(m, first + 1)
    except ValueError:
        return first
    # Which way the walk goes: left when the left child's subtree holds an m. A subtree's
    # positions d levels down form one contiguous range, so each level is one C scan
    # (list.index over that range): ties by the hundred are common, and this costs no Python
    # work per tie.
    n = len(values)

    def subtree_holds(p: int) -> bool:
        lo = hi = p
        while lo < n:
            try:
                values.index(m, lo, hi + 1)
                return True
            except ValueError:
                lo, hi = 2 * lo + 1, 2 * hi + 2
        return False

    i = 0
    while values[i] != m:
        left = 2 * i + 1
        i = left if subtree_holds(left) else left + 1
    return i
