"""Node-name lists that are slices of one list, with their JSON text already made.

A recorded cycle over N nodes names every one of them (the evaluated ones in walk order, the
rest in list order): both are runs of the snapshot's node list, which stays the same from cycle
to cycle until a node comes or goes. `NameTable` holds that list's names and their JSON text
once; `NameRun` is an ordinary list of names (readers see nothing else) that also knows which
runs of the table it is, so the trace writer copies its JSON text instead of encoding N names
again (events_jsonl.EventLineEncoder).
"""

from __future__ import annotations

import json
from typing import Any


class NameTable:
    """The names of one node list and the JSON text of `", "`-joined names, with where each
    name starts and ends in it."""

    __slots__ = ("key", "names", "text", "starts", "ends")

    def __init__(self, key: Any, names: list[str]) -> None:
        self.key = key  # the object this table was made for (kept alive: its id is never reused)
        self.names = names
        encoded = [json.dumps(name) for name in names]
        self.text = ", ".join(encoded)
        self.starts: list[int] = []
        self.ends: list[int] = []
        pos = 0
        for piece in encoded:
            self.starts.append(pos)
            pos += len(piece)
            self.ends.append(pos)
            pos += 2

    def run(self, segments: list[tuple[int, int]]) -> NameRun:
        """The names of table[a:b] for each (a, b), concatenated."""
        segments = [(a, b) for a, b in segments if b > a]
        out = NameRun()
        for a, b in segments:
            out.extend(self.names[a:b])
        out.table, out.segments = self, segments
        return out


class NameRun(list):
    """A list of names made of runs of a NameTable; `json()` is json.dumps of the list."""

    table: NameTable | None = None
    segments: list[tuple[int, int]] = []

    def json(self) -> str | None:
        """The list's JSON text from the table, or None when the list no longer matches it."""
        table = self.table
        if table is None or len(self) != sum(b - a for a, b in self.segments):
            return None
        text = table.text
        return "[" + ", ".join(text[table.starts[a]:table.ends[b - 1]] for a, b in self.segments) + "]"


_TABLES: list[NameTable] = []  # the few most recently used, newest last
_KEEP = 4


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
