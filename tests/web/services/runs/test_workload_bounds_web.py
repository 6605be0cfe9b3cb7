"""Every way into the web app counts a workload's pods against PLAYGROUND_MAX_PODS before any is
built: a new scenario from a file, pasted and uploaded YAML, a cluster dump, a timeline, the
editor's bulk helpers and the run page's actions. A refusal names where and the setting, and
changes nothing."""

from __future__ import annotations

import tracemalloc
from html import unescape
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from playground.models import Run, RunAction, Scenario
from playground.ownership import SESSION_KEY
from playground.selectors.frame_views import view_at
from playground.selectors.scenarios import scenario_yaml
from playground.services.runs import actions as svc
from playground.services.runs import forms as run_forms
from playground.services.runs import worker as run_worker
from tests.web.presenters.runs.test_runs_owners import OWNER, WORKLOADS, _scenario
from tests.web.services.runs.test_runs_services import act, inline_worker, start  # noqa: F401
from tests.web.views.test_scenarios_views import NODE, create, post

pytestmark = [pytest.mark.django_db]

BILLION = 1_000_000_000
HUGE = (NODE.format(name="n1") + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
        f"spec:\n  replicas: {BILLION}\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n"
        "    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: pause}]}\n")
WHERE = (f"document 2 (Deployment default/web): spec.replicas: too many pods: this Deployment would "
         f"create {BILLION:,} pods; the limit is 20,000 (raise it with the PLAYGROUND_MAX_PODS setting)")
DUMP = ("apiVersion: v1\nkind: List\nitems:\n- " + NODE.format(name="n1").replace("\n", "\n  ").rstrip()
        + "\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web, namespace: shop}\n"
        f"  spec:\n    replicas: {BILLION}\n    selector: {{matchLabels: {{app: web}}}}\n    template:\n"
        "      metadata: {labels: {app: web}}\n      spec: {containers: [{name: c, image: pause}]}\n")


def _peak_mb(fn: Any) -> tuple[Any, float]:
    tracemalloc.start()
    try:
        result = fn()
        return result, tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def test_a_new_scenario_with_a_billion_replicas_is_refused_and_nothing_is_stored(client: Client, settings) -> None:
    settings.PLAYGROUND_MAX_PODS = 20_000
    response, peak = _peak_mb(lambda: client.post(
        "/scenarios/", {"name": "x", "seed": "0", "file": SimpleUploadedFile("big.yaml", HUGE.encode())}))
    assert response.status_code == 400
    assert f"big.yaml: {WHERE}" in unescape(response.content.decode())
    assert not Scenario.objects.exists()
    assert peak < 100, f"the refusal allocated {peak:.0f} MB"


@pytest.mark.parametrize("how", ["pasted", "uploaded", "cluster-dump", "timeline"])
def test_every_import_path_refuses_before_building(client: Client, settings, how: str) -> None:
    settings.PLAYGROUND_MAX_PODS = 20_000
    scenario = create(client, yaml_text=NODE.format(name="only"))
    before = scenario_yaml(scenario=scenario)
    if how == "pasted":
        fields, expect = {"import-text": HUGE}, f"pasted YAML: {WHERE}"
    elif how == "uploaded":
        fields, expect = {"import-file": SimpleUploadedFile("up.yaml", HUGE.encode())}, f"up.yaml: {WHERE}"
    elif how == "cluster-dump":
        fields = {"import-file": SimpleUploadedFile("cluster.yaml", DUMP.encode())}
        expect = ("cluster.yaml: document 1 (Deployment shop/web): items[1].spec.replicas: too many pods: "
                  f"this Deployment would create {BILLION:,} pods")
    else:
        timeline = ("---\napiVersion: playground.kube-scheduler.dev/v1\nkind: Timeline\nactions:\n"
                    f"- {{at: 5, action: scaleDeployment, name: web, replicas: {BILLION}}}\n")
        text = HUGE.replace(f"replicas: {BILLION}", "replicas: 2") + timeline
        fields = {"import-text": text}
        expect = (f"pasted YAML: document 3 (Timeline): actions[0].replicas: too many pods ({BILLION + 2:,}); "
                  "the limit is 20,000 (raise it with the PLAYGROUND_MAX_PODS setting)")
    html, peak = _peak_mb(lambda: unescape(post(client, scenario, "import_yaml", **fields)))
    assert expect in html, html[:3000]
    assert scenario_yaml(scenario=scenario) == before
    assert peak < 100, f"the refusal allocated {peak:.0f} MB"


def test_a_deployment_within_the_limit_is_accepted(client: Client, settings) -> None:
    settings.PLAYGROUND_MAX_PODS = 40
    scenario = create(client, yaml_text=NODE.format(name="only"))
    ok = HUGE.replace(f"replicas: {BILLION}", "replicas: 40")
    assert "Imported pasted YAML" in post(client, scenario, "import_yaml", **{"import-text": ok})
    html = unescape(post(client, scenario, "import_yaml", **{"import-text": ok.replace("replicas: 40", "replicas: 41")}))
    assert "this Deployment would create 41 pods; the limit is 40" in html


