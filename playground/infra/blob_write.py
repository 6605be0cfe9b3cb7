"""A row's big binary value written into it a piece at a time, never bound whole.

For the checkpoints a worker stores (115-230 MB at 5,000 nodes x 150,000 pods). Bound to an
INSERT, SQLite copies the value (a statement keeps its own copy of a parameter), then builds
the row's whole record in memory from it before writing the record's pages: a 115 MB checkpoint
made the storing process ~230 MB bigger than the checkpoint itself, on top of the engine it was
taken from (issue 42: the worker's peak). On SQLite the row is inserted with a zero-filled
value of the right length instead (`zeroblob(n)`, which SQLite does not build in memory when
it is the last column of the record, as the big columns are: migration 0011), and the bytes
are written into it through SQLite's incremental blob I/O, a chunk at a time, from a memoryview
of the caller's bytes (no copy). Other databases get the plain statement. `insert_with_blob`
makes a row so (with `ignore_conflicts`, a row that would break a unique constraint is not
made, and no error is raised, as `bulk_create(..., ignore_conflicts=True)` does: the blob is then
not written at all); `update_with_blob` sets some fields of an existing row and its value so
(SQLite rewrites that row's record once, with the zeros left unbuilt).

The row and its value are one transaction (the caller's, or one of its own): a reader never
sees the zeros. Every other value is prepared by its field, as `bulk_insert` prepares it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import connection, models, transaction
from django.db.models.constants import OnConflict

from playground.infra.bulk_insert import prepare_rows

CHUNK = 4 * 2**20  # bytes written per call: a bounded piece of the page cache's work at a time


def insert_with_blob(model: type[models.Model], names: Sequence[str], row: Sequence[Any], blob_name: str,
                     data: bytes, *, ignore_conflicts: bool = False) -> bool:
    """Insert one row of `model`: the values `row` of the fields `names` (as `bulk_insert`
    reads them) and `data` as its binary field `blob_name`, which must be the table's last
    column for SQLite to leave the zeros unbuilt (they would only cost memory, not change
    what is stored). `ignore_conflicts`: a row a unique constraint refuses (a checkpoint of
    that run and step stored already) is left as it is, the one there kept, as the ORM's
    `bulk_create(..., ignore_conflicts=True)` does (the same clause: `OR IGNORE` on SQLite,
    `ON CONFLICT DO NOTHING` on PostgreSQL). True when the row was inserted."""
    meta = model._meta
    ops = connection.ops
    quote = ops.quote_name
    fields = [meta.get_field(name) for name in names]
    blob = meta.get_field(blob_name)
    pieces = connection.vendor == "sqlite" and len(data) > 0
    on_conflict = OnConflict.IGNORE if ignore_conflicts else None
    columns = ", ".join(quote(field.column) for field in (*fields, blob))
    marks = ", ".join(["%s"] * len(names) + ["zeroblob(%s)" if pieces else "%s"])
    suffix = ops.on_conflict_suffix_sql([*fields, blob], on_conflict, [], [])
    sql = f"{ops.insert_statement(on_conflict=on_conflict)} {quote(meta.db_table)} ({columns}) VALUES ({marks})"
    if suffix:
        sql = f"{sql} {suffix}"
    params = [*prepare_rows(model, names, [row]).params[0],
              len(data) if pieces else blob.get_db_prep_save(data, connection)]
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)
        if cursor.rowcount != 1:  # refused by a unique constraint (only with ignore_conflicts)
            return False
        if pieces:
            _write_into(meta.db_table, blob.column, cursor.lastrowid, data)
    return True


def update_with_blob(model: type[models.Model], pk: int, names: Sequence[str], row: Sequence[Any], blob_name: str,
                     data: bytes) -> bool:
    """Set the fields `names` of `model`'s row `pk` (its integer primary key: SQLite's rowid)
    to the values `row`, and its binary field `blob_name` to `data`, in one statement; False
    (nothing written) when there is no such row."""
    meta = model._meta
    fields = [meta.get_field(name) for name in (*names, blob_name)]
    quote = connection.ops.quote_name
    sqlite = connection.vendor == "sqlite" and len(data) > 0
    params = [field.get_db_prep_save(value, connection) for field, value in zip(fields, [*row, data], strict=True)]
    if sqlite:
        params[-1] = len(data)
    sets = [f"{quote(field.column)} = %s" for field in fields]
    if sqlite:
        sets[-1] = f"{quote(fields[-1].column)} = zeroblob(%s)"
    sql = f"UPDATE {quote(meta.db_table)} SET {', '.join(sets)} WHERE {quote(meta.pk.column)} = %s"
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, [*params, pk])
        if cursor.rowcount != 1:
            return False
        if sqlite:
            _write_into(meta.db_table, fields[-1].column, pk, data)
    return True


def _write_into(table: str, column: str, rowid: int, data: bytes) -> None:
    """`data` into the zero-filled value of its length at (`table`, `column`, `rowid`)."""
    view = memoryview(data)
    with connection.connection.blobopen(table, column, rowid) as blob:
        for start in range(0, len(view), CHUNK):
            blob.write(view[start:start + CHUNK])
