"""A 5,000-digit integer (past Python's int<->text conversion limit) and other numbers no
Kubernetes field holds, through every web entry point: the new-scenario upload, the import of a
file or of a cluster dump, the YAML view's paste, the object forms and the run's cluster actions.
Each answers 400 (or the form again, with its error, for htmx) naming the field, and changes
nothing; the test client re-raises any exception a view lets through, so a 500 fails here."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from playground.models import Run, Scenario
from playground.selectors.scenarios import scenario_yaml
from tests.web.selectors.test_malformed_web import GOOD, HX, NODE, PDB, POD, PRIORITY, errors_of, snapshot

pytestmark = pytest.mark.django_db

BIG = "9" * 5000
POD_BIG = f"""apiVersion: v1
kind: Pod
metadata: {{name: web, namespace: default}}
spec:
  priority: {BIG}
  containers: [{{name: c, image: nginx}}]
"""
# A `kubectl get -o yaml` List: what the cluster import reads.
DUMP = f"""apiVersion: v1
kind: List
metadata: {{resourceVersion: "812"}}
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: worker-1
    uid: 0b4c1d2e-0000-4000-8000-000000000001
    resourceVersion: "811"
    creationTimestamp: "2026-01-01T00:00:00Z"
    managedFields: [{{manager: kubelet, operation: Update}}]
  status:
    allocatable: {{cpu: "4", memory: 8Gi, pods: {BIG}}}
"""
FIELD = "spec.priority: Invalid value: an integer of 5,000 digits is too large"


@pytest.fixture
def owner(client: Client) -> tuple[Client, Scenario]:
    response = client.post(
        "/scenarios/", {"name": "Mine", "description": "", "seed": "0", "file": SimpleUploadedFile("s.yaml", GOOD.encode())}
    )
    assert response.status_code == 302
    return client, Scenario.objects.get(share_token=response["Location"].split("/")[2])


def test_new_scenario_with_a_5000_digit_integer_is_400_naming_the_field(client: Client) -> None:
    before = snapshot()
    response = client.post("/scenarios/", {"name": "Big", "description": "", "seed": "0",
                                           "file": SimpleUploadedFile("big.yaml", POD_BIG.encode())})
    assert response.status_code == 400
    errors = errors_of(response.content.decode())
    assert "document 1 (Pod default/web)" in errors and FIELD in errors, errors[:500]
    assert snapshot() == before


DEPLOYMENT_BIG = f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: web, namespace: default}}
spec:
  replicas: {BIG}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers: [{{name: c, image: nginx}}]
"""


def test_a_5000_digit_replicas_is_400_in_the_request_not_a_workers_check(client: Client) -> None:
    """The upload's cost estimate reads workload sizes: a number no int32 holds is no size to
    weigh, so the request's own loader refuses it at once (not a worker's checking page)."""
    before = snapshot()
    response = client.post("/scenarios/", {"name": "Big", "description": "", "seed": "0",
                                           "file": SimpleUploadedFile("big.yaml", DEPLOYMENT_BIG.encode())})
    assert response.status_code == 400
    errors = errors_of(response.content.decode())
    assert "(Deployment default/web): spec.replicas: Invalid value: an integer of 5,000 digits" in errors, errors[:500]
    assert snapshot() == before


@pytest.mark.parametrize(("text", "named"), [
    (POD_BIG, FIELD),
    (DUMP, "(Node worker-1): status.allocatable.pods: Invalid value: an integer of 5,000 digits"),
], ids=["manifests", "cluster-dump"])
@pytest.mark.parametrize("how", ["file", "paste"])
def test_import_names_the_field(owner: tuple[Client, Scenario], text: str, named: str, how: str) -> None:
    client, scenario = owner
    before, yaml_before = snapshot(), scenario_yaml(scenario=scenario)
    data: dict[str, Any] = {"action": "import_yaml"}
    if how == "file":
        data["import-file"] = SimpleUploadedFile("big.yaml", text.encode())
    else:
        data["import-text"] = text
    response = client.post(f"/scenarios/{scenario.share_token}/", data, **HX)
    assert response.status_code == 200  # htmx: the form again, with its error
    errors = errors_of(response.content.decode())
    assert named in errors, errors[:500]
    plain = client.post(f"/scenarios/{scenario.share_token}/", {**data, **(
        {"import-file": SimpleUploadedFile("big.yaml", text.encode())} if how == "file" else {})})
    assert plain.status_code == 400
    assert named in errors_of(plain.content.decode())
    assert snapshot() == before and scenario_yaml(scenario=scenario) == yaml_before


