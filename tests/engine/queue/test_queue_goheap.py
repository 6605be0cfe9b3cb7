"""Go container/heap emulation: sequences derived by hand from Go's algorithm (up/down, Init,
Pop swapping the root with the last element), where equal keys come out in Go's order."""

from __future__ import annotations

import random

import pytest

from scheduler_core.backend.heap import Heap
from scheduler_core.util.goheap import heap_fix, heap_init, heap_pop, heap_push, heap_remove


def key_less(a, b):
    return a[0] < b[0]


def score_max_less(a, b):
    return a[1] > b[1]


def drain(h, less):
    out = []
    while h:
        out.append(heap_pop(h, less))
    return out


def test_init_layout_distinct_keys():
    h = [5, 3, 8, 1, 9, 2]
    heap_init(h, lambda a, b: a < b)
    assert h == [1, 3, 2, 5, 9, 8]


def test_all_equal_keys_pop_order_after_init():
    # Init does nothing; Pop swaps root with last: A, then D (moved to the root), then C, then B.
    h = [(1, "A"), (1, "B"), (1, "C"), (1, "D")]
    heap_init(h, key_less)
    assert [x[1] for x in drain(h, key_less)] == ["A", "D", "C", "B"]


def test_all_equal_keys_pushed_one_by_one():
    h: list = []
    for name in "ABC":
        heap_push(h, (0, name), key_less)
    assert [x[1] for x in drain(h, key_less)] == ["A", "C", "B"]


def test_select_host_like_max_heap_ties():
    # Feasible nodes in filter order with total scores; ties at 20 between n2, n3, n5.
    nodes = [("n1", 10), ("n2", 20), ("n3", 20), ("n4", 5), ("n5", 20)]
    h = list(nodes)
    heap_init(h, score_max_less)
    assert h[0][0] == "n2"
    assert [x[0] for x in drain(h, score_max_less)] == ["n2", "n5", "n3", "n1", "n4"]


def test_tie_order_differs_from_stable_sort():
    # Eight equal keys: Go's pops are not insertion order (a plain stable sort would be).
    h = [(0, i) for i in range(8)]
    heap_init(h, key_less)
    order = [x[1] for x in drain(h, key_less)]
    assert order[0] == 0 and order != list(range(8))
    # Pop i moves the last element to the root; with equal keys down() never moves it.
    assert order == [0, 7, 6, 5, 4, 3, 2, 1]


def test_fix_and_remove_keep_invariant():
    rnd = random.Random(7)
    h = [rnd.randint(0, 50) for _ in range(40)]
    less = lambda a, b: a < b  # noqa: E731
    heap_init(h, less)
    for _ in range(100):
        i = rnd.randrange(len(h))
        h[i] = rnd.randint(0, 50)
        heap_fix(h, i, less)
        for j in range(1, len(h)):
            assert not less(h[j], h[(j - 1) // 2])
    before = sorted(h)
    removed = heap_remove(h, 5, less)
    before.remove(removed)
    assert drain(h, less) == before


def test_remove_last_element_is_plain_pop():
    h = [1, 2, 3]
    assert heap_remove(h, 2, lambda a, b: a < b) == 3
    assert h == [1, 2]


class _Obj:
    def __init__(self, key, prio):
        self.key = key
        self.prio = prio


def _key(o):
    return o.key


def _less(a, b):
    return a.prio < b.prio


@pytest.mark.parametrize("seed", range(5))
def test_keyed_heap_matches_plain_go_heap(seed):
    """The keyed heap performs exactly Go's operations: same pops as goheap on the same calls."""
    rnd = random.Random(seed)
    kh: Heap = Heap(_key, _less)
    ref: list = []  # the same objects under the plain functions
    ref_less = _less
    names = [f"p{i}" for i in range(12)]
    for _ in range(200):
        op = rnd.random()
        name = rnd.choice(names)
        if op < 0.5:
            prio = rnd.randint(0, 3)  # many ties
            existing = next((i for i, o in enumerate(ref) if o.key == name), None)
            if existing is None:
                o = _Obj(name, prio)
                kh.add_or_update(o)
                heap_push(ref, o, ref_less)
            else:
                o = _Obj(name, prio)
                kh.add_or_update(o)
                ref[existing] = o
                heap_fix(ref, existing, ref_less)
        elif op < 0.7:
            existing = next((i for i, o in enumerate(ref) if o.key == name), None)
            assert kh.delete_by_key(name) == (existing is not None)
            if existing is not None:
                heap_remove(ref, existing, ref_less)
        else:
            a = kh.pop()
            b = heap_pop(ref, ref_less) if ref else None
            assert (a.key if a else None) == (b.key if b else None)
        assert [o.key for o in kh.list()] == [o.key for o in ref]
    assert [o.key for o in kh.pop_order()] == [o.key for o in drain(list(ref), ref_less)]


@pytest.mark.parametrize("seed", range(3))
def test_a_queue_head_pops_like_the_whole_copy(seed):
    """`pop_order(limit)` reads the heap through an overlay instead of copying it: the same
    objects, ties included, as the first `limit` pops of the copy."""
    rnd = random.Random(seed)
    kh: Heap = Heap(_key, _less)
    for i in range(rnd.randint(30, 80)):
        kh.add_or_update(_Obj(f"p{i}", rnd.randint(0, 4)))  # many ties
        if rnd.random() < 0.2:
            kh.pop()
    array = [o.key for o in kh.list()]
    whole = [o.key for o in kh.pop_order()]
    for limit in range(len(whole) + 2):
        assert [o.key for o in kh.pop_order(limit)] == whole[:limit]
    assert [o.key for o in kh.list()] == array  # the heap is untouched
