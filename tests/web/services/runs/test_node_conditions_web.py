"""The node form's kubelet choices: Ready=False or a silent kubelet, then the node lifecycle
controller's taints on the node card, its NodeNotReady event on the Node in the events table,
and the taint manager's eviction 300 s later."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse

from playground.models import RunAction
from playground.ownership import SESSION_KEY
from playground.services.runs import actions as svc
from playground.services.scenarios import scenario_create
from tests.web.services.runs import test_runs_services as services
from tests.web.services.runs.test_runs_services import OWNER, act, inline_worker  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

SCENARIO = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: '4', pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {capacity: {cpu: '4', pods: '110'}}
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  nodeName: n1
  containers: [{name: c}]
"""


def _text(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def test_not_ready_from_the_node_form_taints_then_evicts(client: Client, inline_worker: list) -> None:  # noqa: F811
    run = svc.run_start(scenario=scenario_create(actor=OWNER, name="nodes", yaml_text=SCENARIO), actor=OWNER)
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    page = reverse("playground:run", args=[run.share_token])
    assert 'value="readyUnknown"' in client.get(page).content.decode()
    response = client.post(page, {"action": "cluster", "what": "node", "node": "n9", "op": "readyFalse"},
                           HTTP_HX_REQUEST="true")
    assert response.status_code == 400 and 'node "n9" does not exist' in unescape(response.content.decode())
    with services._capture(execute=True):
        response = client.post(page, {"action": "cluster", "what": "node", "node": "n1", "op": "readyFalse"},
                               HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    run.refresh_from_db()
    html = _text(client.get(page).content.decode())
    assert "Ready=False" in html and "node.kubernetes.io/not-ready:NoSchedule" in html
    assert "node/n1 Node n1 status is now: NodeNotReady" in html
    act(run, RunAction.KIND_PLAY)
    taints = [(e.data["time"], e.data["change"]) for e in run.events.filter(type="node_lifecycle").order_by("seq")]
    # t=0 is a health pass (every 5 s from the start): the NoExecute taint follows at once.
    assert taints[-1] == (0.0, "taint node.kubernetes.io/not-ready:NoExecute added")
    deleted = run.events.get(type="pod_deleted")
    assert (deleted.data["pod"], deleted.data["time"], deleted.data["by"]) == ("default/web", 300.0, "TaintManagerEviction")
