"""`trace`'s output format: each event as one JSON line (sorted keys), written the moment the
engine emits it, so a trace of any length never sits in memory.

Most of a large cluster's trace is node names: a cycle's filter_verdicts lists the evaluated
nodes, its scores and ties the feasible ones (the whole node list is a `node_list` event, written
when it changes). At 65,000 nodes that is ~3,300 names three times a cycle. The engine hands
most of them over as runs of the node list whose JSON text is already made (util.name_table:
the walk, the scored nodes, ties in long runs; ties scattered in short runs are that text split
and picked), and the walk's row indexes as digits made in C (util.small_ints): lists that give
their own text (util.json_list.JsonList) are copied, not encoded. Other long name lists are
joined from cached JSON forms of the names. The text is exactly what json.dumps(event,
sort_keys=True, separators=SEPARATORS) gives: compact, as JSON Lines usually are (a space after
every comma was an eighth of the bytes).
"""

from __future__ import annotations

import json
import json.encoder
import secrets
from collections.abc import Callable
from typing import Any, TextIO

from scheduler_core.util.json_list import JsonList, JsonText
from scheduler_core.util.name_table import latest_table
from scheduler_core.util.small_ints import int_list_json

NAME_LIST_FIELDS = ("nodes", "ties")
# Long lists encoded apart from the rest of the event: names joined from cached text, and any
# list that gives its own JSON text (util.json_list.JsonList).
JOINED_FIELDS = (*NAME_LIST_FIELDS, "outcome")
# A scores event's {plugin: column}: long columns of ints in 0..255 written by
# util.small_ints.int_list_json.
COLUMN_FIELDS = ("raw", "normalized", "weighted")
_LONG_FIELDS = frozenset((*JOINED_FIELDS, *COLUMN_FIELDS))
SEPARATORS = (",", ":")
MIN_JOINED = 32  # shorter lists gain nothing from the detour


class EventLineEncoder:
    """Encodes events as JSON text identical to json.dumps(event, sort_keys=True, default=str,
    separators=SEPARATORS)."""

    def __init__(self) -> None:
        self._encode = _fast_encoder() or json.JSONEncoder(sort_keys=True, default=str, separators=SEPARATORS).encode
        self._quoted: dict[str, str] = {}
        # Stands in for a long list while the rest of the event is encoded; never in the output.
        self._mark = "\x00" + secrets.token_hex(8) + ":"

    def encode(self, event: dict[str, Any]) -> str:
        parts = self.encode_parts(event)
        return parts[0] if len(parts) == 1 else "".join(parts)

    def encode_parts(self, event: dict[str, Any]) -> list[str]:
        """The event's JSON text in pieces, in order (their concatenation is `encode`): the
        long lists' texts are pieces of their own, so none is copied into a bigger string
        more than once (a search-and-replace in the whole text cost as much as making it)."""
        if _LONG_FIELDS.isdisjoint(event):  # most events: no field that may hold a long list
            return [self._encode(event)]
        lists = {key: v for key in JOINED_FIELDS
                 if isinstance(v := event.get(key), JsonText) or (isinstance(v, list) and len(v) >= MIN_JOINED)}
        columns = {(key, plugin): col for key in COLUMN_FIELDS if isinstance(d := event.get(key), dict)
                   for plugin, col in d.items()
                   if isinstance(col, JsonText) or (isinstance(col, list) and len(col) >= MIN_JOINED)}
        if not lists and not columns:
            return [self._encode(event)]
        shallow = dict(event)
        for key in lists:
            shallow[key] = self._mark + key
        marks: dict[tuple[str, str], str] = {}
        for key, plugin in columns:
            if shallow[key] is event[key]:  # copied once, then its long columns marked
                shallow[key] = dict(event[key])
            marks[(key, plugin)] = mark = self._mark + str(len(marks))
            shallow[key][plugin] = mark
        text = self._encode(shallow)  # short: every long list is a mark in it
        found: list[tuple[int, str, str]] = []  # (where its mark is, the mark's text, the list's text)
        for key, values in lists.items():
            joined = values.json() if isinstance(values, (JsonList, JsonText)) else None
            if joined is None:
                if isinstance(values, JsonText):
                    values = values.items()
                joined = self._join(values) if key in NAME_LIST_FIELDS else self._encode(values)
            mark = self._encode(self._mark + key)
            found.append((text.index(mark), mark, joined))
        for where, col in columns.items():
            joined = col.json() if isinstance(col, (JsonList, JsonText)) else None
            if joined is None and isinstance(col, JsonText):
                col = col.items()
            mark = self._encode(marks[where])
            found.append((text.index(mark), mark, joined or int_list_json(col) or self._encode(col)))
        found.sort()
        parts: list[str] = []
        pos = 0
        for at, mark, joined in found:
            parts.append(text[pos:at])
            parts.append(joined)
            pos = at + len(mark)
        parts.append(text[pos:])
        return parts

    def _join(self, names: list[Any]) -> str:
        table = latest_table()
        text = table.find_run(names) if table is not None else None
        if text is not None:  # e.g. the scored nodes, a run of the snapshot's list
            return text
        quoted = self._quoted
        try:
            return "[" + ",".join(map(quoted.__getitem__, names)) + "]"
        except (KeyError, TypeError):  # a name seen for the first time (or not a name at all)
            return "[" + ",".join([self._quote(name) for name in names]) + "]"

    def _quote(self, name: Any) -> str:
        text = self._quoted.get(name) if type(name) is str else None
        if text is None:
            text = self._encode(name)
            if type(name) is str:
                self._quoted[name] = text
        return text


def _chunk_encoder() -> Callable[[Any, int], Any] | None:
    """CPython's C encoder for json.dumps(obj, sort_keys=True, default=str, separators=SEPARATORS),
    made once, not per call (events are never circular, so no cycle check): called with (obj, 0)
    it gives the text in chunks to join. None where the C encoder is absent."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return None
    return make(None, str, json.encoder.encode_basestring_ascii, None, ":", ",", True, False, True)


def _fast_encoder() -> Callable[[Any], str] | None:
    """json.dumps(obj, sort_keys=True, default=str, separators=SEPARATORS) through _chunk_encoder;
    None where CPython's C encoder is absent."""
    encode = _chunk_encoder()
    if encode is None:
        return None

    def dumps(obj: Any) -> str:
        if isinstance(obj, str):
            return json.encoder.encode_basestring_ascii(obj)
        return "".join(encode(obj, 0))

    return dumps


def event_line_writer(out: TextIO) -> Callable[[dict[str, Any]], None]:
    """A writer for EventSink: each event as one line on `out` as it is emitted. It reads
    nothing but the events' JSON text (`text_only`), so a sink with no other reader lets the
    engine hand it stand-ins for long lists (util.json_list.JsonText)."""
    encode = EventLineEncoder().encode_parts
    chunks = _chunk_encoder()
    write = out.write
    short = _LONG_FIELDS.isdisjoint

    def writer(event: dict[str, Any]) -> None:
        if chunks is not None and short(event):  # ~14 small events a pod: one C call each
            write("".join(chunks(event, 0)) + "\n")
            return
        parts = encode(event)
        parts.append("\n")
        write("".join(parts))

    writer.text_only = True  # type: ignore[attr-defined]  # it reads nothing but the JSON text

    return writer
