"""Pods grouped by owner on the run page, and scaling a Deployment during a run (the form's
validation in the request, the action through the worker's body, in-process)."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from playground.models import RunAction, Scenario
from playground.ownership import SESSION_KEY, Actor
from playground.presenters.runs import run_screen
from playground.presenters.runs.owners import group_pods
from playground.services import scenarios as scenario_service
from playground.services.runs import actions as svc
from playground.services.runs import dispatch
from playground.services.runs import worker as run_worker
from playground.services.runs.cache import EngineCache

pytestmark = [pytest.mark.django_db]

OWNER = Actor(session_token="owners-owner")

WORKLOADS = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: 500m}}}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: shop}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, image: postgres, resources: {requests: {cpu: 250m}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: lonely, namespace: default}
spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]}
"""


@pytest.fixture
def worker(monkeypatch: pytest.MonkeyPatch, redis_url: str, settings: Any, channel_layer: Any) -> None:
    settings.REDIS_URL = redis_url
    monkeypatch.setattr(dispatch, "schedule", lambda run_id, index, **_: run_worker.advance_run(run_id, cache=EngineCache()))


def _scenario() -> Scenario:
    return scenario_service.scenario_create(actor=OWNER, name="workloads", yaml_text=WORKLOADS)


def _owner_client(client: Any) -> Any:
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    return client


def test_pods_are_grouped_by_owner_with_bare_pods_last() -> None:
    run = svc.run_start(scenario=_scenario(), actor=OWNER)
    screen = run_screen(run=run, actor=OWNER)
    table = screen.pod_table
    groups = {g.key: g for g in table["groups"]}
    assert list(groups) == ["Deployment/shop/web", "StatefulSet/shop/db", "bare"]
    web = groups["Deployment/shop/web"]
    assert web.size == 2 and web.via.startswith("web-") and web.counts == (("Pending", 2),)
    assert groups["bare"].size == 1 and groups["bare"].label == "Pods without an owner"
    # Headers come before each group's pods; every pod appears once.
    rows = table["rows"]
    headers = [i for i, r in enumerate(rows) if "group" in r]
    assert [rows[i]["group"].key for i in headers] == list(groups)
    keys = [r["pod"]["key"] for r in rows if "pod" in r]
    assert sorted(keys) == sorted(p["key"] for p in screen.view["pods"])
    assert keys[-1] == "default/lonely" and keys[2:4] == ["shop/db-0", "shop/db-1"]


def test_grouping_pages_and_search_keep_the_groups() -> None:
    view = {
        "deployments": [{"key": "a/web", "namespace": "a", "name": "web", "replicaSet": "web-1", "replicas": 60}],
        "pods": [{"key": f"a/web-1-{i}", "status": "Pending", "owner": "ReplicaSet/web-1"} for i in range(60)]
        + [{"key": "a/bare", "status": "Bound", "owner": None}, {"key": "a/j-1", "status": "Bound", "owner": "Job/j"}],
    }
    ordered, groups = group_pods(view, view["pods"])
    assert [p["key"] for p in ordered][-2:] == ["a/j-1", "a/bare"]
    assert [g.label for g in groups.values()] == ["Deployment web", "Job j", "Pods without an owner"]


def test_the_run_page_shows_the_groups_and_the_scale_form(client: Any) -> None:
    run = svc.run_start(scenario=_scenario(), actor=OWNER)
    html = _owner_client(client).get(reverse("playground:run", args=[run.share_token])).content.decode()
    assert 'data-owner="Deployment/shop/web"' in html and "Pods without an owner" in html
    assert 'id="form-scale"' in html and '<option value="shop/web"' in html


@pytest.mark.parametrize(
    ("deployment", "replicas", "field", "text"),
    [
        ("", "3", "deployment", "Choose a Deployment."),
        ("shop/<b>nope</b>", "3", "deployment", "No Deployment &#x27;shop/&lt;b&gt;nope&lt;/b&gt;&#x27; in this run"),
        ("shop/web", "", "replicas", "How many replicas?"),
        ("shop/web", "two", "replicas", "&#x27;two&#x27; is not a whole number."),
        ("shop/web", "-1", "replicas", "Replicas must be from 0 to 1000, not -1."),
    ],
)
def test_the_scale_form_shows_errors_beside_the_field(
    client: Any, deployment: str, replicas: str, field: str, text: str
) -> None:
    run = svc.run_start(scenario=_scenario(), actor=OWNER)
    response = _owner_client(client).post(
        reverse("playground:run", args=[run.share_token]),
        {"action": "cluster", "what": "scaleDeployment", "deployment": deployment, "replicas": replicas},
        HTTP_HX_REQUEST="true",
    )
    html = response.content.decode()
    assert response.status_code == 200 and 'id="form-scale"' in html
    assert f'id="scale-{field}-error"' in html and text in html
    assert "<b>nope</b>" not in html
    assert not run.actions.exists()


