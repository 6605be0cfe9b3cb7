"""The Kubernetes version of a run (chosen at start, kept by every rebuild and fork, shown on the
page) and the "compare versions" page, without a browser: the worker's body runs in-process."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from django.urls import reverse

from playground.models import Run, RunAction, Scenario
from playground.ownership import SESSION_KEY, Actor
from playground.selectors.frame_views import view_at
from playground.selectors.scenarios import scenario_yaml
from playground.services import gallery
from playground.services.runs import actions as svc
from playground.services.runs import dispatch
from playground.services.runs import engine as run_engine
from playground.services.runs import errors as run_errors
from playground.services.runs import worker as run_worker
from playground.services.runs.cache import EngineCache
from playground.services.runs.engine import Engine
from playground.services.versions import attribution, compare
from scheduler_core.featuregate.features import FeatureGates, gates_for
from tests.web.compare_here import run_compare_tasks_here

pytestmark = [pytest.mark.django_db]

OWNER = Actor(session_token="version-owner")


def gallery_scenario(slug: str) -> Scenario:
    gallery.seed()
    return Scenario.objects.get(gallery_slug=slug)


@pytest.fixture
def worker(monkeypatch: pytest.MonkeyPatch, redis_url: str, settings: Any, channel_layer: Any) -> None:
    settings.REDIS_URL = redis_url
    monkeypatch.setattr(dispatch, "schedule", lambda run_id, index, **_: run_worker.advance_run(run_id, cache=EngineCache()))


def _play(run: Run, capture: Any) -> RunAction:
    with capture(execute=True):
        action = svc.run_enqueue(run=run, actor=OWNER, kind=RunAction.KIND_PLAY)
    action.refresh_from_db()
    run.refresh_from_db()
    return action


def _headless_nodes(run: Run, version: str) -> dict[str, Any]:
    sim = run_engine.load_simulation(run.scenario_yaml, run.seed, version)
    sim.run(run.max_time)
    return {f"{p['namespace']}/{p['name']}": (p["node"], p["message"]) for p in sim.result(True)["pods"]}


def test_a_run_keeps_its_version_through_play_rebuild_and_fork(
    worker: None, django_capture_on_commit_callbacks: Any
) -> None:
    run = svc.run_start(scenario=gallery_scenario("taints-tolerations"), actor=OWNER, kubernetes_version="1.30")
    assert run.kubernetes_version == "v1.30"
    # Every action here rebuilds the engine from checkpoint 0 (a fresh cache per task).
    assert _play(run, django_capture_on_commit_callbacks).state == RunAction.STATE_DONE
    got = {p["key"]: (p["node"], p["message"]) for p in view_at(run=run, step=run.head_step)["pods"]}
    assert got == _headless_nodes(run, "v1.30") != _headless_nodes(run, "v1.35")
    assert "untolerated taint {" in " ".join(m or "" for _, m in got.values())
    engine = Engine.rebuild(run)
    assert engine.sim.feature_gates.version == "v1.30"
    fork = svc.run_fork(run=run, actor=OWNER, step=1)
    assert fork.kubernetes_version == "v1.30"
    assert Engine.rebuild(fork).sim.feature_gates == gates_for("v1.30")


def test_a_rebuild_refuses_a_checkpoint_of_another_version() -> None:
    run = svc.run_start(scenario=gallery_scenario("resource-fit"), actor=OWNER)
    assert run.kubernetes_version == "v1.35"
    Run.objects.filter(pk=run.pk).update(kubernetes_version="v1.30")
    run.refresh_from_db()
    with pytest.raises(RuntimeError, match="models v1.35, the run v1.30"):
        Engine.rebuild(run)


def test_an_unknown_version_is_refused_by_name() -> None:
    with pytest.raises(run_errors.RunError, match=r"unsupported Kubernetes version 'v1\.12'.*v1\.35, v1\.30"):
        svc.run_start(scenario=gallery_scenario("resource-fit"), actor=OWNER, kubernetes_version="v1.12")
    assert not Run.objects.exists()


def test_start_form_offers_the_versions_and_the_run_page_shows_it(client: Any) -> None:
    scenario = gallery_scenario("resource-fit")
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    html = client.get(f"/scenarios/{scenario.share_token}/").content.decode()
    assert '<option value="v1.35" selected>' in html and '<option value="v1.30">' in html
    assert f"/scenarios/{scenario.share_token}/compare/?seed=" in html
    response = client.post(
        reverse("playground:run_start", args=[scenario.share_token]), {"kubernetes_version": "v1.30"}
    )
    run = Run.objects.get(scenario=scenario)
    assert response.status_code == 302 and run.kubernetes_version == "v1.30"
    page = client.get(response["Location"]).content.decode()
    assert '<strong id="run-version">v1.30</strong>' in page and 'id="run-compare-link"' in page
    bad = client.post(reverse("playground:run_start", args=[scenario.share_token]), {"kubernetes_version": "v9"})
    assert bad.status_code == 302 and Run.objects.count() == 1
    assert "unsupported Kubernetes version" in client.get(bad["Location"]).content.decode()


# ---- compare versions ----------------------------------------------------------------------------


def test_every_gate_has_a_label() -> None:
    names = {f.name for f in dataclasses.fields(FeatureGates)} - {"version", "overrides"}
    assert set(attribution.GATE_LABELS) == names


GATES = (gates_for("v1.35"), gates_for("v1.30"))


@pytest.mark.parametrize(
    ("new", "old", "gates"),
    [
        (
            "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. "
            "no new claims to deallocate, preemption: 0/3 nodes are available: 3 No preemption victims found.",
            "0/3 nodes are available: 1 node(s) had untolerated taint {gpu: }, 2 Insufficient cpu. "
            "preemption: 0/3 nodes are available: 3 No preemption victims found.",
            ["dynamic_resource_allocation", "taint_toleration_single_reason"],
        ),
        (
            "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: "
            "1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
            "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: "
            "3 No preemption victims found for incoming pod.",
            ["insufficient_resource_unresolvable"],
        ),
        (
            "0/4 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 3 node(s) didn't "
            "satisfy plugin(s) [NodeAffinity]. preemption: 0/4 nodes are available: 4 Preemption is not helpful.",
            "0/4 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/4 nodes "
            "are available: 1 Preemption is not helpful, 3 No preemption victims found.",
            ["prefilter_result_reasons"],
        ),
        ("0/2 nodes are available: 2 Too many pods.", "0/2 nodes are available: 2 Too many pods.", []),
    ],
)
def test_message_differences_are_attributed_from_their_parts(new: str, old: str, gates: list[str]) -> None:
    assert [c.gate for c in attribution.message_causes(new, old, GATES)] == gates


def test_same_gates_explain_nothing() -> None:
    both = (GATES[0], GATES[0])
    assert (
        attribution.message_causes(
            "0/1 nodes are available: 1 x. no new claims to deallocate", "0/1 nodes are available: 1 x.", both
        )
        == []
    )


def test_compare_names_the_cause_of_each_difference_from_the_engine_evidence(settings: Any) -> None:
    scenario = gallery_scenario("pod-anti-affinity")
    result = compare.compare_versions(scenario_yaml(scenario=scenario), 0)
    rows = {p.key: p for p in result.differing}
    assert result.versions == ("v1.35", "v1.30")
    for row in rows.values():
        assert row.causes, row.key
    # Placement differences: tied nodes in the run's own "selected" events, or a knock-on.
    placed = [r for r in rows.values() if any(d.aspect == "placement" for d in r.differences)]
    assert placed
    for row in placed:
        gates = {c.gate for c in row.causes}
        if "node_score_heap_tie_break" in gates:
            assert len(row.new.ties) > 1 or len(row.old.ties) > 1
        else:
            assert gates == {""} and "follows from" in row.causes[0].why
    # A pod that looks the same in both is not listed.
    same = [p for p in result.pods if not p.differences]
    assert all(p.new.node == p.old.node and p.new.message == p.old.message for p in same)


def test_compare_page_lists_differences_and_refuses_bad_input(
    client: Any, settings: Any, monkeypatch: pytest.MonkeyPatch, redis_url: str
) -> None:
    run_compare_tasks_here(monkeypatch, settings, redis_url)
    scenario = gallery_scenario("taints-tolerations")
    url = reverse("playground:scenario_compare", args=[scenario.share_token])
    html = client.get(url + "?seed=3").content.decode()
    assert 'id="compare-table"' in html and 'data-gate="taint_toleration_single_reason"' in html
    assert "untolerated taint {nvidia.com/gpu: }" in html and "(seed 3)" in html
    partial = client.get(url + "?seed=4", HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in partial and 'id="compare-table"' in partial
    bad = client.get(url + "?seed=banana")
    assert bad.status_code == 400 and "seed: &#x27;banana&#x27; is not a whole number" in bad.content.decode()


def test_compare_refuses_scenarios_above_the_cap(
    client: Any, monkeypatch: pytest.MonkeyPatch, settings: Any, redis_url: str
) -> None:
    run_compare_tasks_here(monkeypatch, settings, redis_url)
    scenario = gallery_scenario("percentage-of-nodes-to-score")
    monkeypatch.setattr(compare, "MAX_NODES", 10)
    response = client.get(reverse("playground:scenario_compare", args=[scenario.share_token]) + "?seed=99")
    assert response.status_code == 400
    assert "limited to 500 pods and 10 nodes" in response.content.decode()
