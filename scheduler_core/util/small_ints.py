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


def _digit_table(place: int) -> bytes:
    """Byte v -> the ASCII digit of v at `place` (100, 10, 1), or 0 where v has no such digit."""
    return bytes(ord(str(v // place % 10)) if v >= place or place == 1 else 0 for v in range(256))


_HUNDREDS, _TENS, _UNITS = _digit_table(100), _digit_table(10), _digit_table(1)


def int_list_json(values: list[object]) -> str | None:
    """json.dumps(values, separators=(",", ":")) for a list of ints in 0..255 (a score column):
    each int's digits laid out in four-byte slots by three byte translations, the unused slots
    dropped, all in C-level passes; None for any other list (then encode it as usual)."""
    try:
        raw = bytes(values)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    if values and set(map(type, values)) != {int}:  # a bool or another int-like type: not ours
        return None
    n = len(raw)
    slots = bytearray(4 * n)
    slots[0::4] = raw.translate(_HUNDREDS)
    slots[1::4] = raw.translate(_TENS)
    slots[2::4] = raw.translate(_UNITS)
    slots[3::4] = b"," * n
    return "[" + slots.translate(None, b"\x00")[:-1].decode("ascii") + "]"