def test_scaling_a_deployment_is_a_cluster_action(
    client: Any, worker: None, django_capture_on_commit_callbacks: Any
) -> None:
    run = svc.run_start(scenario=_scenario(), actor=OWNER)
    with django_capture_on_commit_callbacks(execute=True):
        response = _owner_client(client).post(
            reverse("playground:run", args=[run.share_token]),
            {"action": "cluster", "what": "scaleDeployment", "deployment": "shop/web", "replicas": "5"},
            HTTP_HX_REQUEST="true",
        )
    assert "Queued: scale shop/web to 5" in response.content.decode()
    action = run.actions.get()
    assert action.params == {"action": "scaleDeployment", "name": "web", "namespace": "shop", "replicas": 5}
    assert action.state == RunAction.STATE_DONE, action.result
    run.refresh_from_db()
    screen = run_screen(run=run, actor=OWNER)
    web = next(g for g in screen.pod_table["groups"] if g.key == "Deployment/shop/web")
    assert web.size == 5
    assert screen.view["deployments"][0]["replicas"] == 5
    # Scaling down deletes pods; they stay in their group, as Deleted.
    with django_capture_on_commit_callbacks(execute=True):
        svc.run_enqueue(
            run=run,
            actor=OWNER,
            kind=RunAction.KIND_CLUSTER,
            params={"action": "scaleDeployment", "name": "web", "namespace": "shop", "replicas": 1},
        )
    run.refresh_from_db()
    web = next(g for g in run_screen(run=run, actor=OWNER).pod_table["groups"] if g.key == "Deployment/shop/web")
    assert dict(web.counts) == {"Deleted": 4, "Pending": 1}


def test_a_stranger_cannot_scale(client: Any) -> None:
    run = svc.run_start(scenario=_scenario(), actor=OWNER)
    response = client.post(
        reverse("playground:run", args=[run.share_token]),
        {"action": "cluster", "what": "scaleDeployment", "deployment": "shop/web", "replicas": "5"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 403 and not run.actions.exists()


def test_a_steps_grouping_is_the_one_before_with_its_changes(
    worker: None, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    """The whole table's grouping of a Step's view is the grouping of the view before with the
    changed pods' entries and counts moved (a Step changes a few of 150,000 pods at the
    envelope), and it is exactly what grouping every pod gives."""
    from playground.presenters.runs import pods as pods_panel
    from playground.selectors import frame_views

    run = svc.run_start(scenario=_scenario(), actor=OWNER)
    frame_views.clear_cache()
    first = frame_views.view_at(run=run, step=0)
    pods_panel._grouped_all(first, first["pods"])
    full: list[int] = []
    real = pods_panel.group_pods
    monkeypatch.setattr(pods_panel, "group_pods", lambda view, pods: full.append(1) or real(view, pods))
    statuses = set()
    for step in range(1, 6):
        with django_capture_on_commit_callbacks(execute=True):  # the worker, in this process
            svc.run_enqueue(run=run, actor=OWNER, kind=RunAction.KIND_STEP)
        run.refresh_from_db()
        assert run.head_step == step
        view = frame_views.view_at(run=run, step=step)
        ordered, groups = pods_panel._grouped_all(view, view["pods"])
        want_ordered, want_groups = real(view, view["pods"])
        assert [p["key"] for p in ordered] == [p["key"] for p in want_ordered]
        assert all(a is b for a, b in zip(ordered, want_ordered, strict=True))
        assert groups == want_groups
        statuses.update(p["status"] for p in view["pods"])
    assert full == [], "a Step's grouping was computed from every pod"
    assert "Bound" in statuses  # the steps did move pods between statuses
