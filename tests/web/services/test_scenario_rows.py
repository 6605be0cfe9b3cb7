"""An upload's rows serialised once from the loader's documents (services.scenario_rows): the same
rows, byte for byte, as the copy-then-serialise path stored, on every input the project ships and
on the YAML forms where the two encodings could part; and a create that never copies."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.db import connection
from django.test import Client

from bench.generate_envelope import render
from playground import manifests
from playground.manifests import ManifestError, identity, split_loaded
from playground.models import Scenario, ScenarioObject
from playground.ownership import SESSION_KEY, Actor
from playground.selectors.scenarios import scenario_yaml
from playground.services import scenarios as svc
from playground.services.scenario_objects import insert_manifests
from playground.services.scenario_rows import insert_stored, stored_objects
from playground.services.scenario_validation import read_yaml_import, read_yaml_rows
from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader.yaml_input import decode_yaml

ROOT = Path(__file__).resolve().parents[3]
OWNER = Actor(session_token="rows-owner")
CORPUS = sorted([*(ROOT / "playground" / "gallery").glob("*.yaml"), *(ROOT / "tests" / "fixtures").glob("*.yaml")])


def copied(documents: list[Any]) -> list[tuple[str, str, str, str]]:
    """What the rows held before: each object copied (`split_loaded`), then `json.dumps` of the copy."""
    return [(*identity(m), json.dumps(m)) for m in split_loaded(documents)]


def direct(documents: list[Any], text: str) -> list[tuple[str, str, str, str]]:
    return [tuple(row) for row in stored_objects(documents, text)]


def safe_documents(text: str) -> list[Any]:
    return list(yaml.load_all(text, Loader=yaml.SafeLoader))


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_every_shipped_scenario_is_stored_as_before(path: Path) -> None:
    text = path.read_text()
    try:
        documents, _ = decode_yaml(text, path.name)
    except ScenarioError:
        pytest.skip("not YAML the loader decodes")
    assert direct(documents, text) == copied(documents)


# Each holds a form where the C encoder and the copy could write different text.
EDGES = {
    "boolean and null keys": "kind: Pod\nmetadata: {name: a}\nx: {true: 1, false: 2, null: 3, ~: 4, yes: 5}\n",
    "a string key named true": 'kind: Pod\nmetadata: {name: a}\nx: {"true": 1, "null": 2}\n',
    "number keys": "kind: Pod\nmetadata: {name: a}\nx: {1: a, 2.5: b, -3: c, 0x10: d}\n",
    "an infinity key": "kind: Pod\nmetadata: {name: a}\nx: {.inf: 1, -.inf: 2}\n",
    "number and string key alike": 'kind: Pod\nmetadata: {name: a}\nx: {1: a, "2": b}\n',
    "dates": "kind: Pod\nmetadata: {name: a, d: 2001-12-14}\nx: [2001-12-14t21:59:43.10-05:00]\n",
    "a date key": "kind: Pod\nmetadata: {name: a}\nx: {2001-12-14: a}\n",
    "a set": "kind: Pod\nmetadata: {name: a}\nx: !!set {b, a}\n",
    "not ASCII": "kind: Node\nmetadata: {name: n\u00e9, labels: {a: \u65e5\u672c}}\nx: \"\\u2028 \\ud7ff\"\n",
    "a List, empty documents and items": "---\n---\nkind: List\nitems:\n- {kind: Node, metadata: {name: a}}\n- null\n"
                                         "- {kind: Pod, metadata: {name: b, namespace: x}}\n---\n",
    "anchors and aliases": "kind: Pod\nmetadata: &m {name: a}\nx: *m\ny: {<<: *m, z: 1}\n",
    "a mark that is no alias": 'kind: Pod\nmetadata: {name: "a&b*c"}\nx: "2 * 3 & 4"\n',
    "big and small numbers": "kind: Pod\nmetadata: {name: a}\nx: [1e300, 1.5, -0.0, 123456789012345678901234567890]\n",
}


@pytest.mark.parametrize("text", EDGES.values(), ids=EDGES.keys())
def test_the_forms_where_encodings_part_are_stored_as_before(text: str) -> None:
    documents = safe_documents(text)
    assert direct(documents, text) == copied(documents)


REFUSED = {
    "not a number": "kind: Pod\nmetadata: {name: a}\nx: .nan\n",
    "binary": "kind: Pod\nmetadata: {name: a}\nx: !!binary aGVsbG8=\n",
    "not a mapping": "kind: Pod\nmetadata: {name: a}\n---\n- a list\n",
    "a List item not a mapping": "kind: List\nitems: [3]\n",
    "aliases past the value budget": "kind: Pod\nmetadata: {name: a}\nx:\n  a: &a [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n"
    + "".join(f"  {b}: &{b} [{', '.join(['*' + a] * 10)}]\n" for a, b in zip("abcde", "bcdef", strict=True))
    + "  g: [*f, *f, *f]\n",
}


@pytest.mark.parametrize("text", REFUSED.values(), ids=REFUSED.keys())
def test_what_the_database_cannot_hold_is_refused_with_the_same_message(text: str, settings: Any) -> None:
    settings.PLAYGROUND_MAX_BYTES = 1_000_000  # the value budget: its least, 2 million
    documents = safe_documents(text)
    with pytest.raises(ManifestError) as before:
        split_loaded(documents)
    with pytest.raises(ManifestError) as now:
        stored_objects(documents, text)
    assert str(now.value) == str(before.value)


def mid_size_upload() -> str:
    """Workloads (DaemonSets, ReplicaSets), plain pods and nodes, priority classes, and a
    cluster dump's List of objects after them: what an envelope upload holds, smaller."""
    dump = (ROOT / "tests" / "fixtures" / "kubectl-get-all.yaml").read_text()
    return render(40, 1200) + "---\n" + dump


