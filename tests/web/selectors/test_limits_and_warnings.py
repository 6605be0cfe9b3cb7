"""The web's input limits are settings, strict errors change nothing, and fields accepted but not
simulated are listed once wherever manifests enter (upload, pasted YAML, import, forms)."""

from __future__ import annotations

import os
import subprocess
import sys
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from config.env import env_int
from playground.limits import web_limits
from playground.models import Scenario
from playground.selectors.scenarios import scenario_yaml
from tests.web.views.test_scenarios_views import GOOD, HX, NODE, create, post, url

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures"
POD = ("apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n{extra}  containers:\n"
       "  - name: app\n    image: pause\n{container}")
MISSPELLED = GOOD + "---\n" + POD.format(name="web", extra="  nodeSelectr: {disk: ssd}\n", container="")
PROBED = GOOD + "---\n" + POD.format(
    name="web", extra="", container="    livenessProbe: {exec: {command: ['true']}}\n    env: [{name: A, value: b}]\n")


def _dump_with_misspelling() -> str:
    text = (FIXTURES / "kubectl-get-all.yaml").read_text()
    first_pod = text.index("  kind: Pod\n  metadata:")
    spec = text.index("\n  spec:\n", first_pod) + len("\n  spec:\n")
    return text[:spec] + "    nodeSelectr: {disk: ssd}\n" + text[spec:]


# ---- limits ------------------------------------------------------------------------------------


def test_web_limits_come_from_settings(settings) -> None:
    settings.PLAYGROUND_MAX_NODES, settings.PLAYGROUND_MAX_PODS, settings.PLAYGROUND_MAX_BYTES = 7, 8, 9000
    limits = web_limits()
    assert (limits.max_nodes, limits.max_pods, limits.max_bytes) == (7, 8, 9000)
    assert "PLAYGROUND_MAX_PODS" in limits.refusal("max_pods", "too many pods (9)")


@pytest.mark.parametrize(
    ("setting", "value", "payload", "expected"),
    [
        ("PLAYGROUND_MAX_NODES", 1, GOOD, "too many nodes (2); the limit is 1 (raise it with the PLAYGROUND_MAX_NODES setting)"),
        ("PLAYGROUND_MAX_PODS", 1, PROBED + "---\n" + POD.format(name="two", extra="", container=""),
         "the limit is 1 (raise it with the PLAYGROUND_MAX_PODS setting)"),
        ("PLAYGROUND_MAX_BYTES", 100, GOOD, "the limit is 100 bytes (raise it with the PLAYGROUND_MAX_BYTES setting)"),
    ],
    ids=["nodes", "pods", "bytes"],
)
def test_every_way_in_is_refused_above_the_settings_limit(
    client: Client, settings, setting: str, value: int, payload: str, expected: str
) -> None:
    scenario = create(client, yaml_text=NODE.format(name="only"))
    before = scenario_yaml(scenario=scenario)
    setattr(settings, setting, value)
    for fields in ({"import-text": payload}, {"import-file": SimpleUploadedFile("up.yaml", payload.encode())}):
        html = unescape(post(client, scenario, "import_yaml", **fields))
        assert expected in html, html[:3000]
    # A new scenario started from a file, too (plain post: 400 with the form's error).
    response = client.post("/scenarios/", {"name": "x", "seed": "0",
                                           "file": SimpleUploadedFile("start.yaml", payload.encode())})
    assert response.status_code == 400 and expected in unescape(response.content.decode())
    assert scenario_yaml(scenario=scenario) == before
    assert Scenario.objects.count() == 1


def test_a_raised_limit_admits_what_the_default_refuses(client: Client, settings) -> None:
    settings.PLAYGROUND_MAX_NODES = 1
    scenario = create(client, yaml_text=NODE.format(name="only"))
    assert "PLAYGROUND_MAX_NODES" in post(client, scenario, "import_yaml", **{"import-text": GOOD})
    settings.PLAYGROUND_MAX_NODES = 2
    assert "Imported pasted YAML" in post(client, scenario, "import_yaml", **{"import-text": GOOD})
    assert scenario.kube_objects.count() == 2


