"""Cluster actions with a bad value are refused in the request, with the error next to the form
field, and nothing is queued; good ones are queued and applied. Real DB, Redis and the worker's
code (executed inline)."""

from __future__ import annotations

import html as html_lib
import re
from typing import Any

import pytest
from django.test import Client

from playground.models import Run, RunAction
from playground.ownership import SESSION_KEY
from playground.selectors.frame_views import view_at
from playground.services.runs import errors as run_errors
from playground.services.runs import forms as run_forms
from tests.web.services.runs.test_runs_services import OWNER, act, inline_worker, start  # noqa: F401

pytestmark = pytest.mark.django_db


def refused(run: Run, params: dict[str, Any]) -> run_errors.RunError:
    before = run.actions.count()
    with pytest.raises(run_errors.RunError) as error:
        act(run, RunAction.KIND_CLUSTER, params)
    assert run.actions.count() == before  # nothing was queued
    return error.value


def form(**fields: str) -> dict[str, Any]:
    return run_forms.cluster_action_from_form(fields)


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"what": "addPod", "name": "Bad_Name"}, "name", "lowercase RFC 1123 subdomain"),
        ({"what": "addPod", "name": "ok", "cpu": "lots"}, "cpu", 'invalid quantity "lots"'),
        ({"what": "addPod", "name": "ok", "memory": "-1Gi"}, "memory", "must be greater than or equal to 0"),
        ({"what": "addPod", "name": "ok", "priorityClassName": "gold"}, "priorityClassName", "no PriorityClass"),
        ({"what": "addPod", "name": "payments"}, "name", 'pod "default/payments" already exists'),
        ({"what": "deletePod", "pod": "default/ghost"}, "pod", 'pod "default/ghost" does not exist'),
        ({"what": "addNode", "name": "node-1"}, "name", 'node "node-1" already exists'),
        ({"what": "addNode", "name": "n9", "memory": "eight"}, "memory", 'invalid quantity "eight"'),
        ({"what": "node", "op": "cordon", "node": "node-9"}, "node", 'node "node-9" does not exist'),
        ({"what": "addTaint", "node": "node-1", "key": "bad key!", "effect": "NoSchedule"}, "key", "name part"),
        ({"what": "removeTaint", "node": "node-9", "key": "k"}, "node", 'node "node-9" does not exist'),
        ({"what": "setScoreWeight", "plugin": "NodeResourcesFit", "weight": "500"}, "weight", "between 1 and 100"),
        ({"what": "setScoreWeight", "plugin": "NodePorts", "weight": "3"}, "plugin", "not a Score plugin"),
    ],
)
def test_a_bad_value_is_refused_with_its_field(
    inline_worker: list, fields: dict[str, str], field: str, message: str  # noqa: F811
) -> None:
    run = start("priority-preemption")
    error = refused(run, form(**fields))
    assert error.field == field and message in error.message, (error.field, error.message)


def test_names_count_the_actions_queued_before(inline_worker: list) -> None:  # noqa: F811
    run = start("priority-preemption")
    # Queued but not applied yet (the worker is not called): the names they add or remove count.
    RunAction.objects.create(run=run, index=1, kind=RunAction.KIND_CLUSTER, params=form(what="addNode", name="n9"))
    RunAction.objects.create(
        run=run, index=2, kind=RunAction.KIND_CLUSTER, params=form(what="deletePod", pod="default/payments")
    )
    from playground.services.runs import preflight

    preflight.check_cluster_action(run, form(what="node", op="cordon", node="n9"))  # exists by then
    preflight.check_cluster_action(run, form(what="addPod", name="payments"))  # deleted by then
    with pytest.raises(run_errors.RunError, match='node "n9" already exists'):
        preflight.check_cluster_action(run, form(what="addNode", name="n9"))


def test_good_actions_are_queued_and_applied(inline_worker: list) -> None:  # noqa: F811
    run = start("priority-preemption")
    added = act(run, RunAction.KIND_CLUSTER, form(what="addPod", name="extra", cpu="100m", priorityClassName="critical"))
    node = act(run, RunAction.KIND_CLUSTER, form(what="addNode", name="n9", cpu="2", memory="4Gi"))
    taint = act(run, RunAction.KIND_CLUSTER, form(what="addTaint", node="n9", key="gpu", effect="NoSchedule"))
    assert [a.state for a in (added, node, taint)] == [RunAction.STATE_DONE] * 3, [a.result for a in (added, node, taint)]
    view = view_at(run=run, step=run.head_step)
    assert "n9" in {n["name"] for n in view["nodes"]} and "default/extra" in {p["key"] for p in view["pods"]}


def test_the_page_shows_the_error_next_to_the_field(client: Client, inline_worker: list) -> None:  # noqa: F811
    run = start("priority-preemption")
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    url = f"/runs/{run.share_token}/"
    page = client.get(url).content.decode()
    assert 'id="form-add-pod-cpu-error"' in page and 'aria-describedby="form-add-pod-cpu-error"' in page
    response = client.post(
        url, {"action": "cluster", "what": "addPod", "name": "extra", "cpu": "lots"}, HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert response.status_code == 400 and "Queued" not in html
    cpu = re.search(r'<span id="form-add-pod-cpu-error"[^>]*hx-swap-oob="true">([^<]*)</span>', html)
    assert cpu and 'invalid quantity "lots"' in html_lib.unescape(cpu.group(1))
    name = re.search(r'<span id="form-add-pod-name-error"[^>]*>([^<]*)</span>', html)
    assert name and name.group(1) == ""  # the form's other fields are cleared
    assert not run.actions.exists()
    response = client.post(
        url, {"action": "cluster", "what": "addPod", "name": "extra", "cpu": "100m"}, HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert response.status_code == 200 and "Queued: addPod" in html
    assert re.search(r'<span id="form-add-pod-cpu-error"[^>]*hx-swap-oob="true"></span>', html)
