"""A claim naming a DeviceClass the scenario lacks enters through every web path (a new
scenario's file, pasted YAML, the YAML view's page edit) as the API server accepts it: stored,
with a warning that says what the scheduler will do; a run then keeps the pod pending with
DynamicResources' own message."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from playground.models import RunAction, Scenario
from playground.services.runs import actions as svc
from tests.web.services.runs.test_runs_services import OWNER, act, inline_worker  # noqa: F401  (fixture)
from tests.web.views.test_scenarios_views import GOOD, create, post, url

pytestmark = pytest.mark.django_db

TEMPLATE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-tpu}
spec:
  spec:
    devices:
      requests:
      - {name: accel, exactly: {deviceClassName: tpu}}
"""
POD = """\
apiVersion: v1
kind: Pod
metadata: {name: train}
spec:
  resourceClaims:
  - {name: accel, resourceClaimTemplateName: one-tpu}
  containers:
  - name: app
    image: x
    resources: {requests: {cpu: 100m}, claims: [{name: accel}]}
"""
MISSING = GOOD + "---\n" + TEMPLATE + "---\n" + POD
LINE = ("document 3, ResourceClaimTemplate default/one-tpu: spec.spec.devices.requests[0].exactly.deviceClassName: "
        'DeviceClass "tpu" is not in the scenario')
SAYS = '"request accel: device class tpu does not exist"'


def _text(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def _listed(html: str) -> str:
    start = html.index('id="missing-references"')
    return _text(html[start:html.index("</details>", start)])


def test_a_new_scenario_from_the_file_is_stored_and_the_warning_says_what_the_scheduler_does(client: Client) -> None:
    response = client.post("/scenarios/", {"name": "x", "seed": "0",
                                           "file": SimpleUploadedFile("dra.yaml", MISSING.encode())}, follow=True)
    assert response.status_code == 200
    listed = _listed(response.content.decode())
    assert "1 reference to an object the scenario lacks" in listed
    assert LINE in listed and SAYS in listed
    scenario = Scenario.objects.get(name="x")
    assert scenario.kube_objects.filter(kind="ResourceClaimTemplate").count() == 1
    assert 'id="not-simulated"' not in response.content.decode()  # not mistaken for an ignored field
    # shown once, after the redirect; not again on the next visit
    assert 'id="missing-references"' not in client.get(url(scenario)).content.decode()


def test_pasted_yaml_lists_it(client: Client) -> None:
    scenario = create(client, yaml_text=GOOD)
    listed = _listed(post(client, scenario, "import_yaml", **{"import-text": MISSING}))
    assert LINE in listed and SAYS in listed
    assert scenario.kube_objects.count() == 4


def test_the_yaml_views_page_edit_lists_what_it_brought_in(client: Client) -> None:
    scenario = create(client, yaml_text=GOOD + "---\n" + POD)
    yaml_url = reverse("playground:scenario_yaml", args=[scenario.share_token])
    stamp = re.search(r'name="stamp" value="([^"]+)"', client.get(yaml_url).content.decode()).group(1)
    # the template goes in as document 3, before the pod
    response = client.post(yaml_url, {"action": "save_documents", "first": "2", "count": "0", "stamp": stamp,
                                      "text": TEMPLATE}, follow=True)
    assert response.status_code == 200
    listed = _listed(response.content.decode())
    assert LINE in listed and SAYS in listed
    assert scenario.kube_objects.filter(kind="ResourceClaimTemplate").count() == 1


def test_a_run_keeps_the_pod_pending_with_the_plugins_message(client: Client, inline_worker: list) -> None:  # noqa: F811
    from playground.services.scenarios import scenario_create

    run = svc.run_start(scenario=scenario_create(actor=OWNER, name="dra", yaml_text=MISSING), actor=OWNER)
    act(run, RunAction.KIND_PLAY)
    session = client.session
    session["playground_owner_token"] = OWNER.session_token
    session.save()
    html = _text(client.get(reverse("playground:run", args=[run.share_token])).content.decode())
    assert "request accel: device class tpu does not exist" in html
    failed = [e for e in run.events.filter(type="k8s_event").values_list("data", flat=True)
              if e.get("reason") == "FailedScheduling"]
    assert failed and failed[0]["message"].startswith(
        "0/2 nodes are available: request accel: device class tpu does not exist.")
    assert not run.events.filter(type="bound").exists()


ORPHAN = GOOD + """---
apiVersion: v1
kind: Pod
metadata: {name: orphan}
spec:
  nodeName: ghost
  containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]
"""


def test_a_pod_bound_to_a_missing_node_is_stored_and_its_run_pages_show_it(client: Client,
                                                                            inline_worker: list) -> None:  # noqa: F811
    response = client.post("/scenarios/", {"name": "orphan", "seed": "0",
                                           "file": SimpleUploadedFile("o.yaml", ORPHAN.encode())}, follow=True)
    listed = _listed(response.content.decode())
    assert 'document 3, Pod default/orphan: spec.nodeName: node "ghost" is not in the scenario' in listed
    from playground.services.scenarios import scenario_create

    run = svc.run_start(scenario=scenario_create(actor=OWNER, name="o", yaml_text=ORPHAN), actor=OWNER)
    act(run, RunAction.KIND_PLAY)
    page = reverse("playground:run", args=[run.share_token])
    html = client.get(page)
    assert html.status_code == 200
    assert "orphan" in _text(html.content.decode())
    pods = _text(client.get(reverse("playground:run_pods", args=[run.share_token])).content.decode())
    assert "orphan" in pods and "ghost" in pods
    for name in ("run_cluster", "run_events", "run_log", "run_export_json", "run_export_pods"):
        assert client.get(reverse(f"playground:{name}", args=[run.share_token])).status_code == 200, name