def test_limit_settings_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAYGROUND_MAX_PODS", "50_000")
    assert env_int("PLAYGROUND_MAX_PODS", 20_000) == 50_000
    monkeypatch.delenv("PLAYGROUND_MAX_PODS")
    assert env_int("PLAYGROUND_MAX_PODS", 20_000) == 20_000
    monkeypatch.setenv("PLAYGROUND_MAX_PODS", "lots")
    with pytest.raises(ValueError, match=r"PLAYGROUND_MAX_PODS='lots' is not a whole number"):
        env_int("PLAYGROUND_MAX_PODS", 20_000)
    monkeypatch.setenv("PLAYGROUND_MAX_PODS", "0")
    with pytest.raises(ValueError, match="must be at least 1"):
        env_int("PLAYGROUND_MAX_PODS", 20_000)


def test_django_refuses_to_start_with_a_bad_limit_setting() -> None:
    env = dict(os.environ, PLAYGROUND_MAX_NODES="many")
    result = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "PLAYGROUND_MAX_NODES='many' is not a whole number" in result.stderr


# ---- strict errors -------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _loaded_in_the_request(settings: Any) -> None:
    """These read an upload's or import's answer in the request, as for a small file; the cluster
    dumps here are a worker's to load by default (services.scenario_uploads:
    test_big_upload_checked_by_worker.py), whose page shows the same errors and lists."""
    settings.PLAYGROUND_UPLOAD_WORKER_WEIGHT = 10**9


@pytest.mark.parametrize(
    ("fields", "where"),
    [
        ({"import-file": SimpleUploadedFile("app.yaml", MISSPELLED.encode())}, "app.yaml: document 3 (Pod default/web): spec.nodeSelectr"),
        ({"import-text": MISSPELLED}, "pasted YAML: document 3 (Pod default/web): spec.nodeSelectr"),
        ({"import-file": SimpleUploadedFile("cluster.yaml", _dump_with_misspelling().encode())},
         "cluster.yaml: document 1 (Pod kube-system/kube-proxy-npfrf): items[70].spec.nodeSelectr"),
    ],
    ids=["upload", "yaml-view", "cluster-import"],
)
def test_a_misspelled_field_is_refused_next_to_the_input_and_changes_nothing(
    client: Client, fields: dict, where: str
) -> None:
    scenario = create(client, yaml_text=GOOD)
    before = list(scenario.kube_objects.order_by("id").values_list("id", "manifest"))
    # htmx: the editor comes back with the error above the YAML input.
    html = unescape(post(client, scenario, "import_yaml", **{k: _rewound(v) for k, v in fields.items()}))
    errors = html[html.index('id="import-errors"'):]
    errors = errors[:errors.index("</div>")]
    assert f'{where}: unknown field "nodeSelectr"; did you mean "nodeSelector"?' in errors
    # A plain form post: 400 and the same message.
    response = client.post(url(scenario), {"action": "import_yaml", **{k: _rewound(v) for k, v in fields.items()}})
    assert response.status_code == 400
    assert 'did you mean "nodeSelector"?' in unescape(response.content.decode())
    assert list(scenario.kube_objects.order_by("id").values_list("id", "manifest")) == before


def _rewound(value):
    if hasattr(value, "seek"):
        value.seek(0)
    return value


def test_a_new_scenario_from_a_misspelled_file_is_refused(client: Client) -> None:
    response = client.post("/scenarios/", {"name": "x", "seed": "0",
                                           "file": SimpleUploadedFile("app.yaml", MISSPELLED.encode())})
    assert response.status_code == 400
    assert 'app.yaml: document 3 (Pod default/web): spec.nodeSelectr: unknown field "nodeSelectr"; did you mean ' \
           '"nodeSelector"?' in unescape(response.content.decode())
    assert not Scenario.objects.exists()


# ---- not simulated ------------------------------------------------------------------------------