@pytest.mark.parametrize(("action", "fields", "setting", "noun"), [
    ("bulk_nodes", {"bulknodes-count": "5", "bulknodes-prefix": "n", "bulknodes-zones": "0",
                    "bulknodes-cpu": "4", "bulknodes-memory": "8Gi", "bulknodes-pods": "110"},
     "PLAYGROUND_MAX_NODES", "nodes"),
    ("pod_batch", {"podbatch-count": "5", "podbatch-name": "web", "podbatch-namespace": "default",
                   "podbatch-with_replicaset": "on"}, "PLAYGROUND_MAX_PODS", "pods"),
])
def test_editor_bulk_helpers_count_against_the_limit_before_making_objects(
    client: Client, settings, action: str, fields: dict, setting: str, noun: str
) -> None:
    setattr(settings, setting, 3)
    scenario = create(client, yaml_text=NODE.format(name="only"))
    before = scenario_yaml(scenario=scenario)
    html = unescape(post(client, scenario, action, **fields))
    have = 1 if noun == "nodes" else 0
    assert (f"count: too many {noun} ({have} in the scenario and 5 more); the limit is 3 "
            f"(raise it with the {setting} setting)") in html, html[:3000]
    assert scenario_yaml(scenario=scenario) == before


def _owner(client: Client) -> Client:
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    return client


def _run_post(client: Client, run: Run, **fields: str) -> str:
    response = client.post(reverse("playground:run", args=[run.share_token]), {"action": "cluster", **fields},
                           HTTP_HX_REQUEST="true")
    assert response.status_code in (200, 400)  # an htmx form error, or the plain refusal
    return unescape(response.content.decode())


def test_run_actions_that_add_nodes_pods_or_replicas_respect_the_limits(client: Client, settings) -> None:
    run = svc.run_start(scenario=_scenario(), actor=OWNER)  # 2 nodes, 5 pods (2 web, 2 db, 1 lonely)
    _owner(client)
    settings.PLAYGROUND_MAX_NODES, settings.PLAYGROUND_MAX_PODS = 2, 7
    html = _run_post(client, run, what="addNode", name="n3")
    assert "too many nodes (3); the limit is 2 (raise it with the PLAYGROUND_MAX_NODES setting)" in html
    html = _run_post(client, run, what="scaleDeployment", deployment="shop/web", replicas="5")
    assert "replicas: too many pods (8); the limit is 7 (raise it with the PLAYGROUND_MAX_PODS setting)" in html
    settings.PLAYGROUND_MAX_PODS = 5
    html = _run_post(client, run, what="addPod", name="extra")
    assert "too many pods (6); the limit is 5 (raise it with the PLAYGROUND_MAX_PODS setting)" in html
    assert not RunAction.objects.filter(run=run).exists()


def test_the_worker_refuses_a_queued_addition_past_the_limit(settings) -> None:
    """The engine checks again when it applies a live action (something queued before may have
    added to the cluster): an ActionError, and the cluster is unchanged."""
    from playground.limits import web_limits
    from scheduler_core.api.errors import ActionError
    from scheduler_core.loader import load_scenario_text
    from scheduler_core.simulation import Simulation

    settings.PLAYGROUND_MAX_PODS = 6
    sim = Simulation(load_scenario_text(WORKLOADS))
    with pytest.raises(ActionError, match=r"replicas: too many pods \(1,000,000,003\); the limit is 6"):
        sim.apply_manifest_action({"action": "scaleDeployment", "name": "web", "namespace": "shop",
                                   "replicas": BILLION}, index=1, limits=web_limits())
    pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "x"}]}}
    sim.apply_manifest_action({"action": "addPod", "pod": pod}, index=2, limits=web_limits())
    with pytest.raises(ActionError, match=r"too many pods \(7\); the limit is 6"):
        sim.apply_manifest_action({"action": "addPod", "pod": {**pod, "metadata": {"name": "q"}}}, index=3,
                                  limits=web_limits())
    assert len(sim.scheduler.cluster.pods) == 6


def test_an_addition_written_past_the_request_check_fails_in_the_worker(inline_worker: list, settings) -> None:  # noqa: F811
    """Written to the log directly (as two requests racing could leave it), an addition past the
    limit fails in the worker with the limit's message, the run goes on, and a rebuild replays
    what was applied without checking the limit again."""
    from playground.services.runs.engine import Engine

    run = start("priority-preemption")
    pods = sum(1 for p in view_at(run=run, step=run.head_step)["pods"] if p.get("status") != "Deleted")
    settings.PLAYGROUND_MAX_PODS = pods
    pod = run_forms.cluster_action_from_form({"what": "addPod", "name": "extra"})
    bad = RunAction.objects.create(run=run, index=1, kind=RunAction.KIND_CLUSTER, params=pod)
    run_worker.advance_run(run.pk)
    bad.refresh_from_db()
    assert bad.state == RunAction.STATE_FAILED
    assert f"too many pods ({pods + 1:,}); the limit is {pods:,} (raise it with the PLAYGROUND_MAX_PODS setting)" in bad.result
    settings.PLAYGROUND_MAX_PODS = pods + 1
    ok = act(run, RunAction.KIND_CLUSTER, pod)
    assert ok.state == RunAction.STATE_DONE
    settings.PLAYGROUND_MAX_PODS = 1  # lowered afterwards: the stored run still rebuilds
    run.refresh_from_db()
    assert "default/extra" in Engine.rebuild(run).sim.scheduler.cluster.pods
