"""Lists that may know their own JSON text, for `trace`'s writer (events.jsonl).

An event is a plain dict of plain values, read in the process (the web's stores, tests) and
written as a JSON line by `trace`. A few of its lists are long and made by code that knows
more about them than json's encoder can see: a run of the node list whose JSON text already
exists (util.name_table), row indexes that are all single digits (util.small_ints). Such a
list is a JsonList: an ordinary list to every reader, whose `json()` gives the same text as
json.dumps(list, separators=(",", ":")) with less work, or None when it cannot (then the
writer encodes it as usual).

A run whose events only `trace`'s writer reads (events.recorder.EventSink.text_only) needs not
even the list: a JsonText stands in for it, giving the text and, only when asked, the items.
"""

from __future__ import annotations

from typing import Any


class JsonList(list):
    """A list that may give its own compact JSON text; pickled as the plain list it is (the
    knowledge behind `json()` belongs to this process, e.g. a name table)."""

    def json(self) -> str | None:
        """json.dumps(list(self), separators=(",", ":")), or None: encode the list as usual."""
        return None

    def __reduce__(self) -> tuple[type, tuple[list[Any]]]:
        return list, (list(self),)


class JsonText:
    """Stands in for a long list of an event that only a JSON writer reads (no reader of
    events ever sees one): `json()` is the list's compact JSON text, or None to encode
    `items()` as usual; `items()` makes the list. Pickled as that list."""

    __slots__ = ()

    def __len__(self) -> int:
        raise NotImplementedError

    def json(self) -> str | None:
        return None

    def items(self) -> list[Any]:
        raise NotImplementedError

    def __reduce__(self) -> tuple[type, tuple[list[Any]]]:
        return list, (self.items(),)
