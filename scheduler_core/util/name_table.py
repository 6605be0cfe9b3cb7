"""Node-name lists that are slices of one list, with their JSON text already made.

A recorded cycle over N nodes names every one of them (the evaluated ones in walk order, the
rest in list order): both are runs of the snapshot's node list, which stays the same from cycle
to cycle until a node comes or goes. `NameTable` holds that list's names and their JSON text
once; `NameRun` is an ordinary list of names (readers see nothing else) that also knows which
runs of the table it is, so the trace writer copies its JSON text instead of encoding N names
again (events.jsonl.EventLineEncoder).
"""

from __future__ import annotations

import json
import re
import sys
from itertools import accumulate, compress
from json.encoder import encode_basestring_ascii
from operator import add, sub
from typing import Any

from scheduler_core.util.json_list import JsonList, JsonText


class NameTable:
    """The names of one node list and the JSON text of `","`-joined names, with where each
    name starts and ends in it."""

    __slots__ = ("key", "names", "text", "starts", "ends", "position", "_widths")

    def __init__(self, key: Any, names: list[str]) -> None:
        self.key = key  # the object this table was made for (kept alive: its id is never reused)
        self.names = names
        try:  # json.dumps of a str is this C function's answer (ASCII, escaped): no call per name
            encoded = list(map(encode_basestring_ascii, names))
        except TypeError:  # a name that is not a str
            encoded = [json.dumps(name) for name in names]
        self.text = ",".join(encoded)
        self.position = dict(zip(names, range(len(names)), strict=True))
        # Each piece starts after the pieces before it and their commas (one each).
        self.ends: list[int] = list(accumulate(map(len, encoded)))
        self.ends = list(map(add, self.ends, range(len(encoded))))
        self.starts: list[int] = list(map(sub, self.ends, map(len, encoded)))
        self._widths: tuple[Any, int] | None = None

    def run(self, segments: list[tuple[int, int]]) -> NameRun:
        """The names of table[a:b] for each (a, b), concatenated."""
        segments = [(a, b) for a, b in segments if b > a]
        out = NameRun()
        for a, b in segments:
            out.extend(self.names[a:b])
        out.table, out.segments = self, segments
        return out


    def widths(self, np: Any, segments: list[tuple[int, int]]) -> Any:
        """Per name of the runs `segments` (in order), the length of its JSON text plus one
        (the comma after it), as a NumPy array; or one int when every name of the table has
        the same length (node lists made by a generator, a cloud's fixed-width names)."""
        if self._widths is None:
            each = np.asarray(self.ends, dtype=np.intp) - np.asarray(self.starts, dtype=np.intp) + 1
            same = int(each[0]) if len(each) and int(each.min()) == int(each.max()) else 0
            self._widths = (each, same)
        each, same = self._widths
        if same:
            return same
        return np.concatenate([each[a:b] for a, b in segments]) if segments else each[:0]

    def span(self, segments: list[tuple[int, int]]) -> NameSpan:
        """table.run's names, as a stand-in for a JSON writer (no list made)."""
        return NameSpan(self, [(a, b) for a, b in segments if b > a])

    def find_run(self, names: list[Any]) -> str | None:
        """The JSON text of `names` when they are one run of this list (wrapping around its end,
        as the Filter walk does), else None. Costs a lookup and a list comparison."""
        n, total = len(names), len(self.names)
        if not n or n > total:
            return None
        try:
            a = self.position.get(names[0])
        except TypeError:  # not a name
            return None
        if a is None:
            return None
        if a + n <= total:
            if self.names[a:a + n] != names:
                return None
            return "[" + self.text[self.starts[a]:self.ends[a + n - 1]] + "]"
        head = total - a
        if self.names[a:] != names[:head] or self.names[:n - head] != names[head:]:
            return None
        return ("[" + self.text[self.starts[a]:self.ends[total - 1]] + ","
                + self.text[self.starts[0]:self.ends[n - head - 1]] + "]")


_FLAGGED = re.compile(rb"\x01+")  # a run of items whose flag is set


