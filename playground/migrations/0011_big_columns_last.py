"""The big columns (a run's scenario YAML, a scenario's YAML cache, checkpoints, a prepared
start's checkpoint, events and frame) move to the end of their rows.

SQLite stores a row's columns in order, and a value bigger than a page continues on a chain of
overflow pages: reading any column after it walks that chain. The run's YAML was the third
column, so every read of a run's status or head step (every action, every push, every
worker commit) walked its YAML: ~90 us at 150 KB, ~0.7 ms at 1.5 MB, ~35 ms for the 74 MB of
a 5,000 x 150,000 run (a prepared start's checkpoint, its first column, was 231 MB in front of
its lookup key). With the big columns last, the others are read from the row's first page.
(PostgreSQL keeps big values out of line; there this only rewrites the columns.)

Each column is added anew (ALTER TABLE ADD COLUMN: at the end), filled from the old one, which
is then dropped and its name given to the new one; the new column admits NULL in the database
(the model does not). Columns added by later migrations land after these, and a later change
that rebuilds one of these tables on SQLite reorders its columns: keep big columns last then.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations, models

MOVES: list[tuple[str, str, Any]] = [
    ("run", "scenario_yaml", lambda **kw: models.TextField(**kw)),
    ("scenario", "yaml_cache", lambda **kw: models.TextField(blank=True, editable=False, **kw)),
    ("runcheckpoint", "blob", lambda **kw: models.BinaryField(**kw)),
    ("preparedstart", "events", lambda **kw: models.JSONField(**kw)),
    ("preparedstart", "frame", lambda **kw: models.JSONField(**kw)),
    ("preparedstart", "checkpoint", lambda **kw: models.BinaryField(**kw)),
]
FINAL_DEFAULTS = {"yaml_cache": "", "frame": dict}


def _copier(model_name: str, field: str) -> Any:
    def copy(apps: Any, schema_editor: Any) -> None:
        model = apps.get_model("playground", model_name)
        model.objects.using(schema_editor.connection.alias).update(**{f"{field}_moved": models.F(field)})

    return copy


def _operations() -> list[Any]:
    ops: list[Any] = []
    for model_name, field, make in MOVES:
        moved = f"{field}_moved"
        ops += [
            migrations.AddField(model_name, moved, make(null=True)),
            migrations.RunPython(_copier(model_name, field), migrations.RunPython.noop),
            migrations.RemoveField(model_name, field),
            migrations.RenameField(model_name, moved, field),
        ]
        final = make(default=FINAL_DEFAULTS[field]) if field in FINAL_DEFAULTS else make()
        # The model's NOT NULL in the state only: on SQLite altering the column rebuilds the
        # table, in the order of its fields' creation (a self-referencing key, cloned, would go
        # last again). The application writes every row's value; the column admits NULL.
        ops.append(migrations.SeparateDatabaseAndState(state_operations=[migrations.AlterField(model_name, field, final)]))
    return ops


class Migration(migrations.Migration):
    dependencies = [("playground", "0010_scenario_workload_pods_cache")]

    operations = _operations()
