"""Migration 0011: the big columns are the last of their rows on SQLite, so reading a run's
status (or any other small column) never walks the pages of its scenario's YAML; the values
move with them. A real database file, migrated by `manage.py migrate` in a subprocess."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
BIG = {
    "playground_run": ["scenario_yaml"],
    "playground_scenario": ["yaml_cache"],
    "playground_runcheckpoint": ["blob"],
    "playground_preparedstart": ["events", "frame", "checkpoint"],
}


def _migrate(database: Path, *target: str) -> None:
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{database}", "DJANGO_SETTINGS_MODULE": "config.settings"}
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0", *target], cwd=ROOT, env=env, check=True, timeout=300)


def test_big_columns_move_last_with_their_values(tmp_path: Path) -> None:
    database = tmp_path / "db.sqlite3"
    _migrate(database, "playground", "0010")
    yaml = "kind: Node\n" * 20_000  # over 200 KB: the value continues on overflow pages
    with sqlite3.connect(database) as db:
        db.execute(
            "INSERT INTO playground_scenario (name, description, seed, owner_token, share_token, is_gallery,"
            " gallery_order, gallery_hash, explanation, created_at, updated_at, feature_gates, yaml_cache,"
            " yaml_cache_version, workload_pods_version)"
            " VALUES ('s', '', 0, '', 'tok-s', 0, 0, '', '', '2026-01-01', '2026-01-01', '', ?, 'v3', 0)",
            [yaml],
        )
        db.execute(
            "INSERT INTO playground_run (scenario_name, scenario_yaml, seed, max_time, owner_token, share_token,"
            " created_at, head_step, last_seq, clock, cycle, status, pause_requested, speed, kubernetes_version,"
            " feature_gates, scenario_id)"
            " VALUES ('s', ?, 7, 3600, '', 'tok-r', '2026-01-01', 4, 9, 1.5, 2, 'settled', 0, 1, 'v1.35', '', 1)",
            [yaml],
        )
        db.execute("INSERT INTO playground_runcheckpoint (step, blob, run_id) VALUES (4, ?, 1)", [b"\x00\x01" * 1000])
    _migrate(database)
    with sqlite3.connect(database) as db:
        for table, big in BIG.items():
            columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
            assert columns[-len(big):] == big, (table, columns)
        assert db.execute("SELECT scenario_yaml, head_step, status, seed FROM playground_run").fetchone() == (
            yaml, 4, "settled", 7,
        )
        assert db.execute("SELECT yaml_cache, yaml_cache_version FROM playground_scenario").fetchone() == (yaml, "v3")
        assert db.execute("SELECT blob, step FROM playground_runcheckpoint").fetchone() == (b"\x00\x01" * 1000, 4)