def _listed(html: str) -> str:
    start = html.index('id="not-simulated"')
    return html[start:html.index("</details>", start)]


def test_pasted_yaml_lists_what_is_not_simulated_once(client: Client) -> None:
    scenario = create(client, yaml_text=GOOD)
    html = unescape(post(client, scenario, "import_yaml", **{"import-text": PROBED}))
    listed = _listed(html)
    assert "Accepted but not simulated: 2 fields" in listed
    assert "spec.containers[].livenessProbe: 1 Pod (first: document 3, Pod default/web)" in listed
    assert "spec.containers[].env: 1 Pod" in listed
    assert html.count('id="not-simulated"') == 1
    assert scenario.kube_objects.filter(kind="Pod").count() == 1  # accepted


def test_plain_upload_lists_them_after_the_redirect_then_forgets_them(client: Client) -> None:
    scenario = create(client, yaml_text=GOOD)
    response = client.post(url(scenario), {"action": "import_yaml",
                                           "import-file": SimpleUploadedFile("app.yaml", PROBED.encode())})
    assert response.status_code == 302
    html = unescape(client.get(url(scenario)).content.decode())
    assert "spec.containers[].livenessProbe: 1 Pod" in _listed(html)
    assert html.count("livenessProbe: 1 Pod") == 1  # in the list only, not also as a notice
    assert 'id="not-simulated"' not in client.get(url(scenario)).content.decode()


def test_a_new_scenario_from_a_file_lists_them(client: Client) -> None:
    response = client.post("/scenarios/", {"name": "x", "seed": "0",
                                           "file": SimpleUploadedFile("app.yaml", PROBED.encode())}, follow=True)
    assert "spec.containers[].livenessProbe: 1 Pod" in _listed(unescape(response.content.decode()))


def test_a_clean_import_lists_nothing(client: Client) -> None:
    scenario = create(client, yaml_text=GOOD)
    assert 'id="not-simulated"' not in post(client, scenario, "import_yaml", **{"import-text": GOOD})


def test_a_cluster_dump_lists_them_grouped_by_field(client: Client) -> None:
    scenario = create(client, yaml_text=GOOD)
    payload = (FIXTURES / "kubectl-get-all.yaml").read_bytes()
    html = unescape(post(client, scenario, "import_yaml", **{"import-file": SimpleUploadedFile("c.yaml", payload)}))
    listed = _listed(html)
    assert "metadata.managedFields: 30 Nodes, 4 PriorityClasses" in listed
    assert "spec.containers[].readinessProbe: 225 Pods" in listed
    assert "spec.replicas" not in listed  # the controllers read it: simulated
    assert 'id="import-summary"' in html


def test_saving_a_form_lists_what_that_object_carries(client: Client) -> None:
    scenario = create(client, yaml_text=PROBED)
    pod = scenario.kube_objects.get(kind="Pod")
    form = client.get(url(scenario), {"edit": pod.pk}, **HX).content.decode()
    assert 'name="pod-name"' in form
    fields = {"kind": "Pod", "object_id": str(pod.pk), "pod-name": "web", "pod-namespace": "default",
              "pod-cpu": "100m", "pod-memory": "", "pod-priority_class": "", "pod-node_selector": "",
              "pod-tolerations": "", "pod-labels": ""}
    response = client.post(url(scenario), {"action": "save_object", **fields}, **HX)
    html = unescape(response.content.decode())
    assert "Pod default/web saved." in html, html[:3000]
    assert "spec.containers[].livenessProbe: 1 Pod" in _listed(html)
    node = scenario.kube_objects.get(kind="Node", name="n1")
    html = unescape(post(client, scenario, "save_object", **{
        "kind": "Node", "object_id": str(node.pk), "node-name": "n1", "node-cpu": "4", "node-memory": "8Gi",
        "node-pods": "110", "node-zone": "", "node-labels": "", "node-taints": "", "node-unschedulable": ""}))
    assert "Node n1 saved." in html and 'id="not-simulated"' not in html  # the pod's fields are not repeated
