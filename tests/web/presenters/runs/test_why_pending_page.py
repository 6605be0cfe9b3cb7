"""The run's "Why pending" page: pending pods grouped by reason, counts, the cycle each group was
last tried in, from the run's stored view and events (real worker path, real engine)."""

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

pytestmark = [pytest.mark.django_db]

NODE = """apiVersion: v1
kind: Node
metadata: {{name: {name}}}
{spec}status: {{capacity: {{cpu: "4", memory: 16Gi, pods: "110"}}}}
---
"""
POD = """apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
{extra}  containers: [{{name: c, image: x, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
---
"""
SCENARIO = (NODE.format(name="node-a", spec="") + NODE.format(name="node-b", spec="")
            + NODE.format(name="node-c", spec="spec:\n  taints: [{key: dedicated, value: batch, effect: NoSchedule}]\n")
            + "".join(POD.format(name=f"big-{i}", extra="", cpu="2") for i in range(1, 7))
            + "".join(POD.format(name=f"gpu-{i}", extra="  nodeSelector: {pool: gpu}\n", cpu="0") for i in (1, 2)))


def _text(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def test_groups_counts_and_the_cycle_each_was_last_tried(client: Client, inline_worker: list) -> None:  # noqa: F811
    run = svc.run_start(scenario=scenario_create(actor=OWNER, name="pending", yaml_text=SCENARIO), actor=OWNER)
    act(run, RunAction.KIND_PLAY)
    page = client.get(reverse("playground:run_why_pending", args=[run.share_token]))
    assert page.status_code == 200
    html = page.content.decode()
    text = _text(html)
    assert "Why are 4 pods pending?" in text
    first = _text(re.search(r'<section[^>]*id="why-pending-group-1".*?</section>', html, re.S).group(0)).strip()
    second = _text(re.search(r'<section[^>]*id="why-pending-group-2".*?</section>', html, re.S).group(0)).strip()
    # Two groups of two; equal sizes are ordered by their decisive reason.
    assert first.startswith("2 pods: Insufficient cpu")
    assert "2 nodes: Insufficient cpu" in first and "1 node: node(s) had untolerated taint(s)" in first
    assert "Rejected by NodeResourcesFit, TaintToleration" in first
    assert second.startswith("2 pods: node(s) didn't match Pod's node affinity/selector")
    # The last tried cycles, as the run's own events number them: the cycle page links.
    cycles = {e.data["pod"]: e.data["cycle"] for e in run.events.filter(type="cycle_started").order_by("seq")}
    assert f"?cycle={cycles['default/big-6']}" in html and "cycle " + str(cycles["default/big-6"]) in first
    assert f"?cycle={cycles['default/gpu-2']}" in html
    # The run page links here.
    assert 'id="run-why-pending-link"' in client.get(reverse("playground:run", args=[run.share_token])).content.decode()


def test_a_run_with_nothing_pending_says_so(client: Client, inline_worker: list) -> None:  # noqa: F811
    run = svc.run_start(scenario=scenario_create(actor=OWNER, name="fine", yaml_text=NODE.format(name="n", spec="")
                                                 + POD.format(name="p", extra="", cpu="1")), actor=OWNER)
    act(run, RunAction.KIND_PLAY)
    text = _text(client.get(reverse("playground:run_why_pending", args=[run.share_token])).content.decode())
    assert "Why are 0 pods pending?" in text and "No pod is pending." in text
