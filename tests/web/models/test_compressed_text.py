"""A run's big scenario snapshot is stored compressed and read back as the same text
(playground/models/compressed_text.py): a Step's commit updates the run's row, which SQLite
rewrites whole, so the row must not hold 74 MB of YAML. The database's answers about the
snapshot that callers rely on without reading it stay the same."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from playground.models import Run
from playground.models.compressed_text import COMPRESS_AT, compress, decompress
from playground.models.runs import SNAPSHOT_WORDS
from playground.services.extender_access import EXTENDER_MARK
from playground.services.runs import actions as svc
from tests.web.services.runs.test_runs_services import OWNER, act, gallery_scenario, inline_worker  # noqa: F401

pytestmark = [pytest.mark.django_db]


def _stored_length(run: Run) -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT length(scenario_yaml) FROM {Run._meta.db_table} WHERE id = %s", [run.pk])
        return int(cursor.fetchone()[0])


def _big_yaml(extra: str = "") -> str:
    nodes = "".join(
        f"---\napiVersion: v1\nkind: Node\nmetadata:\n  name: node-{i:06d}\n  labels: {{zone: zone-{i % 3}}}\n"
        f"status:\n  capacity: {{cpu: '8', memory: 32Gi, pods: '110'}}\n" for i in range(COMPRESS_AT // 120 + 10))
    return nodes + extra


def test_a_big_snapshot_is_stored_compressed_and_reads_back_the_same() -> None:
    text = _big_yaml("---\n# kind: Lesson is mentioned here\n")
    run = Run.objects.create(scenario_name="big", scenario_yaml=text, owner_token=OWNER.session_token)
    assert len(text) >= COMPRESS_AT
    assert _stored_length(run) < len(text) // 20
    assert Run.objects.get(pk=run.pk).scenario_yaml == text
    assert Run.objects.filter(pk=run.pk).values_list("scenario_yaml", flat=True).get() == text
    # What callers ask without reading it: the words the field flags, as for a plain text.
    assert Run.objects.filter(pk=run.pk, scenario_yaml__contains="Lesson").exists()
    assert not Run.objects.filter(pk=run.pk, scenario_yaml__contains="Challenge").exists()
    assert not Run.objects.filter(pk=run.pk, scenario_yaml__contains=EXTENDER_MARK).exists()


def test_a_small_snapshot_is_stored_as_it_is() -> None:
    text = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
    run = Run.objects.create(scenario_name="small", scenario_yaml=text, owner_token=OWNER.session_token)
    assert _stored_length(run) == len(text)
    assert decompress(text) == text


def test_the_flagged_words_are_the_ones_callers_look_up() -> None:
    assert EXTENDER_MARK in SNAPSHOT_WORDS
    assert {"Lesson", "Challenge"} <= set(SNAPSHOT_WORDS)
    stored = compress("x" * 10 + " urlPrefix: http://e", SNAPSHOT_WORDS)
    assert stored.splitlines()[0].endswith("words=urlPrefix")


def test_a_step_of_a_run_with_a_big_snapshot_keeps_its_row_small(inline_worker: Any) -> None:  # noqa: F811
    """The worker's commit updates the run's row on every Step: the snapshot there stays
    compressed, and the run replays from it as from the text."""
    scenario = gallery_scenario("percentage-of-nodes-to-score")
    run = svc.run_start(scenario=scenario, actor=OWNER)
    padding = "\n" + "#" * 80
    big = run.scenario_yaml + padding * (COMPRESS_AT // len(padding) + 1)  # comments: the same scenario
    Run.objects.filter(pk=run.pk).update(scenario_yaml=big)
    act(run, "step")
    act(run, "step")
    run.refresh_from_db()
    assert run.head_step == 2 and run.scenario_yaml == big
    assert _stored_length(run) < len(big) // 20
