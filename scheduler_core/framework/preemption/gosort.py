"""Go's `sort.Slice` (pattern-defeating quicksort) re-implemented, comparison for comparison.

Why not `list.sort`? Upstream orders preemption victims with `sort.Slice` and a `less` that is
not a strict weak ordering when pods carry no start time: `util.GetPodStartTime` then answers
"now", a fresh and later instant on every call, so two equal-priority pods each look older than
the other depending on which is asked first. The resulting order is a property of Go's exact
algorithm (insertion sort up to 12 elements, pdqsort beyond), not of the keys, so matching the
upstream victim choice means replaying the same comparisons in the same sequence.

Only the unstable `sort.Slice` path is needed here. The port was checked comparison-for-comparison
against go1.19's sort.Slice (with that release's xorshift constants); the constants below are the
ones Go 1.22+ (which builds kube-scheduler v1.35) uses in breakPatterns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_MAX_INSERTION = 12
_SHORTEST_NINTHER = 50
_MAX_SWAPS = 4 * 3
_SHORTEST_SHIFTING = 50
_MAX_STEPS = 5

_UNKNOWN_HINT = 0
_INCREASING_HINT = 1
_DECREASING_HINT = 2

_MASK64 = (1 << 64) - 1


def go_sort_slice(data: list[T], less: Callable[[T, T], bool]) -> None:
    """Sort `data` in place exactly as Go's `sort.Slice(data, less)` would."""
    n = len(data)
    if n <= 1:
        return
    _Sorter(data, less).pdqsort(0, n, n.bit_length())


class _Sorter:
    __slots__ = ("d", "lt")

    def __init__(self, data: list[Any], less: Callable[[Any, Any], bool]) -> None:
        self.d = data
        self.lt = less

    def less(self, i: int, j: int) -> bool:
        d = self.d
        return self.lt(d[i], d[j])

    def swap(self, i: int, j: int) -> None:
        d = self.d
        d[i], d[j] = d[j], d[i]

    def insertion_sort(self, a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and self.less(j, j - 1):
                self.swap(j, j - 1)
                j -= 1

    def sift_down(self, lo: int, hi: int, first: int) -> None:
        root = lo
        while True:
            child = 2 * root + 1
            if child >= hi:
                return
            if child + 1 < hi and self.less(first + child, first + child + 1):
                child += 1
            if not self.less(first + root, first + child):
                return
            self.swap(first + root, first + child)
            root = child

    def heap_sort(self, a: int, b: int) -> None:
        first, lo, hi = a, 0, b - a
        for i in range((hi - 1) // 2, -1, -1):
            self.sift_down(i, hi, first)
        for i in range(hi - 1, -1, -1):
            self.swap(first, first + i)
            self.sift_down(lo, i, first)

    def pdqsort(self, a: int, b: int, limit: int) -> None:
        was_balanced = True
        was_partitioned = True
        while True:
            length = b - a
            if length <= _MAX_INSERTION:
                self.insertion_sort(a, b)
                return
            if limit == 0:
                self.heap_sort(a, b)
                return
            if not was_balanced:
                self.break_patterns(a, b)
                limit -= 1
            pivot, hint = self.choose_pivot(a, b)
            if hint == _DECREASING_HINT:
                self.reverse_range(a, b)
                pivot = (b - 1) - (pivot - a)
                hint = _INCREASING_HINT
            if was_balanced and was_partitioned and hint == _INCREASING_HINT:
                if self.partial_insertion_sort(a, b):
                    return
            if a > 0 and not self.less(a - 1, pivot):
                a = self.partition_equal(a, b, pivot)
                continue
            mid, already = self.partition(a, b, pivot)
            was_partitioned = already
            left_len, right_len = mid - a, b - mid
            balance_threshold = length // 8
            if left_len < right_len:
                was_balanced = left_len >= balance_threshold
                self.pdqsort(a, mid, limit)
                a = mid + 1
            else:
                was_balanced = right_len >= balance_threshold
                self.pdqsort(mid + 1, b, limit)
                b = mid

    def partition(self, a: int, b: int, pivot: int) -> tuple[int, bool]:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while i <= j and self.less(i, a):
            i += 1
        while i <= j and not self.less(j, a):
            j -= 1
        if i > j:
            self.swap(j, a)
            return j, True
        self.swap(i, j)
        i += 1
        j -= 1
        while True:
            while i <= j and self.less(i, a):
                i += 1
            while i <= j and not self.less(j, a):
                j -= 1
            if i > j:
                break
            self.swap(i, j)
            i += 1
            j -= 1
        self.swap(j, a)
        return j, False

    def partition_equal(self, a: int, b: int, pivot: int) -> int:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while True:
            while i <= j and not self.less(a, i):
                i += 1
            while i <= j and self.less(a, j):
                j -= 1
            if i > j:
                break
            self.swap(i, j)
            i += 1
            j -= 1
        return i

    def partial_insertion_sort(self, a: int, b: int) -> bool:
        i = a + 1
        for _ in range(_MAX_STEPS):
            while i < b and not self.less(i, i - 1):
                i += 1
            if i == b:
                return True
            if b - a < _SHORTEST_SHIFTING:
                return False
            self.swap(i, i - 1)
            if i - a >= 2:
                j = i - 1
                while j >= 1:
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
                    j -= 1
            if b - i >= 2:
                j = i + 1
                while j < b:
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
                    j += 1
        return False

    def break_patterns(self, a: int, b: int) -> None:
        length = b - a
        if length < 8:
            return
        rnd = length & _MASK64
        modulus = 1 << length.bit_length()
        idx = a + (length // 4) * 2 - 1
        while idx <= a + (length // 4) * 2 + 1:
            rnd ^= (rnd << 13) & _MASK64
            rnd ^= rnd >> 7
            rnd ^= (rnd << 17) & _MASK64
            other = rnd & (modulus - 1)
            if other >= length:
                other -= length
            self.swap(idx, a + other)
            idx += 1

    def choose_pivot(self, a: int, b: int) -> tuple[int, int]:
        ln = b - a
        swaps = [0]
        i = a + ln // 4 * 1
        j = a + ln // 4 * 2
        k = a + ln // 4 * 3
        if ln >= 8:
            if ln >= _SHORTEST_NINTHER:
                i = self.median(i - 1, i, i + 1, swaps)
                j = self.median(j - 1, j, j + 1, swaps)
                k = self.median(k - 1, k, k + 1, swaps)
            j = self.median(i, j, k, swaps)
        if swaps[0] == 0:
            return j, _INCREASING_HINT
        if swaps[0] == _MAX_SWAPS:
            return j, _DECREASING_HINT
        return j, _UNKNOWN_HINT

    def order2(self, a: int, b: int, swaps: list[int]) -> tuple[int, int]:
        if self.less(b, a):
            swaps[0] += 1
            return b, a
        return a, b

    def median(self, a: int, b: int, c: int, swaps: list[int]) -> int:
        a, b = self.order2(a, b, swaps)
        b, c = self.order2(b, c, swaps)
        a, b = self.order2(a, b, swaps)
        return b

    def reverse_range(self, a: int, b: int) -> None:
        i, j = a, b - 1
        while i < j:
            self.swap(i, j)
            i += 1
            j -= 1
