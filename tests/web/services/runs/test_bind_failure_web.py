"""The "Fail the bind of pod" form: the API server refuses the pod's next binding; the cycle
view shows Unreserve and ForgetPod, the events table upstream's FailedScheduling message, and
the pods table each pod's scheduler-cache state."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse

from playground.models import RunAction
from playground.services.runs import actions as svc
from playground.services.runs.errors import RunError
from playground.services.scenarios import scenario_create
from tests.web.services.runs.test_runs_services import OWNER, act, inline_worker  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

SCENARIO = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: '4', pods: '110'}}
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: c, resources: {requests: {cpu: '1'}}}]
"""


def _text(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def test_fail_bind_shows_unreserve_forget_and_the_retry(client: Client, inline_worker: list) -> None:  # noqa: F811
    run = svc.run_start(scenario=scenario_create(actor=OWNER, name="bind", yaml_text=SCENARIO), actor=OWNER)
    page = reverse("playground:run", args=[run.share_token])
    session = client.session
    session["playground_owner_token"] = OWNER.session_token
    session.save()
    assert 'id="form-fail-bind"' in client.get(page).content.decode()
    with pytest.raises(RunError, match='pod "default/nope" does not exist'):
        act(run, RunAction.KIND_CLUSTER, {"action": "failBind", "pod": "nope"})
    act(run, RunAction.KIND_CLUSTER, {"action": "failBind", "pod": "web"})
    act(run, RunAction.KIND_STEP)
    html = _text(client.get(page, {"step": run.head_step}).content.decode())
    assert ('Bind (DefaultBinder): Error — running Bind plugin "DefaultBinder": Timeout: request did not complete '
            "within requested timeout - context deadline exceeded") in html
    assert "Unreserve" in html
    assert "ForgetPod: the scheduler cache drops default/web's assumption on n1" in html
    assert "cache: forgotten" in html
    # The cycle view's UpdateSnapshot line (the first cycle copies the one node).
    assert "Snapshot generation 1: UpdateSnapshot refreshed 1 NodeInfo of 1 and rebuilt the node list" in html
    act(run, RunAction.KIND_PLAY)
    html = _text(client.get(page).content.decode())
    assert "cache: added" in html
    assert run.events.filter(type="bound").count() == 1
