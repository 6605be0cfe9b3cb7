"""Rows written by one parameterised INSERT (or UPDATE) run for each row's values (`executemany`).

What `Model.objects.bulk_create` and `.create` do, for the big writes of an upload and of a run
start (145,434 manifests, 150,001 start events, frame 0's 37 MB view and a checkpoint of hundreds
of MB at 5,000 nodes x 150,000 pods): the ORM builds a model instance per row and compiles every
field of every row into SQL (seconds for 150,000 rows), and with DEBUG on its query log has
SQLite quote every parameter of every statement (a 231 MB checkpoint became a 462 MB hex string
to log). Each value that is not stored as it is (JSON, binary, a date) goes through its field's
own `get_db_prep_save`, so it is stored exactly as the ORM stores it, on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection, models

from scheduler_core.util.collector import collector_paused

# Fields whose database value is the Python one on both databases; every other field's value
# (JSON, binary, dates) goes through the field's `get_db_prep_save`.
AS_IS = frozenset({"CharField", "TextField", "SlugField", "IntegerField", "PositiveIntegerField",
                   "PositiveSmallIntegerField", "SmallIntegerField", "BigIntegerField", "FloatField", "BooleanField",
                   "ForeignKey", "OneToOneField"})


@dataclass
class PreparedRows:
    """An INSERT and its rows' values, prepared for the database (see `prepare_rows`)."""

    sql: str
    params: list[list[Any]]


def prepare_rows(
    model: type[models.Model], names: Sequence[str], rows: Iterable[Sequence[Any]], *, ready: Collection[str] = ()
) -> PreparedRows:
    """The INSERT of `rows` (values in the order of the field `names`; a foreign key's value is
    the related row's primary key) into `model`'s table, each value prepared by its field but
    those of the fields named in `ready`, given as the database stores them (a JSON field's
    text, serialised by the caller exactly as the field would: `json.dumps(value)`). Done
    apart from `insert_prepared` so that a caller can prepare before its transaction begins (on
    SQLite a writing transaction holds the whole file). Every column without a database default
    must be named."""
    meta = model._meta
    fields = [meta.get_field(name) for name in names]
    quote = connection.ops.quote_name
    columns = ", ".join(quote(field.column) for field in fields)
    sql = f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ({', '.join(['%s'] * len(fields))})"
    with collector_paused():  # every row's values are kept until the statement runs
        params = _prepared_values(fields, rows, ready)
    return PreparedRows(sql, params)


def _prepared_values(
    fields: Sequence[models.Field], rows: Iterable[Sequence[Any]], ready: Collection[str] = ()
) -> list[list[Any]]:
    """Each row's values, those of a field not stored as they are (nor `ready`) prepared by the field."""
    prepare = [(i, field.get_db_prep_save) for i, field in enumerate(fields)
               if field.get_internal_type() not in AS_IS and field.name not in ready]
    params = []
    for row in rows:
        values = list(row)
        for i, prep in prepare:
            values[i] = prep(values[i], connection)
        params.append(values)
    return params


def insert_prepared(prepared: PreparedRows) -> int:
    """Run a prepared INSERT; returns how many rows it wrote."""
    if prepared.params:
        with connection.cursor() as cursor:
            cursor.executemany(prepared.sql, prepared.params)
    return len(prepared.params)


def insert_rows(
    model: type[models.Model], names: Sequence[str], rows: Iterable[Sequence[Any]], *, ready: Collection[str] = ()
) -> int:
    """Insert `rows` (as `prepare_rows` reads them) into `model`'s table; returns how many."""
    return insert_prepared(prepare_rows(model, names, rows, ready=ready))


def update_rows(model: type[models.Model], names: Sequence[str], rows: Iterable[Sequence[Any]]) -> int:
    """Set the fields `names` of existing rows: each row is its values in that order, then its
    primary key. One UPDATE run for every row (`bulk_update` compiles a CASE per field over all
    rows instead: ~45 ms for 24 rows of five fields). Returns how many rows were given."""
    meta = model._meta
    fields = [meta.get_field(name) for name in names]
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    sql = f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {quote(meta.pk.column)} = %s"
    params = _prepared_values(fields, rows)  # the key is past the fields: kept as it is
    if params:
        with connection.cursor() as cursor:
            cursor.executemany(sql, params)
    return len(params)
