"""The "How many more fit?" page: the real view, service, engine and template, in the request."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.urls import reverse

from playground.models import Scenario
from playground.services import capacity as capacity_service
from playground.services.scenarios import scenario_create
from tests.web.services.runs.test_runs_services import OWNER

pytestmark = [pytest.mark.django_db]

NODE = """apiVersion: v1
kind: Node
metadata: {{name: {name}}}
{spec}status: {{capacity: {{cpu: "4", memory: 16Gi, pods: "110"}}}}
---
"""
CLUSTER = (NODE.format(name="node-a", spec="") + NODE.format(name="node-b", spec="")
           + NODE.format(name="node-c", spec="spec:\n  taints: [{key: dedicated, value: batch, effect: NoSchedule}]\n")
           + """apiVersion: v1
kind: Pod
metadata: {name: running}
spec:
  nodeName: node-a
  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: 1
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
""")
PASTED = """apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]
"""


def _scenario() -> Scenario:
    return scenario_create(actor=OWNER, name="three nodes", yaml_text=CLUSTER)


def _get(client: Any, scenario: Scenario, **params: str) -> tuple[int, str]:
    response = client.get(reverse("playground:scenario_capacity", args=[scenario.share_token]), params)
    return response.status_code, unescape(response.content.decode())


def _text(page: str, element_id: str) -> str:
    m = re.search(rf'id="{element_id}"[^>]*>(.*?)</(h2|blockquote|table|p)>', page, re.S)
    assert m, f"no #{element_id}"
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", m.group(1))).strip()


def test_the_form_lists_the_scenarios_workloads_not_its_bound_pods(client: Any) -> None:
    scenario = _scenario()
    status, page = _get(client, scenario)
    assert status == 200
    assert "Deployment default/api" in page
    assert "Pod default/running" not in page  # bound in advance: not something to copy
    assert 'id="capacity-answer"' not in page


def test_a_deployment_of_the_scenario_answers_with_the_schedulers_message(client: Any) -> None:
    scenario = _scenario()
    deployment = scenario.kube_objects.get(kind="Deployment")
    status, page = _get(client, scenario, pod=str(deployment.pk), max="100")
    assert status == 200
    # The Deployment's own replica is pending in the cluster too, and placed first: 6 more fit.
    assert _text(page, "capacity-count") == "6 copies of default/api fit"
    assert _text(page, "capacity-reason").startswith(
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu.")
    assert "default/api-6" in page


def test_pasted_yaml_and_max(client: Any) -> None:
    scenario = _scenario()
    status, page = _get(client, scenario, yaml=PASTED, max="1")
    assert status == 200
    assert _text(page, "capacity-count") == "1 copy of default/web fit"
    assert "Stopped at 1 copy: more may fit." in page
    status, page = _get(client, scenario, yaml=PASTED, max="10")
    assert _text(page, "capacity-count") == "2 copies of default/web fit"  # 2 cpu: 1 on node-a (3 free), 1 on node-b


def test_bad_input_is_said_and_nothing_is_counted(client: Any) -> None:
    scenario = _scenario()
    status, page = _get(client, scenario, yaml=PASTED.replace('cpu: "2"', "cpu: lots"))
    assert status == 400
    assert "pasted YAML: document 1 (Pod default/web): spec.containers[0].resources.requests.cpu:" in page
    assert 'id="capacity-answer"' not in page
    status, page = _get(client, scenario, yaml=PASTED, max="0")
    assert status == 400 and "max: 0 is out of range" in page
    status, page = _get(client, scenario, pod="999999")
    assert status == 400 and "is not a Pod, Deployment or ReplicaSet of this scenario" in page


def test_the_htmx_answer_is_the_fragment_only(client: Any) -> None:
    scenario = _scenario()
    response = client.get(reverse("playground:scenario_capacity", args=[scenario.share_token]),
                          {"yaml": PASTED}, HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert response.status_code == 200
    assert 'id="capacity-answer"' in body and "<html" not in body


def test_past_the_cpu_budget_the_answer_is_a_lower_bound(client: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(capacity_service, "CPU_BUDGET", -1.0)  # spent before the first copy
    status, page = _get(client, _scenario(), yaml=PASTED)
    assert status == 200
    assert _text(page, "capacity-count").startswith("At least 0 copies of default/web fit")
    assert 'id="capacity-reason"' not in page


def test_the_scenario_page_links_to_it(client: Any) -> None:
    scenario = _scenario()
    response = client.get(reverse("playground:scenario", args=[scenario.share_token]))
    assert reverse("playground:scenario_capacity", args=[scenario.share_token]) in response.content.decode()


def test_how_it_works_pages_are_served(client: Any) -> None:
    for slug, title in (("capacity", "How many more fit?"), ("why-pending", "Why pending")):
        response = client.get(reverse("playground:docs_page", args=[slug]))
        assert response.status_code == 200
        assert title in unescape(response.content.decode())


def test_the_page_links_to_the_capacity_lesson(client: Any) -> None:
    from playground.services import gallery

    gallery.seed()
    _, page = _get(client, _scenario())
    link = re.search(r'<a href="([^"]+)" id="capacity-lesson-link">', page)
    assert link and link.group(1) == reverse("playground:gallery", args=["capacity-what-stops-the-next"])
    lesson = client.get(link.group(1), follow=True)  # the gallery's address leads to the lesson's scenario
    assert lesson.status_code == 200
    assert "How many more fit, and what stops the next one?" in unescape(lesson.content.decode())
