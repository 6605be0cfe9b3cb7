"""One Score plugin's normalised scores (node order), with the two facts the framework needs of
them found by C scans instead of Python comparisons per node: whether every node has the same
score, and otherwise the scores as bytes.

After normalisation the framework checks every score against [MIN_NODE_SCORE, MAX_NODE_SCORE]
(upstream runScorePlugins) and sums the weighted scores per node. Done with `min`/`max` and
list arithmetic that was ~20 % of a cycle at 15,000 nodes (750 scored nodes, five plugins), most
of it on lists with one value for every node (TaintToleration without taints anywhere, plugins
with nothing to say). A uniform list is found with one `list.count` (identity compares: scores
are small cached ints); its range check looks at one value and its weighted share is a constant.
Any other list of integers in 0..255 (every valid score is) converts to `bytes` in C, and
`bytes.translate` deleting the in-range values leaves something exactly when a score is out of
range; the same bytes give NumPy the scores without a per-node conversion (totals.py). A list
that does not convert (a negative or a non-integer score) falls back to the plain comparisons,
so every answer is the one `min`/`max` give.
"""

from __future__ import annotations

_IN_RANGE_TABLES: dict[tuple[int, int], bytes] = {}


class ScoreList:
    """`values` (one plugin's scores, not changed after this is made) with `uniform` (every
    value equal, and the list not empty), `packed` (bytes(values), or None when uniform or not
    convertible) and `within` (a range in_range found them in: the framework's range check,
    which the byte totals then need not repeat)."""

    __slots__ = ("values", "uniform", "packed", "within")

    def __init__(self, values: list[int]) -> None:
        self.values = values
        n = len(values)
        first = values[0] if n else None
        # The last value first: a varied list usually differs there, sparing the full count.
        self.uniform = n > 0 and values[-1] == first and values.count(first) == n
        self.packed: bytes | None = None
        self.within: tuple[int, int] | None = None
        if not self.uniform:
            try:
                self.packed = bytes(values)
            except (TypeError, ValueError):
                pass

    def in_range(self, lo: int, hi: int) -> bool:
        """Whether no value is below `lo` or above `hi` (what `min(values) < lo or
        max(values) > hi` denies)."""
        within = self.within
        if within is not None and lo <= within[0] and within[1] <= hi:
            return True
        values = self.values
        if not values:
            return True
        if self.uniform:
            v = values[0]
            ok = not (v < lo or v > hi)
        elif self.packed is not None:
            ok = not self.packed.translate(None, _in_range_table(lo, hi))
        else:
            ok = not (min(values) < lo or max(values) > hi)
        if ok:
            self.within = (lo, hi)
        return ok


def _in_range_table(lo: int, hi: int) -> bytes:
    """The byte values within [lo, hi]: deleted by translate, so only out-of-range ones remain."""
    table = _IN_RANGE_TABLES.get((lo, hi))
    if table is None:
        table = _IN_RANGE_TABLES[(lo, hi)] = bytes(range(max(lo, 0), min(hi, 255) + 1))
    return table
