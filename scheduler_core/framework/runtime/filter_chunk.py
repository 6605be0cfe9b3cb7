"""What one chunk of the fast filter walk gives back (FilterChunk), and the list work behind it.

A plugin's batch answer is one entry per node still in the running: None (passed) or a Status.
Going plugin by plugin, the framework keeps each node's first rejection in a per-chunk list and
hands the nodes that passed to the next plugin. A pod that fits nowhere has almost every node
rejected by one or two plugins with a few shared Status objects, so this is written as C-level
list passes and slices whose Python-level steps number the rejections when they are few (a
tainted pool, a full zone) and the distinct statuses otherwise, never the nodes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import compress, repeat
from operator import is_
from typing import Any

from scheduler_core.framework.status import Status
from scheduler_core.framework.types import NodeInfo

# A plugin rejecting at most one node in this many of those it was given: its rejections are
# found and removed one by one (slices between them); more, and by whole-list passes.
FEW = 8


@dataclass(slots=True)
class FilterChunk:
    """`statuses`: one per node of the chunk, in order (None: passed). `passed`: the nodes that
    passed, in order; `passed_idx`: their positions in the chunk, or None when every node
    passed without any status. `counts`: how many nodes hold each distinct status, when every
    status is a rejection (Unschedulable, UnschedulableAndUnresolvable or Pending); None when a
    plugin answered anything else (an Error, a Success-coded status): the walk then goes node by
    node, as the plain walk does."""

    statuses: list[Status | None]
    passed: list[NodeInfo]
    passed_idx: list[int] | None
    counts: dict[Status, int] | None


def split(sts: list[Status | None]) -> tuple[list[Status], int]:
    """The non-None entries of a plugin's answers, in order, and how many entries are None.

    `list.count` is a C loop that compares by identity first: counting the object that fills
    most of the list costs almost nothing, while every other entry costs a full comparison
    (a Status against None goes through __eq__ both ways). So the count is taken of what the
    list starts with: None for a plugin passing most nodes, the shared Status for one rejecting
    them all (then the list itself is the rejections, no copy)."""
    n = len(sts)
    head = sts[0] if n else None
    if head is not None and sts.count(head) == n:
        return sts, 0  # type: ignore[return-value]  # every entry is this one Status
    passed = sts.count(None)
    if passed == n:
        return [], n
    # A Status is always true and None false: filter(None, ...) keeps the rejections.
    return list(filter(None, sts)), passed


def distinct_counts(rejected: list[Status]) -> dict[Status, int]:
    """How many entries of `rejected` (Status objects, not empty) are each distinct object: one
    identity pass when they are all one shared Status (the usual case), else a Counter."""
    first = rejected[0]
    n = len(rejected)
    if rejected.count(first) == n:  # identity compares first: a C loop over pointers
        return {first: n}
    return Counter(rejected)


_INTS: list[int] = []  # 0, 1, 2, ...: shared, only ever extended


def upto(n: int) -> list[int]:
    """[0, 1, ..., n-1], copied from a list of int objects kept for it (a C copy: taking
    positions from `range` makes a new int object for every position past 256)."""
    if len(_INTS) < n:
        _INTS.extend(range(len(_INTS), n))
    return _INTS[:n]


def positions(sts: list[Status | None]) -> list[int]:
    """The positions of the non-None entries of `sts`, in order (one C pass)."""
    n = len(sts)
    if len(_INTS) < n:
        _INTS.extend(range(len(_INTS), n))
    return list(compress(_INTS, sts))  # compress stops with the shorter: `sts`


def without(seq: Any, drop: list[int]) -> list[Any]:
    """`seq` (a list or a range) without the items at the sorted positions `drop`, as slices."""
    out: list[Any] = []
    prev = 0
    for p in drop:
        if p > prev:
            out += seq[prev:p]
        prev = p + 1
    out += seq[prev:]
    return out


def fill_gaps(result: list[Status | None], gone: list[int], sts: list[Status | None]) -> list[Status | None]:
    """A new `result` whose entries at the sorted positions `gone` are kept and whose other
    entries are `sts`, in order (a plugin's answers for the nodes still in the running, which
    are exactly the positions not in `gone`), built from slices."""
    out: list[Status | None] = []
    j = 0
    prev = 0
    for p in gone:
        k = p - prev
        if k:
            out += sts[j:j + k]
            j += k
        out.append(result[p])
        prev = p + 1
    out += sts[j:]
    return out


def shift(drop: list[int], gone: list[int]) -> list[int]:
    """Positions among the nodes still in the running (`drop`, sorted) as positions in the
    chunk, `gone` (sorted) being the chunk positions no longer in the running."""
    out: list[int] = []
    j = 0
    g = len(gone)
    for k in drop:
        p = k + j
        while j < g and gone[j] <= p:
            j += 1
            p = k + j
        out.append(p)
    return out


def alive_positions(n: int, gone: list[int] | None, alive_idx: list[int]) -> list[int]:
    """The chunk positions of the nodes still in the running: all but `gone` while it is
    kept, else `alive_idx`."""
    if gone is None:
        return alive_idx
    return upto(n) if not gone else without(upto(n), gone)


def passed_mask(sts: list[Status | None]) -> list[bool]:
    """Whether each entry of `sts` is None (the node passed)."""
    return list(map(is_, sts, repeat(None, len(sts))))


def merge_sorted(a: list[int], b: list[int]) -> list[int]:
    """Two sorted lists of distinct positions as one sorted list (timsort merges the runs)."""
    if not a:
        return list(b)
    out = a + b
    out.sort()
    return out


__all__ = ["FEW", "FilterChunk", "alive_positions", "distinct_counts", "fill_gaps", "merge_sorted",
           "passed_mask", "positions", "shift", "split", "upto", "without"]
