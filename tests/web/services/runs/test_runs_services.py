"""Run services, selectors and the run page without a worker: the task's body runs in-process."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from playground.models import Run, RunAction, RunCheckpoint, RunEvent, RunFrame, Scenario
from playground.ownership import Actor
from playground.presenters.runs import run_screen
from playground.selectors import runs as sel
from playground.selectors.frame_views import view_at
from playground.services import gallery
from playground.services.runs import actions as svc
from playground.services.runs import dispatch, news
from playground.services.runs import engine as run_engine
from playground.services.runs import errors as run_errors
from playground.services.runs import forms as run_forms
from playground.services.runs import worker as run_worker

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

OWNER = Actor(session_token="owner-token")
STRANGER = Actor(session_token="someone-else")


@pytest.fixture
def inline_worker(
    monkeypatch: pytest.MonkeyPatch,
    redis_url: str,
    settings: Any,
    channel_layer: Any,
    django_capture_on_commit_callbacks: Any,
) -> list:
    """Queued actions are executed at once in this process (the task's body, the real lock)."""
    settings.REDIS_URL = redis_url
    calls: list = []

    def schedule(run_id: int, index: int, **_: object) -> None:
        calls.append((run_id, index))
        run_worker.advance_run(run_id)

    monkeypatch.setattr(dispatch, "schedule", schedule)
    global _capture
    _capture = django_capture_on_commit_callbacks
    return calls


_capture: Any = None


def _capture_run() -> Any:
    """Run the on-commit callbacks (the queued action's worker call) at once, in this test."""
    return _capture(execute=True)


def gallery_scenario(slug: str) -> Scenario:
    gallery.seed()
    return Scenario.objects.get(gallery_slug=slug)


def start(slug: str = "priority-preemption") -> Run:
    return svc.run_start(scenario=gallery_scenario(slug), actor=OWNER)


def act(run: Run, kind: str, params: dict | None = None) -> RunAction:
    with _capture(execute=True):  # the test's transaction never commits: run on_commit now
        action = svc.run_enqueue(run=run, actor=OWNER, kind=kind, params=params)
    action.refresh_from_db()
    run.refresh_from_db()
    return action


def seqs(run: Run) -> list[int]:
    return list(run.events.order_by("seq").values_list("seq", flat=True))


def headless_events(run: Run) -> list[dict]:
    sim = run_engine.load_simulation(run.scenario_yaml, run.seed)
    sim.run(run.max_time)
    return sim.sink.events


def test_start_snapshots_the_scenario_and_stores_frame_zero() -> None:
    run = start()
    assert run.scenario_yaml.count("kind: Pod") == 6
    assert run.head_step == 0 and run.last_seq == run.events.count() > 0
    frame = run.frames.get(step=0)
    assert frame.result == "start" and "events" not in frame.view
    assert [a["pod"] for a in frame.view["queues"]["activeQ"]] == ["default/payments", "default/reports"]
    assert RunCheckpoint.objects.filter(run=run, step=0).exists()
    assert run.group_name == f"run_{run.pk}"


def test_steps_preemption_and_bind_then_settle(inline_worker: list) -> None:
    run = start()
    first = act(run, RunAction.KIND_STEP)
    assert first.state == RunAction.STATE_DONE and first.result == "cycle"
    frame1 = run.frames.get(step=1)
    assert frame1.cycle == 1
    screen = run_screen(run=run, actor=OWNER)
    assert screen.preemption["chosen"] == "node-1"
    assert {v["pod"] for v in screen.preemption["victims_deleted"]} == {"default/batch-1", "default/batch-2"}
    node1 = next(n for n in screen.nodes if n["name"] == "node-1")
    # Deleted in the API; the scheduler's cache drops them when the Delete events reach its
    # informer, after the next Pop (asynchronous preemption).
    assert set(node1["pods"]) == set(node1["deleting"]) == {"default/batch-1", "default/batch-2"}
    assert node1["nominated"] == ["default/payments"]
    act(run, RunAction.KIND_STEP)
    act(run, RunAction.KIND_STEP)
    screen = run_screen(run=run, actor=OWNER)
    assert screen.selected["node"] == "node-1"
    assert "default/payments" in next(n for n in screen.nodes if n["name"] == "node-1")["pods"]
    why = {p["key"]: p["message"] for p in screen.pods}
    assert "preemptionPolicy=Never" in why["default/reports"]
    act(run, RunAction.KIND_PLAY)
    assert run.status == Run.STATUS_SETTLED
    stored = list(run.events.order_by("seq").values_list("data", flat=True))
    assert stored == headless_events(run)
    # A duplicate task (a redelivery) finds nothing to do.
    assert run_worker.advance_run(run.pk) == 0
    assert seqs(run) == list(range(1, run.last_seq + 1))


def test_step_point_reveals_groups_then_steps(inline_worker: list) -> None:
    run = start()
    act(run, RunAction.KIND_STEP_POINT)
    assert run.head_step == 1 and run.reveal == 1
    screen = run_screen(run=run, actor=OWNER)
    assert screen.groups[0] == "queue" and screen.filter_matrix is None
    while run.reveal is not None and run.reveal < len(screen.groups):
        act(run, RunAction.KIND_STEP_POINT)
        screen = run_screen(run=run, actor=OWNER)
    assert run.head_step == 1 and screen.preemption is not None and screen.filter_matrix is not None
    act(run, RunAction.KIND_STEP_POINT)
    assert run.head_step == 2 and run.reveal == 1


def test_checkpoints_and_rebuild_replay_exactly(inline_worker: list, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_engine, "CHECKPOINT_EVERY", 2)
    run = start("noexecute-eviction")
    for _ in range(3):
        act(run, RunAction.KIND_STEP)
    assert list(run.checkpoints.values_list("step", flat=True)) == [0, 2]
    engine = run_engine.Engine.rebuild(run)  # checkpoint 2 + frame 3
    assert engine.sim.sink.seq == run.last_seq and engine.step == 3
    # The keyframe rule resumes after frame 0 (the keyframe) and the three deltas stored since.
    assert engine.keyframes.chain_frames == 3 and engine.keyframes.chain_bytes > 0


def test_queued_steps_are_committed_together_each_with_its_own_step(
    inline_worker: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Steps queued behind a Step are executed in the same batch and stored in one commit (one
    notification); each keeps its own step and result, an action of another kind ends the
    batch, and the log replays exactly."""
    run = start("noexecute-eviction")
    kinds = [RunAction.KIND_STEP, RunAction.KIND_STEP, RunAction.KIND_STEP, RunAction.KIND_CLUSTER,
             RunAction.KIND_STEP]
    params = {"action": "cordon", "node": "worker-2"}
    first = run.actions.count() + 1
    actions = [RunAction.objects.create(run=run, index=first + i, kind=kind,
                                        params=params if kind == RunAction.KIND_CLUSTER else {})
               for i, kind in enumerate(kinds)]
    notified: list[int | None] = []
    monkeypatch.setattr(news, "notify", lambda run_id, *, head_step=None, last_seq=None: notified.append(head_step))
    assert run_worker.advance_run(run.pk) == len(kinds)
    for action in actions:
        action.refresh_from_db()
    assert [a.state for a in actions] == [RunAction.STATE_DONE] * len(kinds)
    assert len({a.done_at for a in actions[:3]}) == 1 and actions[0].done_at is not None
    assert [(a.first_step, a.last_step) for a in actions] == [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]
    frames = {step: (index, result) for step, index, result in
              run.frames.filter(step__gt=0).values_list("step", "action_index", "result")}
    assert frames == {a.first_step: (a.index, "action" if a.kind == RunAction.KIND_CLUSTER else a.result)
                      for a in actions}
    assert actions[3].result == "applied" and "cycle" in [a.result for a in actions[:3]]
    assert notified == [3, 4, 5]  # the three Steps, the cordon, the last Step
    run.refresh_from_db()
    engine = run_engine.Engine.rebuild(run)
    assert engine.sim.sink.seq == run.last_seq and engine.step == 5


def test_play_defers_a_due_checkpoint_to_its_end(inline_worker: list, monkeypatch: pytest.MonkeyPatch) -> None:
    """While playing, a due checkpoint would freeze a big cluster's page for a second: it waits
    for the play to end (at most PLAY_DEFER intervals), and the run still rebuilds exactly."""
    from playground.services.runs import worker

    monkeypatch.setattr(run_engine, "CHECKPOINT_EVERY", 2)
    monkeypatch.setattr(worker, "BATCH_UNITS", 1)  # commit after every step, as a slow play does
    run = start("resource-fit")
    act(run, RunAction.KIND_PLAY)
    assert run.status == Run.STATUS_SETTLED and run.head_step > 2 * run_engine.PLAY_DEFER
    steps = list(run.checkpoints.order_by("step").values_list("step", flat=True))
    # Due at step 2, taken only once it had waited PLAY_DEFER intervals (or at the end).
    assert steps[0] == 0 and 2 not in steps and 4 not in steps
    assert steps[1] == 2 + run_engine.PLAY_DEFER * 2 or steps[-1] == run.head_step
    engine = run_engine.Engine.rebuild(run)
    assert engine.sim.sink.seq == run.last_seq and engine.step == run.head_step


def test_advance_clock_schedules_then_fires_an_eviction(inline_worker: list) -> None:
    run = start("noexecute-eviction")
    act(run, RunAction.KIND_ADVANCE_CLOCK)
    screen = run_screen(run=run, actor=OWNER)
    assert screen.clock == 10.0
    assert [(e["pod"], e["countdown"]) for e in screen.evictions] == [("default/tolerates-30s", 30.0)]
    act(run, RunAction.KIND_ADVANCE_CLOCK)
    act(run, RunAction.KIND_ADVANCE_CLOCK)
    screen = run_screen(run=run, actor=OWNER)
    assert screen.clock == 40.0 and screen.evictions == []
    status = {p["key"]: p["status"] for p in screen.pods}
    assert status["default/tolerates-30s"] == "Deleted" and status["default/tolerates-forever"] == "Bound"


def test_cluster_actions_apply_or_fail_with_the_engines_message(inline_worker: list) -> None:
    run = start("noexecute-eviction")
    ok = act(
        run, RunAction.KIND_CLUSTER, run_forms.cluster_action_from_form({"what": "node", "op": "cordon", "node": "worker-2"})
    )
    assert ok.state == RunAction.STATE_DONE
    assert view_at(run=run, step=run.head_step)["nodes"][1]["unschedulable"] is True
    with pytest.raises(run_errors.RunError, match='node "nope" does not exist'):  # refused in the request
        act(run, RunAction.KIND_CLUSTER, {"action": "cordon", "node": "nope"})
    # Something the request could not know (here: written to the log directly) still fails in
    # the worker with the engine's message, and the run goes on.
    last = run.actions.order_by("-index").first()
    bad = RunAction.objects.create(
        run=run, index=last.index + 1, kind=RunAction.KIND_CLUSTER, params={"action": "cordon", "node": "nope"}
    )
    run_worker.advance_run(run.pk)
    bad.refresh_from_db()
    run.refresh_from_db()
    assert bad.state == RunAction.STATE_FAILED and "does not exist" in bad.result
    added = act(
        run,
        RunAction.KIND_CLUSTER,
        run_forms.cluster_action_from_form({"what": "addPod", "name": "extra", "cpu": "100m", "memory": "64Mi"}),
    )
    assert added.state == RunAction.STATE_DONE
    assert "default/extra" in [p["pod"] for p in view_at(run=run, step=run.head_step)["queues"]["activeQ"]]
    assert seqs(run) == list(range(1, run.last_seq + 1))


def test_fork_copies_the_log_and_continues_independently(inline_worker: list) -> None:
    run = start()
    act(run, RunAction.KIND_STEP)
    act(run, RunAction.KIND_STEP)
    fork = svc.run_fork(run=run, actor=STRANGER, step=1)
    assert fork.head_step == 1 and fork.forked_from == run
    assert list(fork.frames.values_list("step", flat=True)) == [0, 1]
    with pytest.raises(PermissionDenied):
        svc.run_enqueue(run=run, actor=STRANGER, kind=RunAction.KIND_STEP)
    with _capture(execute=True):
        svc.run_enqueue(run=fork, actor=STRANGER, kind=RunAction.KIND_STEP)
    fork.refresh_from_db()
    original = list(run.events.filter(step=2).values_list("data", flat=True))
    forked = list(fork.events.filter(step=2).values_list("data", flat=True))
    assert forked == original  # same units, same engine, same events


def test_frame_lookup_by_cycle_and_step(inline_worker: list) -> None:
    run = start()
    for _ in range(3):
        act(run, RunAction.KIND_STEP)
    assert sel.frame_for(run=run, cycle=2).step == 2
    assert sel.frame_for(run=run, step=99).step == 3
    screen = run_screen(run=run, actor=STRANGER, cycle=1)
    assert screen.pinned and not screen.can_control and screen.share_query == "cycle=1"


def test_run_page_escapes_user_data_and_controls_only_for_the_owner(client: Any, inline_worker: list) -> None:
    gallery.seed()
    scenario = Scenario.objects.get(gallery_slug="priority-preemption")
    scenario.pk = None
    scenario.share_token = "evil-copy"
    scenario.is_gallery = False
    scenario.gallery_slug = None
    scenario.name = "<script>alert(1)</script>"
    scenario.save()
    response = client.post(reverse("playground:run_start", args=["evil-copy"]))
    assert response.status_code == 302
    run = Run.objects.get(scenario=scenario)
    page = client.get(response["Location"])
    html = page.content.decode()
    assert page.status_code == 200
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html
    assert 'id="btn-step"' in html
    with _capture(execute=True):
        response = client.post(
            reverse("playground:run", args=[run.share_token]), {"action": "step"}, HTTP_HX_REQUEST="true"
        )
    assert response.status_code == 200 and "Queued" in response.content.decode()
    run.refresh_from_db()
    assert run.head_step == 1
    from django.test import Client

    other = Client()
    html = other.get(reverse("playground:run", args=[run.share_token]) + "?cycle=1").content.decode()
    assert 'id="btn-step"' not in html and "read-only" in html
    denied = other.post(reverse("playground:run", args=[run.share_token]), {"action": "step"}, HTTP_HX_REQUEST="true")
    assert denied.status_code == 403


def test_scenario_page_has_a_start_run_button(client: Any) -> None:
    gallery.seed()
    html = client.get(reverse("playground:gallery", args=["priority-preemption"]), follow=True).content.decode()
    assert 'id="start-run"' in html


def test_event_seq_is_unique_per_run() -> None:
    from django.db import IntegrityError, transaction

    run = start()
    with pytest.raises(IntegrityError), transaction.atomic():
        RunEvent.objects.create(run=run, seq=1, step=0, type="x", data={})
    assert RunFrame.objects.filter(run=run).count() == 1


def test_score_weight_changes_during_a_run(inline_worker: list) -> None:
    run = start()
    action = act(
        run,
        RunAction.KIND_CLUSTER,
        run_forms.cluster_action_from_form({"what": "setScoreWeight", "plugin": "NodeResourcesFit", "weight": "7"}),
    )
    assert action.state == RunAction.STATE_DONE, action.result
    act(run, RunAction.KIND_STEP)
    scores = [e.data for e in run.events.filter(type="scores").order_by("seq")]
    assert not scores or scores[-1]["weights"]["NodeResourcesFit"] == 7
    with pytest.raises(run_errors.RunError, match="not a Score plugin") as refused:
        act(
            run,
            RunAction.KIND_CLUSTER,
            run_forms.cluster_action_from_form({"what": "setScoreWeight", "plugin": "NodePorts", "weight": "3"}),
        )
    assert refused.value.field == "plugin"


def test_run_page_offers_the_score_weight_form(client: Any) -> None:
    run = start()
    session = client.session
    html = client.get(f"/runs/{run.share_token}/").content.decode()
    assert 'id="form-score-weight"' not in html  # a stranger cannot drive the run
    assert session is not None
    assert sel.score_plugins(run=run)[:3] == ["TaintToleration", "NodeAffinity", "NodeResourcesFit"]


def test_scenario_page_lists_my_runs_only(client: Any) -> None:
    from playground.ownership import SESSION_KEY

    gallery.seed()
    scenario = Scenario.objects.get(gallery_slug="priority-preemption")
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    run = svc.run_start(scenario=scenario, actor=OWNER)
    svc.run_start(scenario=scenario, actor=STRANGER)
    html = client.get(f"/scenarios/{scenario.share_token}/").content.decode()
    assert 'id="my-runs"' in html and f"/runs/{run.share_token}/" in html
    assert html.count('href="/runs/') == 1


def test_a_settled_runs_step_or_play_is_recorded_at_once_as_the_worker_would(inline_worker: list) -> None:
    """Nothing is computed for a Step or Play of a settled run: with nothing queued before it,
    the web records it done ("settled") without a task; the run's fields are those the worker
    sets (its reveal cleared; a Play leaves it settled)."""
    run = start("percentage-of-nodes-to-score")
    act(run, RunAction.KIND_PLAY)
    assert run.status == Run.STATUS_SETTLED
    tasks = len(inline_worker)
    Run.objects.filter(pk=run.pk).update(reveal=2)
    head, last_seq = run.head_step, run.last_seq
    for kind in (RunAction.KIND_STEP, RunAction.KIND_PLAY):
        action = act(run, kind)
        assert (action.state, action.result) == (RunAction.STATE_DONE, "settled")
        assert action.done_at is not None
    assert len(inline_worker) == tasks  # no task was queued
    assert (run.status, run.reveal, run.head_step, run.last_seq) == (Run.STATUS_SETTLED, None, head, last_seq)


def test_a_settled_runs_step_behind_a_queued_action_goes_through_the_worker(inline_worker: list) -> None:
    """An action queued before it may unsettle the run (a cluster change): the Step waits its
    turn in the queue, as before."""
    run = start("percentage-of-nodes-to-score")
    act(run, RunAction.KIND_PLAY)
    RunAction.objects.create(run=run, index=run.actions.count() + 1, kind=RunAction.KIND_ADVANCE_CLOCK)
    tasks = len(inline_worker)
    action = act(run, RunAction.KIND_STEP)
    assert len(inline_worker) == tasks + 1
    assert action.state == RunAction.STATE_DONE


def test_a_step_that_loses_the_race_for_an_index_takes_the_next_one(
    inline_worker: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first pass appends without a transaction; when another request appended the same index
    in between (here: inserted just before this one's INSERT), the locked pass reads again and
    takes the next index: both actions stored, neither lost."""
    from playground.services.runs import actions

    run = start()
    real = actions._append
    raced: list[int] = []

    def racing(**fields: object) -> RunAction:
        if not raced:  # another request's Step lands first, with the index this one read
            raced.append(int(fields["index"]))  # type: ignore[call-overload]
            real(run=fields["run"], index=fields["index"], kind=RunAction.KIND_STEP, params={})
        return real(**fields)

    monkeypatch.setattr(actions, "_append", racing)
    action = act(run, RunAction.KIND_STEP)
    assert raced == [1]
    assert action.index == 2
    assert list(run.actions.order_by("index").values_list("index", flat=True)) == [1, 2]
