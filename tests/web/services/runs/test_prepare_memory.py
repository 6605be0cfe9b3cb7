"""A worker's preparation of a big start keeps its peak memory down without changing what it stores.

At 5,000 nodes x 150,000 pods the worker's peak (VmHWM) was 1,852 MiB, reached while it
prepared the start (bench/prepare_memory.py finds the part that raises it). What changed, each
checked here against what the code before stored: the scenario's YAML is built a chunk of
objects at a time (`yaml_of_objects`: the same text as `build_yaml` of them all), a checkpoint
is written into its row through SQLite's blob I/O instead of being bound whole to the INSERT
(`insert_with_blob`: the same bytes; no statement carries them), the start's events are
summarised before the engine records them (the same events stored), and the YAML text is let go
of once loaded, before the checkpoint is taken.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connection

from playground.infra.blob_write import insert_with_blob
from playground.infra.bulk_insert import insert_rows
from playground.manifests import build_yaml
from playground.models import PreparedStart, RunCheckpoint, Scenario, ScenarioObject
from playground.ownership import Actor
from playground.selectors.scenarios import scenario_manifests
from playground.services import gallery
from playground.services.runs import actions as run_service
from playground.services.runs import prepare
from playground.services.runs.engine import Engine, load_simulation
from playground.services.runs.start_summary import START_EVENTS_VERBATIM, SUMMARY_TYPE, summarize_start
from scheduler_core.util.collector import collector_paused

pytestmark = [pytest.mark.django_db]

# Documents the fast writer leaves to PyYAML (a float, a string it would quote), an empty one
# and plain ones, so a chunk can begin with any of them.
ODD_MANIFESTS: list[dict[str, Any]] = [
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"zone": "a"}}},
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c1"}, "data": {"ratio": 1.5}},
    {},
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c2"}, "data": {"note": "a: b # c"}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1"}, "spec": {"containers": [{"name": "c"}]}},
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c3"}, "data": {"flag": "true", "n": "32"}},
    {},
]


def _scenario_of(manifests: list[dict[str, Any]]) -> Scenario:
    scenario = Scenario.objects.create(name="chunks")
    ScenarioObject.objects.bulk_create(
        ScenarioObject(scenario=scenario, kind=m.get("kind", ""), name=m.get("metadata", {}).get("name", ""),
                       order=i, manifest=m)
        for i, m in enumerate(manifests)
    )
    return scenario


@pytest.mark.postgres
@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 1000])
def test_the_yaml_built_in_chunks_is_the_yaml_built_whole(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prepare, "YAML_CHUNK", chunk)
    scenario = _scenario_of(ODD_MANIFESTS)
    whole = build_yaml(scenario_manifests(scenario=scenario))
    assert "--- {}" in whole and "ratio: 1.5" in whole  # both writers and an empty document took part
    assert prepare.yaml_of_objects(scenario=scenario) == whole


@pytest.mark.postgres
def test_the_yaml_of_gallery_scenarios_and_of_none_built_in_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prepare, "YAML_CHUNK", 4)
    gallery.seed()
    for scenario in Scenario.objects.filter(is_gallery=True):
        assert prepare.yaml_of_objects(scenario=scenario) == build_yaml(scenario_manifests(scenario=scenario))
    assert prepare.yaml_of_objects(scenario=_scenario_of([])) == "" == build_yaml([])


@contextmanager
def _largest_parameter() -> Iterator[list[int]]:
    """The byte size of the largest parameter bound to any statement run meanwhile."""
    largest = [0]

    def watch(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        for row in (params if many else [params]) or []:
            for value in row or []:
                if isinstance(value, (bytes, bytearray, memoryview, str)):
                    largest[0] = max(largest[0], len(value))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(watch):
        yield largest


@pytest.mark.postgres
def test_a_blob_inserted_in_pieces_is_the_blob_bound_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    from playground.infra import blob_write

    monkeypatch.setattr(blob_write, "CHUNK", 1000)  # several pieces, the last one short
    gallery.seed()
    run = run_service.run_start(scenario=Scenario.objects.get(gallery_slug="priority-preemption"),
                                actor=Actor(session_token="blob"))
    data = bytes(range(256)) * 41 + b"end"
    with _largest_parameter() as largest:
        insert_with_blob(RunCheckpoint, ("run", "step"), (run.pk, 7), "blob", data)
    insert_rows(RunCheckpoint, ("run", "step", "blob"), [(run.pk, 8, data)])
    pieces, whole = (bytes(RunCheckpoint.objects.get(run=run, step=s).blob) for s in (7, 8))
    assert pieces == whole == data
    if connection.vendor == "sqlite":
        assert largest[0] < len(data)  # no statement carried the checkpoint
    insert_with_blob(RunCheckpoint, ("run", "step"), (run.pk, 9), "blob", b"")
    assert bytes(RunCheckpoint.objects.get(run=run, step=9).blob) == b""


def _start_as_before(text: str, seed: int, version: str) -> dict[str, Any]:
    """The start as compute_start made it before: every event recorded, then summarised."""
    with collector_paused(collect_first=True):
        sim = load_simulation(text, seed, version)
        engine = Engine(run_id=0, sim=sim, step=0, stored_step=0, stored_seq=0)
        events, sim.sink.events = sim.sink.events, []
        engine._record(prepare.START_UNIT, "start", None, 1, events)
        return {"frame": {name: getattr(engine.frames[0], name) for name in prepare.FRAME_FIELDS},
                "events": summarize_start([e.data for e in engine.events]), "fields": engine.run_fields(),
                "checkpoint": sim.checkpoint()}


def _many_pods(count: int) -> str:
    node = ("apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  allocatable:\n"
            "    cpu: '1000'\n    memory: 1000Gi\n    pods: '5000'\n")
    pods = "".join(f"---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i}\n  namespace: default\n"
                   "spec:\n  containers:\n  - name: c\n    image: x\n" for i in range(count))
    return node + pods


@pytest.mark.postgres
def test_the_prepared_start_stored_is_the_one_stored_before() -> None:
    from scheduler_core.featuregate.features import DEFAULT_KUBERNETES_VERSION
    from scheduler_core.simulation import Simulation

    text = _many_pods(START_EVENTS_VERBATIM + 10)  # a big start: its queue entries summarised
    scenario = Scenario.objects.create(name="big start", seed=3)
    before = _start_as_before(text, scenario.seed, DEFAULT_KUBERNETES_VERSION)
    now = prepare.compute_start(text, scenario.seed, DEFAULT_KUBERNETES_VERSION)
    assert [e["type"] for e in now.events] == ["run_started", SUMMARY_TYPE]
    assert (now.frame, now.events, now.fields) == (before["frame"], before["events"], before["fields"])
    assert now.engine.events[-1].data == now.events[-1]  # the engine recorded the summary, as stored

    with _largest_parameter() as largest:
        prepare._write(scenario.pk, "key", "content", now.checkpoint, now.events, now.frame, now.fields)
    if connection.vendor == "sqlite":
        assert largest[0] < len(now.checkpoint)  # written in pieces, never bound whole
    stored = PreparedStart.objects.values("checkpoint", "events", "frame", "fields").get(scenario=scenario)
    assert bytes(stored.pop("checkpoint")) == now.checkpoint
    assert stored == {"events": before["events"], "frame": before["frame"], "fields": before["fields"]}
    # Two loads' checkpoints differ in their bytes (before as now), never in the engine they hold.
    a, b = Simulation.restore(now.checkpoint), Simulation.restore(before["checkpoint"])
    assert a.sink.seq == b.sink.seq
    for _ in range(5):
        assert a.step() == b.step()
        assert a.sink.events == b.sink.events
        a.sink.events, b.sink.events = [], []


class _Text(str):
    """A str that can be watched (a plain str cannot be referenced weakly)."""


def test_the_preparation_lets_go_of_the_yaml_before_the_checkpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    from scheduler_core.simulation import Simulation

    gallery.seed()
    scenario = Scenario.objects.get(gallery_slug="priority-preemption")
    text, version = prepare.scenario_yaml_versioned(scenario=scenario)
    box = [_Text(text)]  # handed over once: nothing here keeps a reference
    seen = weakref.ref(box[0])
    del text
    monkeypatch.setattr(prepare, "scenario_yaml_versioned", lambda *, scenario: (box.pop(), version))
    alive: list[bool] = []
    real = Simulation.checkpoint

    def checkpoint(sim: Simulation) -> bytes:
        alive.append(seen() is not None)
        return real(sim)

    monkeypatch.setattr(Simulation, "checkpoint", checkpoint)
    prepare.prepare_start(scenario=scenario)
    assert alive == [False]
    assert PreparedStart.objects.filter(scenario=scenario).exists()


@pytest.mark.postgres
def test_a_blob_set_in_pieces_with_other_fields(monkeypatch: pytest.MonkeyPatch) -> None:
    from playground.infra import blob_write

    monkeypatch.setattr(blob_write, "CHUNK", 999)
    scenario = Scenario.objects.create(name="update")
    prepare._write(scenario.pk, "", "", b"", [{"seq": 1}], {"step": 0}, {"head_step": 0})
    row = PreparedStart.objects.get(scenario=scenario)
    data = bytes(range(256)) * 30
    with _largest_parameter() as largest:
        assert blob_write.update_with_blob(PreparedStart, row.pk, ("key", "content_key"), ("k", "c"), "checkpoint", data)
    row.refresh_from_db()
    assert (row.key, row.content_key, bytes(row.checkpoint)) == ("k", "c", data)
    assert (row.events, row.frame, row.fields) == ([{"seq": 1}], {"step": 0}, {"head_step": 0})
    if connection.vendor == "sqlite":
        assert largest[0] < len(data)
    assert not blob_write.update_with_blob(PreparedStart, row.pk + 1, ("key",), ("x",), "checkpoint", data)


def test_frame_0_is_written_before_the_checkpoint_and_taken_only_with_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The preparation writes its row first, then takes the checkpoint: meanwhile no start takes
    that row (by key or by content), and after it every start takes the whole of it."""
    from scheduler_core.featuregate.features import DEFAULT_KUBERNETES_VERSION
    from scheduler_core.simulation import Simulation

    gallery.seed()
    scenario = Scenario.objects.get(gallery_slug="priority-preemption")
    text, version = prepare.scenario_yaml_versioned(scenario=scenario)
    content = prepare.content_key(text, scenario.seed, DEFAULT_KUBERNETES_VERSION)
    seen: list[Any] = []
    real = Simulation.checkpoint

    def checkpoint(sim: Simulation) -> bytes:
        seen.append((list(PreparedStart.objects.filter(scenario=scenario).values_list("frame", flat=True)),
                     prepare.take_by_content(content),
                     prepare.take_prepared(scenario=scenario, version=version, seed=scenario.seed,
                                           kubernetes_version=DEFAULT_KUBERNETES_VERSION)))
        return real(sim)

    monkeypatch.setattr(Simulation, "checkpoint", checkpoint)
    prepare.prepare_start(scenario=scenario)
    [(frames, by_content, by_key)] = seen
    assert len(frames) == 1 and frames[0]["step"] == 0  # frame 0 was stored already
    assert by_content is None and by_key is None
    taken = prepare.take_prepared(scenario=scenario, version=version, seed=scenario.seed,
                                  kubernetes_version=DEFAULT_KUBERNETES_VERSION)
    assert taken is not None and taken.frame == frames[0] and taken.checkpoint
    assert prepare.take_by_content(content) == taken
    Simulation.restore(taken.checkpoint)  # the whole checkpoint


