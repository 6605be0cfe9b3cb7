"""The score breakdown of one cycle as the `scores` event records it (decoded by
scheduler_core.events.compact): columns aligned with one node list.

Per plugin its raw scores, and its normalised scores only where Normalize changed them; a
column with one value for every node is that value. A plugin's weighted score is normalised x
weight and the totals their sum, so neither is stored. Extenders add their own columns and the
totals (extender.wiring, schedule_one).

Why bytes: at 65,000 nodes a cycle scores ~3,250 nodes, and a varied column written by json's
encoder, or checked int by int before a faster writer may take it, cost more than the rest of
the cycle's record. The framework packs each plugin's normalised scores into bytes anyway (its
ScoreList range check and totals); the raw scores of a plugin that normalises are packed the
same way before Normalize runs (which is also the copy the raw column needs, as Normalize works
in place). Whether Normalize changed a column is then one comparison of bytes, and the column
is a util.small_ints.IntColumn, whose JSON text is made from those bytes. Only the in-tree
plugins' lists are taken that way: their scores are ints (Go int64s upstream); an out-of-tree
plugin's lists are copied and left to json's encoder, whatever they hold.
"""

from __future__ import annotations

import sys
from operator import attrgetter
from typing import Any

from scheduler_core.framework.runtime.score_list import ScoreList
from scheduler_core.framework.types import NodeInfo
from scheduler_core.util.small_ints import IntColumn, PackedInts, WideInts

IN_TREE_PREFIX = "scheduler_core.framework.plugins."
MIN_ARRAY = 256  # nodes from which a raw column past 255 is kept as an array for a JSON writer

_node_name = attrgetter("name")


def ints_trusted(plugin: Any) -> bool:
    """Whether the plugin's score lists are known to hold only ints (an in-tree plugin's)."""
    return type(plugin).__module__.startswith(IN_TREE_PREFIX)


class Uniform:
    """Raw scores that are one value for every node (of at least one node): kept as that value."""

    __slots__ = ("value",)

    def __init__(self, value: int) -> None:
        self.value = value


def before_normalize(values: list[int], trusted: bool, text_only: bool = False) -> Uniform | bytes | Any:
    """The raw scores of a plugin that normalises, kept before Normalize changes the list in
    place: one value when every node has it (found as ScoreList finds it: the last value
    first, then one identity-first count), else their bytes when they are ints in 0..255 (of
    a trusted plugin), else a copy: an IntColumn when the plugin is trusted (its items are
    ints, written by lookup), or for a JSON writer alone (`text_only`), with NumPy loaded and
    many nodes, an int64 array (WideInts: its text made by vector passes)."""
    n = len(values)
    if n and values[-1] == values[0] and values.count(values[0]) == n:
        return Uniform(values[0])
    if trusted:
        try:
            return bytes(values)
        except (TypeError, ValueError):  # a raw score past 255 (or below 0)
            pass
        np = sys.modules.get("numpy") if text_only and n >= MIN_ARRAY else None
        if np is not None:
            try:
                return WideInts(np.fromiter(values, dtype=np.int64, count=n))
            except (TypeError, ValueError, OverflowError):  # past int64: the list, as usual
                pass
        return IntColumn(values)
    return list(values)


def score_columns(nodes: list[NodeInfo], names: list[str] | None, per_plugin: list[tuple[str, int, list[int]]],
                  raw: list[Uniform | bytes | Any | None], summaries: list[ScoreList],
                  trusted: list[bool], text_only: bool = False) -> dict[str, Any]:
    """The `scores` event's breakdown. Per plugin (in order): its name, weight and normalised
    scores (per_plugin), what before_normalize kept of its raw scores (None: it does not
    normalise, so raw is the list itself), the ScoreList of its normalised scores and whether
    its lists hold only ints. `names`: the names of `nodes` when the caller has them (e.g. a
    run of the node list's name table), else they are read from the nodes. `text_only`: only
    a JSON writer reads the event, so a column known by its bytes is a stand-in (PackedInts)
    instead of a list."""
    raw_cols: dict[str, Any] = {}
    normalized: dict[str, Any] = {}
    for (name, _, lst), before, summary, ints in zip(per_plugin, raw, summaries, trusted, strict=True):
        if before is None:
            raw_cols[name] = _column(lst, summary, ints, text_only)
            continue
        if isinstance(before, Uniform):
            raw_cols[name] = before.value
            changed = not (summary.uniform and lst[0] == before.value)
        elif isinstance(before, bytes):
            n = len(before)
            raw_cols[name] = (before[0] if n and before.count(before[:1]) == n
                              else _packed_column(before, text_only))
            after = summary.packed
            if after is not None:
                changed = after != before
            elif summary.uniform:
                changed = not (before.count(before[:1]) == n and before[0] == lst[0])
            else:  # Normalize left 0..255
                changed = lst != list(before)
        elif isinstance(before, WideInts):  # some raw score outside 0..255, none normalised so
            raw_cols[name] = before
            changed = True
        else:
            raw_cols[name] = compact_column(before)
            changed = lst != before
        if changed:
            normalized[name] = _column(lst, summary, ints, text_only)
    return {"nodes": names if names is not None else list(map(_node_name, nodes)),
            "plugins": [name for name, _, _ in per_plugin],
            "raw": raw_cols, "normalized": normalized, "weighted": {}, "extenders": []}


def _column(values: list[int], summary: ScoreList, ints: bool, text_only: bool) -> Any:
    """A column from a list and its ScoreList: the one value when uniform, an IntColumn when
    its items are ints (with their bytes when known; only those bytes for a JSON writer),
    else a copy (the event never shares the list the framework keeps working on)."""
    if summary.uniform:
        return values[0]
    if ints:
        if text_only and summary.packed is not None:
            return PackedInts(summary.packed)
        col = IntColumn(values)
        col.packed = summary.packed
        return col
    return list(values)


def _packed_column(packed: bytes, text_only: bool) -> Any:
    if text_only:
        return PackedInts(packed)
    col = IntColumn(packed)
    col.packed = packed
    return col


def compact_column(values: list[int]) -> list[int] | int:
    """A column as stored in the `scores` event: the one value when every node has it."""
    if values and values.count(values[0]) == len(values):
        return values[0]
    return values