class TableRun:
    """Names that are runs of a NameTable (`segments`, each (a, b): table[a:b]): what NameRun
    (a list) and NameSpan (its stand-in for a JSON writer) share. `json()` is json.dumps of
    the names, made once (the engine never changes an event's lists)."""

    table: NameTable | None = None
    segments: list[tuple[int, int]] = []
    _text: tuple[int, str] | None = None  # (length, JSON text) once made
    # (each subclass is sized: a list, or a stand-in that knows its count)

    def table_segments(self, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Where the items self[i:j] of each (i, j) sit in the table, as its (a, b) runs: the
        spans in increasing order, not overlapping."""
        if len(self.segments) == 1:  # one run of the table (a walk that did not wrap): shifted
            a0, b0 = self.segments[0]
            return [(a0 + i, min(b0, a0 + j)) for i, j in spans if j > i]
        out: list[tuple[int, int]] = []
        segments = iter(self.segments)
        seg_a, seg_b = next(segments, (0, 0))
        offset = 0  # index in self of the current segment's first item
        for i, j in spans:
            while i < j:
                while i >= offset + seg_b - seg_a:  # skip the segments before item i
                    offset += seg_b - seg_a
                    seg_a, seg_b = next(segments)
                a = seg_a + i - offset
                b = min(seg_b, seg_a + j - offset)
                if out and out[-1][1] == a:
                    out[-1] = (out[-1][0], b)
                else:
                    out.append((a, b))
                i += b - a
        return out

    def sub_run(self, segments: list[tuple[int, int]]) -> TableRun:
        """The names of these runs of the same table, of this kind (a list, or a stand-in)."""
        raise NotImplementedError

    def select(self, flags: bytes) -> Any:
        """The items whose flag is set (`flags`: one byte per item, 0 or 1): what
        itertools.compress gives. A run of the same table when the taken items form few runs
        (at most one per MIN_RUN_LENGTH items), so their JSON text is copied in a few slices;
        else a pick (NamePick, NameSpanPick), as copying many short slices costs more than
        cutting this run's text."""
        assert self.table is not None and len(flags) == len(self)
        runs = run_count(flags)
        if runs <= MAX_SEGMENTS or (runs * MIN_RUN_LENGTH <= len(flags) and not self._cuttable()):
            spans = [m.span() for m in _FLAGGED.finditer(flags)]
            return self.sub_run(self.table_segments(spans))
        return self._pick(flags)

    def _cuttable(self) -> bool:
        """Whether a pick of these names has its text cut by NumPy (pick_json): then a pick
        beats a run of more than MAX_SEGMENTS pieces, each a few steps of Python."""
        return self.table is not None and len(self) >= MIN_VECTOR and sys.modules.get("numpy") is not None

    def _pick(self, flags: bytes) -> Any:
        raise NotImplementedError

    def json(self) -> str | None:
        """The list's JSON text from the table, or None when the list no longer matches it."""
        table = self.table
        if table is None:
            return None
        made = self._text
        if made is not None and made[0] == len(self):
            return made[1]
        if len(self) != sum([b - a for a, b in self.segments]):
            return None
        text, starts, ends = table.text, table.starts, table.ends
        joined = "[" + ",".join([text[starts[a]:ends[b - 1]] for a, b in self.segments]) + "]"
        self._text = (len(self), joined)
        return joined


class NameRun(TableRun, JsonList):
    """A list of names made of runs of a NameTable."""

    def sub_run(self, segments: list[tuple[int, int]]) -> NameRun:
        assert self.table is not None
        return self.table.run(segments)

    def _pick(self, flags: bytes) -> NamePick:
        picked = NamePick(compress(self, flags))
        picked.source, picked.flags = self, flags
        return picked


class NameSpan(TableRun, JsonText):
    """Runs of a NameTable standing in for the list of their names, in an event only a JSON
    writer reads (util.json_list.JsonText): no list of thousands of names is made."""

    def __init__(self, table: NameTable, segments: list[tuple[int, int]]) -> None:
        self.table, self.segments = table, segments
        self.count = sum(b - a for a, b in segments)

    def __len__(self) -> int:
        return self.count

    def items(self) -> list[str]:
        assert self.table is not None
        return self.table.run(self.segments)

    def sub_run(self, segments: list[tuple[int, int]]) -> NameSpan:
        assert self.table is not None
        return self.table.span(segments)

    def _pick(self, flags: bytes) -> NameSpanPick:
        return NameSpanPick(self, flags)


class NamePick(JsonList):
    """Names picked from a NameRun by flags, scattered in many short runs (NameRun.select): its
    JSON text is cut from the source's text by the same flags (pick_json)."""

    source: TableRun | None = None
    flags: bytes = b""

    def json(self) -> str | None:
        if self.source is None or not self:
            return None
        return pick_json(self.source, self.flags, len(self))


class NameSpanPick(JsonText):
    """A NamePick standing in for its list, in an event only a JSON writer reads."""

    __slots__ = ("source", "flags", "count")

    def __init__(self, source: TableRun, flags: bytes) -> None:
        self.source, self.flags = source, flags
        self.count = flags.count(1)

    def __len__(self) -> int:
        return self.count

    def json(self) -> str | None:
        return pick_json(self.source, self.flags, self.count) if self.count else None

    def select(self, flags: bytes) -> NameSpanPick:
        """The items whose flag is set (one byte per item, 0 or 1), as a pick of the same
        source: each set flag of this pick keeps its place when the new flag is set."""
        np = sys.modules.get("numpy")
        if np is not None:
            where = np.flatnonzero(np.frombuffer(self.flags, dtype=np.uint8))
            out = np.zeros(len(self.flags), dtype=np.uint8)
            out[where[np.frombuffer(flags, dtype=np.bool_)]] = 1
            return NameSpanPick(self.source, out.tobytes())
        picked = bytearray(len(self.flags))
        kept = iter(flags)
        for i, flag in enumerate(self.flags):
            if flag and next(kept):
                picked[i] = 1
        return NameSpanPick(self.source, bytes(picked))

    def items(self) -> list[str]:
        source = self.source
        names = source.items() if isinstance(source, JsonText) else source
        return list(compress(names, self.flags))


def pick_json(source: TableRun, flags: bytes, count: int) -> str | None:
    """The JSON text of the `count` names of `source` whose flag is 1: cut from the source's
    text by NumPy when the engine has loaded it (_pick_text), else the source's text split at
    its commas and the pieces picked by the same flags; None when that cannot be done (a
    comma inside a name, flags other than 0 and 1)."""
    text = source.json()
    if text is None or count != flags.count(1) or not count:
        return None
    np = sys.modules.get("numpy")
    if np is not None and len(source) >= MIN_VECTOR and source.table is not None:
        return _pick_text(np, text, source.table.widths(np, source.segments), flags)
    pieces = text[1:-1].split(",")
    if len(pieces) != len(source):  # a comma inside a name
        return None
    return "[" + ",".join(compress(pieces, flags)) + "]"


MIN_RUN_LENGTH = 16  # items per run, on average, below which a run of a table is not worth it
MAX_SEGMENTS = 8  # runs a selection is kept as, even when its text could be cut by NumPy
# Names in a pick's source from which its text is cut by NumPy (when the engine has loaded it).
MIN_VECTOR = 256


def _pick_text(np: Any, text: str, widths: Any, flags: bytes) -> str:
    """The JSON text of the names flagged in `text` (a list's JSON text, names only), cut in
    a few vector passes: after the "[", each name's text and the comma (or the closing
    bracket) after it is `widths` long; the flagged pieces are kept, in order, and the last
    piece's comma becomes the bracket."""
    body = np.frombuffer(text.encode("ascii"), dtype=np.uint8)[1:]
    keep = np.frombuffer(flags, dtype=np.bool_)
    if isinstance(widths, int):
        picked = body.reshape(-1, widths)[keep]
    else:
        picked = body[np.repeat(keep, widths)]
    return "[" + picked.tobytes()[:-1].decode("ascii") + "]"


def run_count(flags: bytes) -> int:
    """How many runs the set bytes of `flags` form (counted in C: each run but a leading one
    starts after a zero byte)."""
    return flags.count(b"\x00\x01") + (flags[:1] == b"\x01")


def few_runs(flags: bytes, size: int) -> bool:
    """Whether the set bytes of `flags` form at most one run per MIN_RUN_LENGTH of `size` items."""
    return run_count(flags) * MIN_RUN_LENGTH <= size


_TABLES: list[NameTable] = []  # the few most recently used, newest last
_KEEP = 4


def latest_table() -> NameTable | None:
    """The table used most recently (the current snapshot's list, during a run)."""
    return _TABLES[-1] if _TABLES else None


def table_for(key: Any, names: Any) -> NameTable:
    """The table of the node list identified by `key` (an object that is replaced whenever the
    list's names or order change, e.g. the snapshot's name->position index); `names()` gives
    the names when the table must be made."""
    for i, table in enumerate(_TABLES):
        if table.key is key:
            if i != len(_TABLES) - 1:
                _TABLES.append(_TABLES.pop(i))
            return table
    table = NameTable(key, names())
    _TABLES.append(table)
    del _TABLES[:-_KEEP]
    return table