def test_the_heap_is_given_back_where_the_c_library_can() -> None:
    import platform

    from playground.infra.heap import give_back

    assert give_back() is (platform.libc_ver()[0] == "glibc")


def test_a_preparation_whose_row_went_meanwhile_still_leaves_its_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """Frame 0's row deleted while the checkpoint is taken (a start that stored its own, a
    cleanup): the finished preparation writes its whole row, as it did in one piece before."""
    from scheduler_core.featuregate.features import DEFAULT_KUBERNETES_VERSION
    from scheduler_core.simulation import Simulation

    gallery.seed()
    scenario = Scenario.objects.get(gallery_slug="priority-preemption")
    real = Simulation.checkpoint

    def checkpoint(sim: Simulation) -> bytes:
        PreparedStart.objects.all().delete()
        return real(sim)

    monkeypatch.setattr(Simulation, "checkpoint", checkpoint)
    prepare.prepare_start(scenario=scenario)
    _text, version = prepare.scenario_yaml_versioned(scenario=scenario)
    taken = prepare.take_prepared(scenario=scenario, version=version, seed=scenario.seed,
                                  kubernetes_version=DEFAULT_KUBERNETES_VERSION)
    assert taken is not None and taken.checkpoint and taken.frame["step"] == 0
    assert PreparedStart.objects.filter(scenario=scenario).count() == 1
