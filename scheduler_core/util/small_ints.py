"""A list of small non-negative ints (row indexes) that writes its own JSON text fast.

A cycle's `filter_verdicts` gives every evaluated node the index of its verdict row: at 65,000
nodes ~3,300 indexes per cycle, nearly always fewer than ten distinct. json's C encoder turns
each int into text one by one; when every index is a single digit the text is made in three
C-level passes instead (bytes of the indexes, translated to digits, joined with commas), about
a tenth of the work.
"""

from __future__ import annotations

from scheduler_core.util.json_list import JsonList

# Byte i -> the ASCII digit of i for 0..9; every other byte -> 0xff, which no digit is.
_DIGITS = bytes(range(48, 58)) + b"\xff" * 246


class SmallInts(JsonList):
    """A list of ints, each in 0..255 (what its maker guarantees); `json()` is json.dumps of
    the list when every item is a single digit, else None (the caller encodes it as usual)."""

    def json(self) -> str | None:
        try:
            digits = bytes(self).translate(_DIGITS)
        except (TypeError, ValueError):  # not all ints in 0..255: not what the maker promised
            return None
        if b"\xff" in digits:
            return None
        return "[" + ",".join(digits.decode("ascii")) + "]"
