"""Field values adapted for the database before the INSERT's transaction begins.

Django turns a JSONField's value into JSON text as it builds the INSERT, inside the caller's
transaction. On SQLite a writing transaction holds the whole file: a play's batch of frames
and events (tens of KB of JSON at 500 nodes) spent most of its ~60 ms turn encoding, while
every Step post of the class waited for the file. `prepare` does that work first, with the
field's own adaptation (the stored text is the same); the INSERT then only carries it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import models
from django.db.models.expressions import Expression


class PreparedValue(Expression):
    """A value its field has already adapted (`get_db_prep_save`): the INSERT binds it as is."""

    def __init__(self, field: models.Field, param: Any) -> None:
        super().__init__(output_field=field)
        self.param = param

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list[Any]]:
        return "%s", [self.param]


def prepare(objects: Iterable[models.Model], field_names: Iterable[str], using: str = "default") -> None:
    """Replace each object's `field_names` values by their adapted form (once: a prepared value
    is left alone, so a batch whose transaction is retried is not prepared twice)."""
    from django.db import connections

    connection = connections[using]
    names = tuple(field_names)
    for obj in objects:
        for name in names:
            value = getattr(obj, name)
            if isinstance(value, PreparedValue):
                continue
            field = obj._meta.get_field(name)
            setattr(obj, name, PreparedValue(field, field.get_db_prep_save(value, connection=connection)))
