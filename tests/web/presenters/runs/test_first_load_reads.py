"""The run page's load reads a frame's stored view only when the process has not got it yet.

A frame's view is megabytes at a big cluster (frame 0 holds the whole cluster: 37 MB at 5,000 x
150,000), and decoding it was most of the page's first load and of the first Step's live render,
which also read the frame before it whole just to learn its step. `selectors.runs.frame_for`
leaves the view unread; `selectors.frame_views.view_at` reads it from the process's cache, or
from its row once.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from playground.models import RunAction, RunFrame
from playground.ownership import SESSION_KEY
from playground.selectors import frame_views
from tests.web.services.runs.test_runs_services import OWNER, act, inline_worker, start  # noqa: F401  (fixture)

pytestmark = [pytest.mark.django_db]


def _view_reads(queries: list[dict[str, Any]]) -> list[str]:
    """The SQL statements that read a frame's stored view column."""
    table = RunFrame._meta.db_table
    return [q["sql"] for q in queries if f'"{table}"."view"' in q["sql"]]


def _get(client: Any, url: str) -> tuple[str, list[dict[str, Any]]]:
    with CaptureQueriesContext(connection) as queries:
        page = client.get(url)
    assert page.status_code == 200
    return page.content.decode(), list(queries.captured_queries)


def test_the_run_page_reads_a_view_once_per_process(client: Any, inline_worker: list) -> None:  # noqa: F811
    run = start()
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    url = reverse("playground:run", args=[run.share_token])

    frame_views.clear_cache()
    html, queries = _get(client, url)  # a cold process: frame 0's view read once
    assert 'id="run-step"' in html
    assert len(_view_reads(queries)) == 1
    _, queries = _get(client, url)  # the same process again: the view is cached
    assert _view_reads(queries) == []

    act(run, RunAction.KIND_STEP)  # the worker stores frame 1 (a delta on frame 0)
    html, queries = _get(client, url)
    assert run.head_step == 1 and 'id="run-step"' in html
    # Frame 1's delta is read; frame 0's view (the delta's base, and the frame before the
    # head the map compares with) comes from the cache.
    reads = _view_reads(queries)
    assert len(reads) == 1, reads