def old_create(text: str) -> Scenario:
    """A scenario created as `scenario_create` did before: copies, stored by the JSON field."""
    summaries: list[Any] = []
    manifests_, _ = read_yaml_import(text, source="up.yaml", summaries=summaries)
    scenario = Scenario.objects.create(name="old", owner_token=OWNER.session_token)
    insert_manifests(scenario, manifests_)
    svc.keep_workload_pods(scenario, summaries)
    return Scenario.objects.get(pk=scenario.pk)


def rows(scenario: Scenario) -> list[tuple[Any, ...]]:
    return list(scenario.kube_objects.order_by("order").values_list("kind", "namespace", "name", "order", "manifest"))


def stored_text(scenario: Scenario) -> list[str]:
    """The manifest column as the database holds it (SQLite: the JSON text itself)."""
    table, column = ScenarioObject._meta.db_table, ScenarioObject._meta.get_field("manifest").column
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT "{column}" FROM "{table}" WHERE scenario_id = %s ORDER BY "order"', [scenario.pk])
        return [value if isinstance(value, str) else json.dumps(value) for (value,) in cursor.fetchall()]


@pytest.mark.django_db
@pytest.mark.postgres
def test_a_created_scenario_holds_what_it_held_before_and_its_page_shows_it() -> None:
    text = mid_size_upload()
    before = old_create(text)
    now = svc.scenario_create(actor=OWNER, name="now", yaml_text=text, source="up.yaml")
    assert rows(now) == rows(before)
    assert len(rows(now)) > 700
    if connection.vendor == "sqlite":
        assert stored_text(now) == stored_text(before)
    assert scenario_yaml(scenario=now) == scenario_yaml(scenario=before)
    kept = Scenario.objects.values_list("workload_pods_cache", flat=True)
    pods = kept.get(pk=now.pk)
    assert pods == kept.get(pk=before.pk) is not None
    client = Client()
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    page = client.get(f"/scenarios/{now.share_token}/").content.decode()
    assert "node-00000" in page  # the first page of nodes, and the workloads' pods counted:
    assert f"({pods['total']} created by workloads when a run starts)" in page


