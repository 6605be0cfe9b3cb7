"""A run start is a function of its content: thirty forks of one scenario load it once.

Starting a run loads the scenario into the engine (a web request's CPU: 0.2 s at 300 nodes,
seconds at 5,000). A class forks the teacher's scenario and starts it thirty times; only the
first start may compute, and every later one must store exactly what a computation would.
"""

from __future__ import annotations

from typing import Any

import pytest

from playground.models import PreparedStart, RunCheckpoint, RunEvent, RunFrame, Scenario
from playground.ownership import Actor
from playground.services import gallery, scenario_objects
from playground.services import scenarios as scenario_service
from playground.services.runs import actions, prepare
from playground.services.runs import actions as run_service
from tests.web.broker import switch_broker

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

SLUG = "percentage-of-nodes-to-score"


@pytest.fixture
def computed(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str, str]]:
    """The starts the engine computed (seed, version, gates), in order."""
    calls: list[tuple[int, str, str]] = []
    real = prepare.compute_start

    def counted(text: str, seed: int, version: str, gates: str = "") -> Any:
        calls.append((seed, version, gates))
        return real(text, seed, version, gates)

    monkeypatch.setattr(actions, "compute_start", counted)
    monkeypatch.setattr(prepare, "compute_start", counted)
    return calls


def _record(run: Any) -> tuple[list[Any], list[Any], bytes]:
    frames = list(RunFrame.objects.filter(run=run).values_list("step", "cycle", "clock", "first_seq", "last_seq", "view"))
    events = list(RunEvent.objects.filter(run=run).order_by("seq").values_list("seq", "step", "type", "data"))
    return frames, events, bytes(RunCheckpoint.objects.get(run=run, step=0).blob)


def _fork() -> tuple[Scenario, Actor]:
    gallery.seed()
    source = Scenario.objects.get(gallery_slug=SLUG)
    student = Actor(session_token=f"student-{Scenario.objects.count()}")
    return scenario_service.scenario_fork(scenario=source, actor=student), student


def test_a_class_forking_one_scenario_computes_its_start_once(computed: list[Any]) -> None:
    runs = []
    for _ in range(4):
        fork, student = _fork()
        runs.append(run_service.run_start(scenario=fork, actor=student))
    assert len(computed) == 1  # the first student's start; the others reuse it
    first = _record(runs[0])
    assert all(_record(run) == first for run in runs[1:])
    assert all(run.head_step == runs[0].head_step and run.last_seq == runs[0].last_seq for run in runs)


def test_a_reused_start_is_the_start_the_engine_computes(computed: list[Any]) -> None:
    fork, student = _fork()
    run_service.run_start(scenario=fork, actor=student)  # computed, kept
    other, other_student = _fork()
    reused = run_service.run_start(scenario=other, actor=other_student)
    assert len(computed) == 1
    PreparedStart.objects.all().delete()  # nothing kept: the engine computes it again
    fresh = run_service.run_start(scenario=other, actor=other_student)
    assert len(computed) == 2
    assert _record(reused)[:2] == _record(fresh)[:2]  # frame 0 and its events
    from scheduler_core.simulation import Simulation

    a, b = (Simulation.restore(_record(run)[2]) for run in (reused, fresh))
    for _ in range(5):  # the same engine (a checkpoint's bytes may differ; its future may not)
        assert a.step() == b.step()
        assert a.sink.events == b.sink.events
        a.sink.events, b.sink.events = [], []


def test_other_content_is_computed_afresh(computed: list[Any], settings: Any) -> None:
    fork, student = _fork()
    base = run_service.run_start(scenario=fork, actor=student)
    other_seed = run_service.run_start(scenario=fork, actor=student, seed=fork.seed + 1)
    older = run_service.run_start(scenario=fork, actor=student, kubernetes_version="v1.30")
    gated = run_service.run_start(scenario=fork, actor=student, feature_gates="GenericWorkload=true")
    assert [c[0] for c in computed] == [fork.seed, fork.seed + 1, fork.seed, fork.seed]
    assert len({_record(r)[2] for r in (base, other_seed)}) == 2
    assert older.kubernetes_version == "v1.30" and gated.feature_gates == "GenericWorkload=true"
    # The scenario keeps the start of its own seed and the default version only.
    kept = PreparedStart.objects.get(scenario=fork)
    assert bytes(kept.checkpoint) == _record(base)[2]
    # A changed limit is other content: a start it would refuse is never served from the kept one.
    settings.PLAYGROUND_MAX_PODS = 10_000
    again, again_student = _fork()
    run_service.run_start(scenario=again, actor=again_student)
    assert len(computed) == 5
    # A changed object is other content too.
    row = fork.kube_objects.filter(kind="Node").first()
    manifest = {**row.manifest, "metadata": {**row.manifest["metadata"], "labels": {"changed": "yes"}}}
    scenario_objects.scenario_object_save(scenario=fork, actor=student, manifest=manifest, object_id=row.pk)
    run_service.run_start(scenario=fork, actor=student)
    assert len(computed) == 6


@pytest.mark.live
def test_a_big_start_is_computed_by_a_worker_while_the_request_waits(
    transactional_db: None, celery_worker: Any, redis_url: str, settings: Any, computed: list[Any]
) -> None:
    """Loading a big scenario takes seconds of CPU: in a web process it stalls every push and
    post that process serves. With a worker alive, the request asks a worker and waits."""
    import time

    from config.celery import app
    from playground.services.runs.prepare import PREPARE_MIN_OBJECTS
    from tests.web.services.runs.test_runs_live import _many_pods_yaml

    settings.REDIS_URL = redis_url
    before = switch_broker(app, redis_url)
    try:
        owner = Actor(session_token="big-owner")
        scenario = scenario_service.scenario_create(
            actor=owner, name="big", yaml_text=_many_pods_yaml(nodes=20, pods=PREPARE_MIN_OBJECTS))
        deadline = time.monotonic() + 120
        while not PreparedStart.objects.filter(scenario=scenario).exists():  # the upload's own preparation
            assert time.monotonic() < deadline, "the worker never prepared the uploaded scenario"
            time.sleep(0.2)
        PreparedStart.objects.all().delete()  # gone: the start has to ask for it
        run = run_service.run_start(scenario=scenario, actor=owner)
        assert computed == []  # not in this process: the worker computed it
        kept = PreparedStart.objects.get(scenario=scenario)
        assert _record(run)[2] == bytes(kept.checkpoint)
        assert run.head_step == 0 and RunFrame.objects.filter(run=run).count() == 1
    finally:
        switch_broker(app, before)