def test_a_head_and_the_frame_before_it_stay_cached_however_much_they_weigh(
    client: Any, inline_worker: list, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    """Every page, panel fetch and live update of a head reads its view and the frame before
    it. A 150,000-pod run's views each weigh more than the cache's bound: kept one at a time,
    each read of the one evicted the other, and every panel fetch of a Step rebuilt its view
    from the 37 MB keyframe. Here every view weighs more than the bound."""
    monkeypatch.setattr(frame_views, "CACHE_WEIGHT", 1)
    run = start()
    act(run, RunAction.KIND_STEP)
    act(run, RunAction.KIND_STEP)
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    url = reverse("playground:run", args=[run.share_token])
    frame_views.clear_cache()
    _get(client, url)  # reads frames 0 to 2 once
    for _ in range(2):
        html, queries = _get(client, url)
        assert 'id="run-step"' in html
        assert _view_reads(queries) == []


def test_the_next_views_pod_index_is_the_one_before_with_the_delta_in(
    inline_worker: list, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    """The map's chips and a preemption's victims look pods up by key: the index of a head made
    from the cached frame before and a delta is that frame's index with the delta's entries,
    not a pass over every pod again (150,000 at the envelope, on every Step), and it is the
    same as one built from the view."""
    run = start()
    act(run, RunAction.KIND_STEP)
    frame_views.clear_cache()
    before = frame_views.view_at(run=run, step=0)
    first = frame_views.pods_by_key(before)
    act(run, RunAction.KIND_STEP)
    view = frame_views.view_at(run=run, step=1)
    derived = frame_views._index_of(view)  # made with the view, before anyone asked for it
    assert derived is not None
    monkeypatch.setattr(frame_views, "_keep_index", lambda *_: pytest.fail("the pods were indexed again"))
    index = frame_views.pods_by_key(view)
    assert index is derived
    assert index == {p["key"]: p for p in view["pods"]} and index is not first
    assert all(index[p["key"]] is p for p in view["pods"])
    assert first == {p["key"]: p for p in before["pods"]}  # the one before is unchanged
    assert frame_views.pods_by_key(view) is index
    stored = RunFrame.objects.get(run=run, step=1).view
    assert "podsOrder" not in stored and stored["pods"], "this step should change pods in place"


def test_the_run_started_event_is_read_once_per_run(client: Any, inline_worker: list) -> None:  # noqa: F811
    """Its notes and profiles are on every page and live update and never change."""
    run = start()
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    url = reverse("playground:run", args=[run.share_token])
    _get(client, url)
    act(run, RunAction.KIND_STEP)
    html, queries = _get(client, url)
    assert 'id="run-step"' in html
    assert not [q["sql"] for q in queries if "run_started" in q["sql"]]


def test_the_process_that_stored_the_start_reads_no_view_for_its_page(client: Any, inline_worker: list) -> None:  # noqa: F811
    """The start already holds frame 0's view (decoded from the prepared start, or just
    computed): the process that stored it keeps it, so the page its owner is sent to next reads
    no stored view, and it shows what that row holds."""
    frame_views.clear_cache()
    run = start()
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    html, queries = _get(client, reverse("playground:run", args=[run.share_token]))
    assert _view_reads(queries) == []
    stored = RunFrame.objects.get(run=run, step=0).view
    assert frame_views.view_at(run=run, step=0) == stored
    assert all(p["key"].split("/")[-1] in html for p in stored["pods"][:3])


def test_a_big_pod_table_is_grouped_once_per_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """The unfiltered pods table of one view is grouped once, however many renders ask for it
    (the page, its /pods/ fetch, other viewers); a search groups what it found."""
    from types import SimpleNamespace

    from playground.presenters.runs import pods as pods_panel

    calls: list[int] = []
    real = pods_panel.group_pods

    def counting(view: dict[str, Any], pods: list[dict[str, Any]]) -> Any:
        calls.append(len(pods))
        return real(view, pods)

    monkeypatch.setattr(pods_panel, "group_pods", counting)
    pods = [{"key": f"default/p{i}", "status": "Pending" if i % 3 else "Bound", "node": None,
             "owner": f"ReplicaSet/rs{i % 4}"} for i in range(200)]
    screen = SimpleNamespace(view={"pods": pods, "replicaSets": []}, profiles={})
    first = pods_panel.pod_table(screen, {})
    again = pods_panel.pod_table(screen, {"page": "2"})
    assert calls == [200]
    assert first["total"] == again["total"] == 200 and [r["pod"]["key"] for r in again["rows"] if "pod" in r] \
        == [p["key"] for p in real(screen.view, pods)[0][50:100]]
    found = pods_panel.pod_table(screen, {"q": "p1"})
    assert calls == [200, found["matching"]]
    other = SimpleNamespace(view={"pods": list(pods), "replicaSets": []}, profiles={})  # another step's view
    pods_panel.pod_table(other, {})
    assert calls == [200, found["matching"], 200]


def test_the_run_page_reads_the_scenario_snapshot_only_for_a_lesson(client: Any) -> None:
    """A run's YAML snapshot (70 MB at the envelope) is read by the page only when it may hold
    a Lesson; a lesson's run still shows its lesson."""
    from playground.services.runs import actions as svc
    from playground.services.scenarios import scenario_create

    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    plain = scenario_create(actor=OWNER, name="plain", yaml_text=(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: '4', memory: 8Gi, pods: '10'}}\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p1}\nspec: {containers: [{name: c, image: pause}]}\n"))
    run = svc.run_start(scenario=plain, actor=OWNER)
    url = reverse("playground:run", args=[run.share_token])
    _get(client, url)  # the first view of a run caches what it reads once (run_newer_changes)
    html, queries = _get(client, url)
    assert 'id="run-step"' in html and 'id="run-lesson"' not in html
    assert not [q["sql"] for q in queries if '"scenario_yaml"' in q["sql"].split(" FROM ")[0]]

    lesson_run = start()  # priority-preemption: a gallery lesson
    html, _ = _get(client, reverse("playground:run", args=[lesson_run.share_token]))
    assert 'id="run-lesson"' in html