@pytest.mark.django_db
@pytest.mark.postgres
def test_an_import_replaces_the_rows_as_before() -> None:
    text = mid_size_upload()
    before = old_create(text)
    now = svc.scenario_create(actor=OWNER, name="now", yaml_text=render(2, 3))
    svc.scenario_import_yaml(scenario=now, actor=OWNER, text=text, source="up.yaml")
    assert rows(now) == rows(before)


@pytest.mark.django_db
def test_an_upload_without_aliases_is_stored_without_copying_its_documents(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_copy(value: Any, budget: list[int]) -> Any:
        raise AssertionError("an object was copied")

    monkeypatch.setattr(manifests, "_jsonable", no_copy)
    scenario = svc.scenario_create(actor=OWNER, name="now", yaml_text=render(5, 50))
    assert scenario.kube_objects.count() > 50


@pytest.mark.django_db
def test_rows_go_in_at_the_order_asked() -> None:
    scenario = Scenario.objects.create(name="s", owner_token=OWNER.session_token)
    text = render(2, 3)
    documents, _ = decode_yaml(text, "t")
    assert insert_stored(scenario, stored_objects(documents, text), first_order=7) == len(split_loaded(documents))
    assert list(scenario.kube_objects.order_by("order").values_list("order", flat=True))[:2] == [7, 8]


def containers(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + sum(containers(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(containers(v) for v in value)
    return 0


@pytest.mark.django_db
def test_the_collector_never_walks_an_uploads_documents() -> None:
    """Between the loader's own pause and the rows, the collector stays off: its first
    collections after a pause would walk every value still held, to find no garbage. The
    documents are let go before it resumes, so no collection meets them."""
    text = render(20, 1200)
    held = containers(decode_yaml(text, "t")[0])
    walked: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            walked.append(len(gc.get_objects(generation=info["generation"])))

    gc.collect()
    gc.callbacks.append(seen)
    try:
        objects, _ = read_yaml_rows(text, source="up.yaml")
    finally:
        gc.callbacks.remove(seen)
    assert len(objects) > 1000
    assert held > 10_000
    assert all(count < held / 2 for count in walked), (held, walked)


def old_fork_rows(scenario: Scenario) -> list[tuple[Any, ...]]:
    """The rows a fork stored before: every manifest decoded, then inserted again."""
    target = Scenario.objects.create(name="old fork", owner_token=OWNER.session_token)
    insert_manifests(target, [row.manifest for row in scenario.kube_objects.order_by("order", "id")])
    return rows(target)


@pytest.mark.django_db
@pytest.mark.postgres
def test_a_fork_copies_the_rows_as_decoding_and_inserting_them_did() -> None:
    source = svc.scenario_create(actor=OWNER, name="src", yaml_text=mid_size_upload())
    gone = list(source.kube_objects.order_by("order").values_list("pk", flat=True)[5:300:7])
    ScenarioObject.objects.filter(pk__in=gone).delete()  # gaps in the order: the fork renumbers them
    fork = svc.scenario_fork(scenario=source, actor=Actor(session_token="forker"))
    assert rows(fork) == old_fork_rows(source)
    assert [row[3] for row in rows(fork)] == list(range(len(rows(source))))
    ids = list(fork.kube_objects.order_by("order").values_list("pk", flat=True))
    assert ids == sorted(ids)  # made in document order
    if connection.vendor == "sqlite":
        assert stored_text(fork) == stored_text(source)
    assert scenario_yaml(scenario=fork) == scenario_yaml(scenario=source)


@pytest.mark.django_db
def test_a_fork_decodes_no_manifest(monkeypatch: pytest.MonkeyPatch) -> None:
    source = svc.scenario_create(actor=OWNER, name="src", yaml_text=render(5, 50))
    field = ScenarioObject._meta.get_field("manifest")

    def no_decoding(*args: Any) -> Any:
        raise AssertionError("a manifest was decoded")

    monkeypatch.setattr(field, "from_db_value", no_decoding)
    fork = svc.scenario_fork(scenario=source, actor=Actor(session_token="forker"))
    assert fork.kube_objects.count() == source.kube_objects.count() > 50
