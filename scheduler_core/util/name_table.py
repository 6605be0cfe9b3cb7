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
from typing import Any


class NameTable:
    """The names of one node list and the JSON text of `","`-joined names, with where each
    name starts and ends in it."""

    __slots__ = ("key", "names", "text", "starts", "ends", "position")

    def __init__(self, key: Any, names: list[str]) -> None:
        self.key = key  # the object this table was made for (kept alive: its id is never reused)
        self.names = names
        encoded = [json.dumps(name) for name in names]
        self.text = ",".join(encoded)
        self.position = {name: i for i, name in enumerate(names)}
        self.starts: list[int] = []
        self.ends: list[int] = []
        pos = 0
        for piece in encoded:
            self.starts.append(pos)
            pos += len(piece)
            self.ends.append(pos)
            pos += 1

    def run(self, segments: list[tuple[int, int]]) -> NameRun:
        """The names of table[a:b] for each (a, b), concatenated."""
        segments = [(a, b) for a, b in segments if b > a]
        out = NameRun()
        for a, b in segments:
            out.extend(self.names[a:b])
        out.table, out.segments = self, segments
        return out


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
        return "[" + ",".join(text[table.starts[a]:table.ends[b - 1]] for a, b in self.segments) + "]"


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
