"""Lists of small non-negative ints that write their own JSON text fast.

A cycle's `filter_verdicts` gives every evaluated node the index of its verdict row: at 65,000
nodes ~3,300 indexes per cycle, nearly always fewer than ten distinct. Its `scores` event gives
every scored node each plugin's score, an int in 0..100. json's C encoder turns each int into
text one by one; from the bytes of the ints (one byte each) the same text is made in a few
C-level passes instead: byte translations to digits laid out in fixed slots, the empty slots
dropped. The makers of these lists often hold those bytes already (filter_record keeps the row
indexes as bytes, the framework's ScoreList packs each plugin's scores), so converting the list
back to bytes, and checking that every item is an int, is skipped too.
"""

from __future__ import annotations

import sys
from typing import Any

from scheduler_core.util.json_list import JsonList, JsonText

# Byte i -> the ASCII digit of i for 0..9; every other byte -> 0xff, which no digit is.
_DIGITS = bytes(range(48, 58)) + b"\xff" * 246


class SmallInts(JsonList):
    """A list of ints, each in 0..255 (what its maker guarantees); `json()` is json.dumps of
    the list when every item is a single digit, else None (the caller encodes it as usual).
    `packed`, when the maker sets it, is bytes(self), kept so the text needs no conversion."""

    packed: bytes | bytearray | None = None

    def json(self) -> str | None:
        packed = self.packed
        try:
            raw = packed if packed is not None and len(packed) == len(self) else bytes(self)
        except (TypeError, ValueError):  # not all ints in 0..255: not what the maker promised
            return None
        return digits_json(raw)


def digits_json(raw: bytes | bytearray) -> str | None:
    """json.dumps(list(raw), separators=(",", ":")) when every byte is below 10, else None."""
    digits = raw.translate(_DIGITS)
    if b"\xff" in digits:
        return None
    n = len(digits)
    if not n:
        return "[]"
    slots = bytearray(2 * n + 1)  # "[", then a digit and a comma per item; the last comma is "]"
    slots[1::2] = digits
    slots[2::2] = b"," * n
    slots[0], slots[-1] = 0x5B, 0x5D
    return slots.decode("ascii")


class PackedInts(JsonText):
    """Ints in 0..255 given as their bytes, standing in for the list in an event only a JSON
    writer reads (a filter record's row indexes, a score column): no list is made."""

    __slots__ = ("packed",)

    def __init__(self, packed: bytes) -> None:
        self.packed = packed

    def __len__(self) -> int:
        return len(self.packed)

    def json(self) -> str | None:
        return digits_json(self.packed) or bytes_json(self.packed)

    def items(self) -> list[int]:
        return list(self.packed)


class IntColumn(JsonList):
    """A score column made by a maker that knows every item is an int (the framework, for the
    in-tree Score plugins, whose scores are Go int64s upstream); `json()` is json.dumps of the
    list. With `packed` (bytes of the same ints: each in 0..255) the text is made from the
    bytes; without, each int's text is looked up (`int_texts`): raw scores past 255 (e.g.
    PodTopologySpread's weighted pod counts) cost a lookup each instead of a conversion."""

    packed: bytes | None = None

    def json(self) -> str | None:
        packed = self.packed
        if packed is not None and len(packed) == len(self):
            return bytes_json(packed)
        return int_texts(self)


_TEXTS: dict[int, str] = {}  # i -> str(i) for 0 <= i < len(_TEXTS): grown when a bigger int comes
_MAX_TEXTS = 1 << 20


def int_texts(values: list[int]) -> str | None:
    """json.dumps(values, separators=(",", ":")) for a list of ints (the caller knows they are
    ints: a bool would be written 1) from 0 to a million, by looking each one's text up; None
    for any other list."""
    try:
        return "[" + ",".join(map(_TEXTS.__getitem__, values)) + "]"
    except (KeyError, TypeError):
        pass
    try:
        low, high = min(values), max(values)
    except (TypeError, ValueError):  # not comparable, or empty (then the lookup did not fail)
        return None
    if type(low) is not int or type(high) is not int or low < 0 or high >= _MAX_TEXTS:
        return None
    _TEXTS.update((i, str(i)) for i in range(len(_TEXTS), high + 1))
    try:
        return "[" + ",".join(map(_TEXTS.__getitem__, values)) + "]"
    except (KeyError, TypeError):  # an item that is not an int after all
        return None


