"""`playground.infra.bulk_insert.insert_rows` stores exactly what the ORM stores: the same column values,
read back raw, for JSON, binary, date and plain fields."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from playground.infra.bulk_insert import insert_rows
from playground.models import PreparedStart, Run, RunEvent, Scenario

pytestmark = pytest.mark.django_db

EVENT = {"seq": 1, "type": "pod_added", "time": 0.5, "pod": "default/é-1", "labels": {"a": "1"}, "none": None,
         "list": [1, 2.25, True, "x"]}


def _raw(model: Any, pk: int, columns: list[str]) -> tuple[Any, ...]:
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(quote(c) for c in columns)} FROM {quote(model._meta.db_table)} "
                       f"WHERE id = %s", [pk])
        row = cursor.fetchone()
    return tuple(bytes(v) if isinstance(v, memoryview) else v for v in row)


def test_rows_are_stored_as_the_orm_stores_them() -> None:
    run = Run.objects.create(scenario_name="s", scenario_yaml="")
    by_orm = RunEvent.objects.create(run=run, seq=1, step=0, type="pod_added", data=EVENT)
    assert insert_rows(RunEvent, ("run", "seq", "step", "type", "data"), [(run.pk, 2, 0, "pod_added", EVENT)]) == 1
    ours = RunEvent.objects.get(run=run, seq=2)
    columns = ["step", "type", "data"]
    assert _raw(RunEvent, ours.pk, columns) == _raw(RunEvent, by_orm.pk, columns)
    assert ours.data == EVENT

    when = timezone.now()
    first, second = Scenario.objects.create(name="a"), Scenario.objects.create(name="b")
    values = {"key": "k", "content_key": "c", "checkpoint": b"\x00\xffblob", "events": [EVENT],
              "frame": {"view": {"pods": []}}, "fields": {"head_step": 0}, "created_at": when}
    orm = PreparedStart.objects.create(scenario=first, **values)
    PreparedStart.objects.filter(pk=orm.pk).update(created_at=when)  # auto_now set its own
    insert_rows(PreparedStart, ("scenario", *values), [(second.pk, *values.values())])
    mine = PreparedStart.objects.get(scenario=second)
    columns = ["key", "content_key", "checkpoint", "events", "frame", "fields", "created_at"]
    assert _raw(PreparedStart, mine.pk, columns) == _raw(PreparedStart, orm.pk, columns)
    assert bytes(mine.checkpoint) == values["checkpoint"] and mine.created_at == when


def test_no_rows_write_nothing() -> None:
    assert insert_rows(RunEvent, ("run", "seq", "step", "type", "data"), []) == 0
    assert not RunEvent.objects.exists()
