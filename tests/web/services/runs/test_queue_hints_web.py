"""The queueing hint behind each queue move, on the run page: the queue panel's moves name the
plugin whose hint said Queue, and the cluster events whose hints all said QueueSkip."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse

from playground.models import RunAction
from playground.services.runs import actions as svc
from playground.services.scenarios import scenario_create
from tests.web.services.runs.test_runs_services import OWNER, act, inline_worker  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

SCENARIO = """
apiVersion: v1
kind: Node
metadata: {name: small}
status: {capacity: {cpu: '1', pods: '110'}}
---
apiVersion: v1
kind: Pod
metadata: {name: big}
spec:
  containers: [{name: c, resources: {requests: {cpu: '2'}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: picky}
spec:
  nodeSelector: {zone: b}
  containers: [{name: c}]
---
apiVersion: playground.kube-scheduler.dev/v1
kind: Timeline
actions:
- {at: 20, action: addNode, node: {metadata: {name: tiny, labels: {zone: a}}, status: {capacity: {cpu: '1', pods: '110'}}}}
- {at: 40, action: addNode, node: {metadata: {name: large, labels: {zone: b}}, status: {capacity: {cpu: '4', pods: '110'}}}}
"""


def _text(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def test_queue_panel_names_the_hint_that_moved_each_pod(client: Client, inline_worker: list) -> None:  # noqa: F811
    run = svc.run_start(scenario=scenario_create(actor=OWNER, name="hints", yaml_text=SCENARIO), actor=OWNER)
    act(run, RunAction.KIND_PLAY)
    moved = run.events.get(type="queue_move", data__pod="default/big", data__event="NodeAdd")
    skipped = run.events.get(type="queue_hints_skipped")
    page = reverse("playground:run", args=[run.share_token])
    html = _text(client.get(page, {"step": moved.step}).content.decode())
    assert "default/big: unschedulable → activeQ NodeAdd hints NodeResourcesFit: Queue → QueueAfterBackoff" in html
    assert "default/picky: unschedulable → activeQ NodeAdd hints NodeAffinity: Queue → QueueAfterBackoff" in html
    html = _text(client.get(page, {"step": skipped.step}).content.decode())
    assert ("NodeAdd: every hint asked said QueueSkip, 2 pods stay unschedulable: default/big "
            "(NodeResourcesFit: QueueSkip), default/picky (NodeAffinity: QueueSkip)") in html


def test_the_story_tells_which_hint_moved_the_pod(client: Client, inline_worker: list) -> None:  # noqa: F811
    run = svc.run_start(scenario=scenario_create(actor=OWNER, name="story", yaml_text=SCENARIO), actor=OWNER)
    act(run, RunAction.KIND_PLAY)
    page = reverse("playground:run", args=[run.share_token])
    skipped = run.events.get(type="queue_hints_skipped")
    html = _text(client.get(page, {"step": skipped.step}).content.decode())
    assert "NodeAdd: every queueing hint asked said QueueSkip, so 2 pods stayed unschedulable, no cycle wasted." in html
    moved = run.events.get(type="queue_move", data__pod="default/big", data__event="NodeAdd")
    html = _text(client.get(page, {"step": moved.step}).content.decode())
    assert ("NodeAdd: NodeResourcesFit's hint said Queue, so big moved from unschedulable to activeQ "
            "(QueueAfterBackoff).") in html