def _digit_table(place: int) -> bytes:
    """Byte v -> the ASCII digit of v at `place` (100, 10, 1), or 0 where v has no such digit."""
    return bytes(ord(str(v // place % 10)) if v >= place or place == 1 else 0 for v in range(256))


_HUNDREDS, _TENS, _UNITS = _digit_table(100), _digit_table(10), _digit_table(1)


def int_list_json(values: list[object]) -> str | None:
    """json.dumps(values, separators=(",", ":")) for a list of ints in 0..255 (a score column);
    None for any other list (then encode it as usual)."""
    try:
        raw = bytes(values)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    if values and set(map(type, values)) != {int}:  # a bool or another int-like type: not ours
        return None
    return bytes_json(raw)


def bytes_json(raw: bytes | bytearray) -> str:
    """json.dumps(list(raw), separators=(",", ":")): each byte's digits laid out in four-byte
    slots (three digits, right-aligned, and a comma), the unused slots dropped, all in C-level
    passes: with NumPy loaded (the engine's vector paths at scale), a long list's slots are
    rows of a 256-row table picked by the bytes; else three byte translations fill them."""
    n = len(raw)
    np = sys.modules.get("numpy") if n >= MIN_TABLE else None
    if np is not None:
        rows = _byte_rows(np).take(np.frombuffer(raw, dtype=np.uint8), axis=0)
        return "[" + rows.tobytes().translate(None, b"\x00")[:-1].decode("ascii") + "]"
    slots = bytearray(4 * n)
    slots[0::4] = raw.translate(_HUNDREDS)
    slots[1::4] = raw.translate(_TENS)
    slots[2::4] = raw.translate(_UNITS)
    slots[3::4] = b"," * n
    return "[" + slots.translate(None, b"\x00")[:-1].decode("ascii") + "]"


class WideInts(JsonText):
    """Non-negative ints held as a NumPy int64 array, standing in for their list in an event
    only a JSON writer reads (a raw score column past 255: PodTopologySpread's weighted pod
    counts): the text is made by vector passes (array_json), no list and no text per int."""

    __slots__ = ("array",)

    def __init__(self, array: Any) -> None:
        self.array = array

    def __len__(self) -> int:
        return len(self.array)

    def json(self) -> str | None:
        return array_json(self.array)

    def items(self) -> list[int]:
        return self.array.tolist()


MIN_TABLE = 64  # bytes from which bytes_json picks table rows (when NumPy is loaded)
_BYTE_ROWS: list[Any] = []  # row v: the digits of v right-aligned in 3 slots (0: empty), then ","


def _byte_rows(np: Any) -> Any:
    if not _BYTE_ROWS:
        rows = np.zeros((256, 4), dtype=np.uint8)
        for v in range(256):
            rows[v] = list(str(v).rjust(3, "\x00").encode("ascii") + b",")
        _BYTE_ROWS.append(rows)
    return _BYTE_ROWS[0]


def array_json(a: Any) -> str | None:
    """json.dumps(a.tolist(), separators=(",", ":")) for a NumPy array of non-negative ints,
    else None: each int's digits in fixed slots with a comma after them (below 65,536 the
    slots are rows of a table made once, picked by the ints; above, one vector pass per
    decimal place), the empty slots dropped by one byte translation."""
    import numpy as np

    n = len(a)
    if not n:
        return "[]"
    if int(a.min()) < 0:
        return None
    top = int(a.max())
    if top < _ROWS_BELOW:
        slots = _digit_rows(np).take(a, axis=0)
    else:
        width = len(str(top))
        slots = np.zeros((n, width + 1), dtype=np.uint8)
        for k in range(width):
            slots[:, k] = _digit_column(np, a, 10 ** (width - 1 - k), k == width - 1)
        slots[:, width] = 44  # ","
    return "[" + slots.tobytes().translate(None, b"\x00")[:-1].decode("ascii") + "]"


_ROWS_BELOW = 1 << 16
_ROWS: list[Any] = []  # the table: row v is the digits of v, right-aligned in 5 slots, then ","


def _digit_column(np: Any, a: Any, place: int, units: bool) -> Any:
    """The ASCII digit of each int at `place`, 0 (an empty slot) where the int is shorter."""
    digit = (a // place % 10 + 48).astype(np.uint8)
    if not units:
        digit[a < place] = 0
    return digit


def _digit_rows(np: Any) -> Any:
    if not _ROWS:
        v = np.arange(_ROWS_BELOW, dtype=np.int64)
        rows = np.zeros((_ROWS_BELOW, 6), dtype=np.uint8)
        for k in range(5):
            rows[:, k] = _digit_column(np, v, 10 ** (4 - k), k == 4)
        rows[:, 5] = 44  # ","
        _ROWS.append(rows)
    return _ROWS[0]