FORM_CASES = [
    (NODE, "node-cpu", BIG),
    (NODE, "node-memory", BIG),
    (NODE, "node-pods", BIG),
    (POD, "pod-cpu", BIG),
    (POD, "pod-memory", f"0.{BIG}Ki"),
    (POD, "pod-tolerations", f"key=v:NoExecute:{BIG}"),
    (PRIORITY, "priorityclass-value", BIG),
    (PRIORITY, "priorityclass-value", "2147483648"),
    (PDB, "poddisruptionbudget-min_available", BIG),
]


@pytest.mark.parametrize(("base", "field", "value"), FORM_CASES, ids=[f"{f}={v[:12]}" for _, f, v in FORM_CASES])
def test_object_forms_refuse_numbers_out_of_range(owner: tuple[Client, Scenario], base: dict, field: str,
                                                  value: str) -> None:
    client, scenario = owner
    before = snapshot()
    response = client.post(f"/scenarios/{scenario.share_token}/", {"action": "save_object", **base, field: value}, **HX)
    assert response.status_code == 200
    assert errors_of(response.content.decode()).strip(), f"{field}={value[:20]} was not refused"
    assert snapshot() == before


@pytest.fixture
def run(owner: tuple[Client, Scenario]) -> tuple[Client, Run]:
    client, scenario = owner
    response = client.post(f"/scenarios/{scenario.share_token}/runs/")
    assert response.status_code == 302
    return client, Run.objects.get(share_token=response["Location"].split("/")[2])


@pytest.mark.parametrize("fields", [
    {"what": "addPod", "name": "p9", "cpu": BIG},
    {"what": "addNode", "name": "n9", "memory": BIG},
    {"what": "setScoreWeight", "plugin": "NodeResourcesFit", "weight": BIG},
], ids=["addPod-cpu", "addNode-memory", "weight"])
def test_run_cluster_actions_refuse_huge_numbers(run: tuple[Client, Run], fields: dict) -> None:
    client, the_run = run
    before = snapshot()
    response = client.post(f"/runs/{the_run.share_token}/", {"action": "cluster", **fields}, **HX)
    assert response.status_code == 400
    assert "error" in response.content.decode()
    assert snapshot() == before


def test_yaml_page_edit_answers_400_naming_the_field(owner: tuple[Client, Scenario]) -> None:
    """The YAML view's in-place edit of a page of documents (save_documents)."""
    client, scenario = owner
    yaml_url = f"/scenarios/{scenario.share_token}/yaml/"
    stamp = re.search(r'name="stamp" value="([^"]+)"', client.get(yaml_url).content.decode()).group(1)
    before, yaml_before = snapshot(), scenario_yaml(scenario=scenario)
    node = f"apiVersion: v1\nkind: Node\nmetadata: {{name: n1}}\nstatus:\n  capacity: {{cpu: '4', pods: {BIG}}}\n"
    response = client.post(yaml_url, {"action": "save_documents", "first": "0", "count": "1", "stamp": stamp,
                                      "text": node})
    assert response.status_code == 400
    html = unescape(response.content.decode())
    assert "(Node n1): status.capacity.pods: Invalid value: an integer of 5,000 digits is too large" in html, \
        html[:2000]
    assert snapshot() == before and scenario_yaml(scenario=scenario) == yaml_before


@pytest.mark.parametrize("config", [
    f"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nparallelism: {BIG}\n",
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
    "- schedulerName: default-scheduler\n  plugins: {score: {enabled: [{name: NodeResourcesFit, weight: "
    + BIG + "}]}}\n",
], ids=["parallelism", "weight"])
def test_config_form_refuses_a_5000_digit_integer(owner: tuple[Client, Scenario], config: str) -> None:
    client, scenario = owner
    before = snapshot()
    response = client.post(f"/scenarios/{scenario.share_token}/", {"action": "save_config", "config-config": config},
                           **HX)
    assert response.status_code == 200
    errors = errors_of(response.content.decode())
    assert "an integer of 5,000 digits is too large" in errors, errors[:500]
    assert snapshot() == before
