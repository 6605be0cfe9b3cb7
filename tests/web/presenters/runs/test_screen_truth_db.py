"""Item 1 of "Teach III" where the page reads the database: the events table, the editor's
summaries, the words that name a button."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from playground.models import RunAction, Scenario
from playground.services import gallery
from playground.services.runs import actions as svc
from playground.services.scenarios import scenario_create
from tests.web.services.runs.test_runs_services import OWNER, act, inline_worker  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

SHOP = """
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: Node
metadata: {name: only}
status: {capacity: {cpu: '1', memory: 15164240Ki, pods: '110'}}
---
apiVersion: v1
kind: Pod
metadata: {name: low, namespace: shop}
spec:
  nodeName: only
  containers: [{name: c, resources: {requests: {cpu: '1'}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: checkout, namespace: shop}
spec:
  priorityClassName: high
  containers: [{name: c, resources: {requests: {cpu: '1'}}}]
"""


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_events_table_reads_like_kubectl_and_names_the_preemptor(client: Client, inline_worker: list) -> None:  # noqa: F811
    scenario = scenario_create(actor=OWNER, name="shop", yaml_text=SHOP)
    run = svc.run_start(scenario=scenario, actor=OWNER)
    act(run, RunAction.KIND_STEP)
    preempted = run.events.get(type="k8s_event", data__reason="Preempted").data
    assert re.fullmatch(r"Preempted by pod [0-9a-f-]{36} on node only", preempted["message"])  # upstream's text
    for html in (
        client.get(reverse("playground:run", args=[run.share_token])).content.decode(),
        client.get(reverse("playground:run_events", args=[run.share_token]), {"page": "1"}).content.decode(),
    ):
        table = html[html.index('id="events-table"'):]
        table = _text(table[: table.index("</table>")])
        assert "NAMESPACE" in table
        assert "pod/shop/" not in table
        assert re.search(r"shop \S+ Normal Preempted pod/low Preempted by pod [0-9a-f-]{36} on node only "
                         r"\(that UID is pod shop/checkout\)", table), table


def test_editor_summaries_humanise_memory(client: Client) -> None:
    scenario = scenario_create(actor=OWNER, name="mem", yaml_text=SHOP)
    session = client.session
    session["playground_owner_token"] = OWNER.session_token
    session.save()
    html = _text(client.get(reverse("playground:scenario", args=[scenario.share_token])).content.decode())
    assert "memory 14.5Gi (15164240Ki)" in html


def test_home_names_the_start_button_as_it_is_labelled(client: Client, settings: Any) -> None:
    gallery.seed()
    home = client.get(reverse("playground:home")).content.decode()
    scenario = Scenario.objects.get(gallery_slug="resource-fit")
    page = client.get(reverse("playground:scenario", args=[scenario.share_token])).content.decode()
    button = re.search(r"id=\"start-run\">([^<]+)</button>", page).group(1)
    named = re.findall(r"<strong>(Start[^<]*)</strong>", home)
    assert named and set(named) == {button}


def test_a_scenario_of_workloads_counts_and_lists_the_pods_they_will_create(client: Client) -> None:
    from scheduler_core.loader import load_scenario_text
    from tests.web.teach_frames import GALLERY

    text = (GALLERY / "deployments-daemonsets.yaml").read_text()
    expected = len(load_scenario_text(text, source="d").pods)
    scenario = scenario_create(actor=OWNER, name="workloads", yaml_text=text)
    assert not scenario.kube_objects.filter(kind="Pod").exists()
    html = client.get(reverse("playground:scenario", args=[scenario.share_token])).content.decode()
    text_only = _text(html)
    assert f"{expected} pods ({expected} created by workloads when a run starts)" in text_only
    assert "0 pods" not in text_only
    pods_section = _text(html[html.index('id="pod-section"'):html.index("</section>", html.index('id="pod-section"'))])
    assert "None." not in pods_section
    assert re.search(r"DaemonSet node-agent · 3 pods: kube-system/node-agent-\S+", pods_section), pods_section
    assert re.search(r"Deployment web via ReplicaSet web-\S+ · \d+ pods", pods_section), pods_section


def test_the_workload_pods_are_kept_from_the_load_that_stored_them(client: Client, monkeypatch: Any) -> None:
    """The page reads the pods the validating load found (loading 150,000 pods again would take
    20 s); after a change it counts again, and a fork keeps its source's."""
    from playground.selectors import workload_pods as selector
    from playground.services.scenarios import scenario_fork, scenario_import_yaml
    from tests.web.teach_frames import GALLERY

    text = (GALLERY / "deployments-daemonsets.yaml").read_text()
    scenario = scenario_create(actor=OWNER, name="workloads", yaml_text=text)
    counts = {"Deployment": 1}
    kept = Scenario.objects.get(pk=scenario.pk).workload_pods_cache
    assert kept == selector._expand(scenario) and kept["total"] > 0
    loads: list[int] = []
    expand = selector._expand
    monkeypatch.setattr(selector, "_expand", lambda s: loads.append(s.pk) or expand(s))
    assert selector.workload_pods(scenario=scenario, counts=counts) == kept and loads == []
    fork = scenario_fork(scenario=scenario, actor=OWNER)
    assert selector.workload_pods(scenario=fork, counts=counts) == kept and loads == []
    scenario_import_yaml(scenario=scenario, actor=OWNER, text=text.replace("replicas: 6", "replicas: 7"))
    again = selector.workload_pods(scenario=scenario, counts=counts)
    assert loads == [] and again["total"] == kept["total"] + 1
    # an edit that the kept count does not follow: counted again by loading
    obj = scenario.kube_objects.filter(kind="Deployment").first()
    obj.manifest = {**obj.manifest, "spec": {**obj.manifest["spec"], "replicas": 9}}
    obj.save()
    Scenario.objects.filter(pk=scenario.pk).update(name="touched")  # a new version, as edits make one
    scenario.refresh_from_db()
    scenario.save(update_fields=["updated_at"])
    selector.workload_pods(scenario=scenario, counts=counts)
    assert loads == [scenario.pk]
