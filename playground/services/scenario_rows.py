"""A scenario's object rows written in bulk: an accepted upload's, each serialised to JSON once
(`stored_objects`, `insert_stored`); a fork's, copied by the database (`copy_objects`).

Why: storing a 5,000-node x 150,000-pod upload copied every decoded document into fresh dicts
(`manifests.split_loaded`, 9 million values walked in Python) and then had the JSON field
serialise each copy again, with the garbage collector running over the whole upload meanwhile:
~9 s of the worker's ~19 s check. Here each object of the loader's documents (which the loader
never changes) is handed to the C JSON encoder directly, with the collector paused, and the text
goes into the row as it is (`insert_rows(..., ready=...)`).

The text stored is the one the old path stored (`json.dumps` of `storable_copy`), which this
module guarantees by sending to that path every object where the direct encoding could differ:
- an upload that may hold YAML anchors or aliases (its values may then outnumber its bytes: the
  whole upload takes `split_loaded`, whose value budget bounds them);
- an object with a value JSON has no form for (a date, which the copy writes as `isoformat()`;
  NaN, infinities, bytes, which the copy refuses with its own message) or a key that is not a
  string, a number, a boolean or null (a date);
- an object whose text has a key "true", "false" or "null": a boolean or null key is written so by
  the encoder but as "True", "False", "None" by the copy (a string key so named costs only the
  slower path).
A number key (`1:`) is written as the copy writes it (`str(1)`); a mapping with both `1` and
`"1"` keys (YAML allows it) keeps both pairs in the text, which every reader decodes to the
copy's one pair.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from django.db import connection

from playground.infra.bulk_insert import insert_rows
from playground.manifests import identity, loaded_objects, split_loaded, storable_copy
from playground.models import Scenario, ScenarioObject
from scheduler_core.util.collector import collector_paused

# An anchor (&name) or alias (*name) begins a node: at the start of the text, after whitespace,
# a flow indicator or a JSON-like key's colon. A & or * so placed in a quoted or plain scalar
# counts too: a false alarm only takes the exact path.
_BEFORE_NODE = frozenset(" \t\r\n[]{},:")
_CONSTANT_KEYS = ('"true": ', '"false": ', '"null": ')


class StoredObject(NamedTuple):
    """One row's values: the object's identity and its manifest as the JSON column's text."""

    kind: str
    namespace: str
    name: str
    manifest_json: str


class _NotPlain(Exception):
    """A value the direct encoding leaves to the exact path."""


def _refuse(value: Any) -> Any:
    raise _NotPlain


_encode = json.JSONEncoder(allow_nan=False, default=_refuse).encode
_encode_copy = json.JSONEncoder().encode  # what the JSON field's `json.dumps(value)` writes


def stored_objects(documents: Iterable[Any], text: str) -> list[StoredObject]:
    """The rows of the objects of `documents`, the loader's decoding of `text`, in order.
    Raises `ManifestError` as `split_loaded` does (an object the database cannot hold)."""
    with collector_paused():  # millions of live values: each full collection would walk them all
        if _may_hold_aliases(text):
            return [_row(manifest, _encode_copy(manifest)) for manifest in split_loaded(documents)]
        return list(_direct(documents))


def _may_hold_aliases(text: str) -> bool:
    """Whether `text` may hold an anchor or an alias. Each & and * is found by `str.find` (a
    regular expression over a 70 MB upload costs over a second; most hold neither mark)."""
    for mark in "&*":
        at = text.find(mark)
        while at >= 0:
            if at == 0 or text[at - 1] in _BEFORE_NODE:
                return True
            at = text.find(mark, at + 1)
    return False


def _direct(documents: Iterable[Any]) -> Iterator[StoredObject]:
    for manifest in loaded_objects(documents):
        try:
            encoded = _encode(manifest)
        except (_NotPlain, ValueError, TypeError):
            encoded = None
        if encoded is None or any(key in encoded for key in _CONSTANT_KEYS):
            manifest = storable_copy(manifest)
            encoded = _encode_copy(manifest)
        yield _row(manifest, encoded)


def _row(manifest: dict[str, Any], encoded: str) -> StoredObject:
    return StoredObject(*identity(manifest), encoded)


def insert_stored(scenario: Scenario, objects: Iterable[StoredObject], *, first_order: int = 0) -> int:
    """Store `objects` as new rows of `scenario`, in order; returns how many."""
    return insert_rows(
        ScenarioObject, ("scenario", "kind", "namespace", "name", "order", "manifest"),
        ((scenario.pk, *row[:3], first_order + index, row.manifest_json) for index, row in enumerate(objects)),
        ready=("manifest",),
    )


def copy_objects(source: Scenario, target: Scenario) -> int:
    """Copy every object row of `source` into `target` (which has none), in document order,
    numbered from 0 as `insert_stored` numbers them; returns how many. The database copies each
    row's stored JSON: nothing is decoded or written again (a fork of a 5,000 x 150,000 scenario
    decoded ~670 MB of manifests in the web request, then serialised them again)."""
    meta = ScenarioObject._meta
    quote = connection.ops.quote_name
    table = quote(meta.db_table)
    column = {name: quote(meta.get_field(name).column) for name in ("scenario", "kind", "namespace", "name",
                                                                    "order", "manifest")}
    key = quote(meta.pk.column)
    rank = f"ROW_NUMBER() OVER (ORDER BY {column['order']}, {key}) - 1"
    sql = (f"INSERT INTO {table} ({', '.join(column.values())}) "
           f"SELECT {int(target.pk)}, {column['kind']}, {column['namespace']}, {column['name']}, {rank}, "
           f"{column['manifest']} FROM {table} WHERE {column['scenario']} = %s "
           f"ORDER BY {column['order']}, {key}")  # rows made in document order, as an insert makes them
    with connection.cursor() as cursor:
        cursor.execute(sql, [source.pk])
        return cursor.rowcount
