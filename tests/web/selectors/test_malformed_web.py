"""The malformed-input corpus through every web entry point: the new-scenario upload, the import
(a file), the YAML view (a paste), the scheduler configuration form, each object form (a few
representative invalid values per form) and the run's cluster actions. Every input is refused
with an error that says where (the file, and a line, document or field), nothing is stored (the
database is unchanged) and nothing answers with a server error (the test client re-raises any
exception a view lets through)."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from playground.models import Run, RunAction, Scenario, ScenarioObject
from playground.selectors.scenarios import scenario_yaml

pytestmark = pytest.mark.django_db

CORPUS = Path(__file__).resolve().parents[2] / "engine" / "loader" / "malformed"
FILES = sorted(CORPUS.glob("*.yaml"))
HX = {"HTTP_HX_REQUEST": "true"}
GOOD = (
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus:\n  capacity: {cpu: '4', memory: 8Gi}\n---\n"
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default}\nspec:\n  containers:\n"
    "  - name: c\n    image: i\n    resources: {requests: {cpu: 100m}}\n"
)
# Where an error says it is: a line, a document or a field of the named source.
LOCATED = re.compile(r"(line \d+|byte \d+|document \d+|\bdocument\b|spec\.|metadata\.|status\.|\.[a-zA-Z]+(\[\d+\])?:|: [a-z]+[A-Z]?\w*:)")


def snapshot() -> tuple[Any, ...]:
    """What the database holds of scenarios, their objects and runs' actions."""
    return (
        sorted(Scenario.objects.values_list("pk", "name", "updated_at")),
        sorted(ScenarioObject.objects.values_list("pk", "kind", "name", "manifest")),
        RunAction.objects.count(),
    )


def errors_of(html: str) -> str:
    """The text of the error elements of a page or fragment."""
    found = re.findall(r'class="(?:error|errorlist[^"]*)"[^>]*>(.*?)</(?:p|ul|li)>', html, flags=re.S)
    return unescape(" ".join(re.sub(r"<[^>]+>", " ", f) for f in found))


def assert_located(text: str, source: str) -> None:
    assert source in text, f"the error does not name {source}: {text[:400]}"
    assert LOCATED.search(text.split(source, 1)[1]), f"the error does not say where: {text[:400]}"


@pytest.fixture
def owner(client: Client) -> tuple[Client, Scenario]:
    response = client.post(
        "/scenarios/", {"name": "Mine", "description": "", "seed": "0", "file": SimpleUploadedFile("s.yaml", GOOD.encode())}
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    return client, Scenario.objects.get(share_token=response["Location"].split("/")[2])


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_new_scenario_upload_refuses(client: Client, path: Path) -> None:
    before = snapshot()
    upload = SimpleUploadedFile(path.name, path.read_bytes())
    response = client.post("/scenarios/", {"name": "Bad", "description": "", "seed": "0", "file": upload})
    assert response.status_code == 400
    assert_located(errors_of(response.content.decode()), path.name)
    assert snapshot() == before


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_import_file_refuses(owner: tuple[Client, Scenario], path: Path) -> None:
    client, scenario = owner
    before, text = snapshot(), scenario_yaml(scenario=scenario)
    upload = SimpleUploadedFile(path.name, path.read_bytes())
    response = client.post(f"/scenarios/{scenario.share_token}/", {"action": "import_yaml", "import-file": upload}, **HX)
    assert response.status_code == 200  # htmx shows the form with its errors
    assert_located(errors_of(response.content.decode()), path.name)
    assert snapshot() == before and scenario_yaml(scenario=scenario) == text


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_yaml_view_paste_refuses(owner: tuple[Client, Scenario], path: Path) -> None:
    client, scenario = owner
    before = snapshot()
    pasted = path.read_bytes().decode("utf-8", "replace")
    response = client.post(f"/scenarios/{scenario.share_token}/", {"action": "import_yaml", "import-text": pasted}, **HX)
    assert response.status_code == 200
    text = errors_of(response.content.decode())
    assert text.strip(), "no error shown"
    assert LOCATED.search(text) or "too large" in text or "UTF-8" in text, f"the error does not say where: {text[:400]}"
    assert snapshot() == before


CONFIG_FILES = [p for p in FILES if p.name.startswith("config-")]


@pytest.mark.parametrize("path", CONFIG_FILES, ids=[p.name for p in CONFIG_FILES])
def test_config_form_refuses(owner: tuple[Client, Scenario], path: Path) -> None:
    """The configuration documents of the corpus, pasted into the scheduler configuration form."""
    client, scenario = owner
    docs = [d for d in path.read_text().split("\n---\n") if "KubeSchedulerConfiguration" in d]
    assert docs, "a config- file of the corpus holds a configuration"
    before = snapshot()
    config = "\n---\n".join(docs)  # all of them: two configurations are refused too
    response = client.post(f"/scenarios/{scenario.share_token}/", {"action": "save_config", "config-config": config}, **HX)
    assert response.status_code == 200
    text = errors_of(response.content.decode())
    assert text.strip(), "no error shown"
    assert snapshot() == before


NODE = {"kind": "Node", "node-name": "n9", "node-cpu": "8", "node-memory": "32Gi", "node-pods": "110",
        "node-zone": "", "node-labels": "", "node-taints": "", "node-unschedulable": ""}
POD = {"kind": "Pod", "pod-name": "p9", "pod-namespace": "default", "pod-cpu": "100m", "pod-memory": "64Mi",
       "pod-priority_class_name": "", "pod-labels": "", "pod-node_selector": "", "pod-tolerations": ""}
PRIORITY = {"kind": "PriorityClass", "priorityclass-name": "high", "priorityclass-value": "1000",
            "priorityclass-preemption_policy": "PreemptLowerPriority", "priorityclass-global_default": ""}
PDB = {"kind": "PodDisruptionBudget", "poddisruptionbudget-name": "pdb", "poddisruptionbudget-namespace": "default",
       "poddisruptionbudget-selector": "app=web", "poddisruptionbudget-min_available": "1",
       "poddisruptionbudget-max_unavailable": ""}
FORM_CASES = [
    (NODE, "node-name", "Not_A_DNS_Name"),
    (NODE, "node-cpu", "lots"),
    (NODE, "node-memory", "-1Gi"),
    (NODE, "node-pods", "-5"),
    (NODE, "node-taints", "gpu=yes:Sometimes"),
    (NODE, "node-labels", "=novalue"),
    (POD, "pod-name", "UPPER_case"),
    (POD, "pod-cpu", "1e999999"),
    (POD, "pod-memory", "12 apples"),
    (POD, "pod-tolerations", "key=v:NoSchedule:notanumber"),
    (POD, "pod-node_selector", "a b=c"),
    (POD, "pod-priority_class_name", "Not Valid"),
    (PRIORITY, "priorityclass-name", "High Priority"),
    (PRIORITY, "priorityclass-value", "9999999999"),
    (PRIORITY, "priorityclass-preemption_policy", "Sometimes"),
    (PDB, "poddisruptionbudget-min_available", "-3"),
    (PDB, "poddisruptionbudget-selector", "app in (x"),
]


@pytest.mark.parametrize(("base", "field", "value"), FORM_CASES, ids=[f"{f}={v}" for _, f, v in FORM_CASES])
def test_object_forms_refuse(owner: tuple[Client, Scenario], base: dict, field: str, value: str) -> None:
    client, scenario = owner
    before = snapshot()
    response = client.post(
        f"/scenarios/{scenario.share_token}/", {"action": "save_object", **base, field: value}, **HX
    )
    assert response.status_code == 200
    text = errors_of(response.content.decode())
    assert text.strip(), f"{field}={value!r} was not refused"
    assert snapshot() == before


@pytest.mark.parametrize("where", ["new", "import"])
def test_ten_megabyte_paste_says_too_large(owner: tuple[Client, Scenario], settings, where: str) -> None:
    settings.PLAYGROUND_MAX_BYTES = 5 * 1024 * 1024  # a paste twice the limit (the default is 96 MiB)
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 6 * 1024 * 1024
    client, scenario = owner
    before = snapshot()
    paste = "# " + "x" * (10 * 1024 * 1024)
    if where == "new":
        response = client.post("/scenarios/", {"name": "Big", "description": "", "seed": "0", "text": paste})
        assert response.status_code == 400
    else:
        response = client.post(f"/scenarios/{scenario.share_token}/", {"action": "import_yaml", "import-text": paste}, **HX)
        assert response.status_code == 200
    html = response.content.decode()
    assert "too large" in html and "Traceback" not in html and "RequestDataTooBig" not in html
    assert "too large" in errors_of(html)  # next to the form, not a bare error page
    assert snapshot() == before


@pytest.fixture
def run(owner: tuple[Client, Scenario]) -> tuple[Client, Run]:
    client, scenario = owner
    response = client.post(f"/scenarios/{scenario.share_token}/runs/")
    assert response.status_code == 302
    return client, Run.objects.get(share_token=response["Location"].split("/")[2])


# Refused in the request today (the form's own checks).
RUN_ACTIONS = [
    {"what": "addPod", "name": ""},
    {"what": "addNode", "name": ""},
    {"what": "deletePod", "pod": ""},
    {"what": "node", "op": "explode", "node": "n1"},
    {"what": "addTaint", "node": "n1", "key": "k", "effect": "Sometimes"},
    {"what": "setScoreWeight", "plugin": "NodeResourcesFit", "weight": "heavy"},
    {"what": "teleport"},
]
# Answered "Queued" and refused later by the worker until the run-action validation checks the
# values in the request: strict, so the marker must go when that lands.
RUN_ACTIONS_LATE = [
    pytest.param({"what": "addPod", "name": "Bad_Name"}, id="addPod-bad-name"),
    pytest.param({"what": "addPod", "name": "p9", "cpu": "lots"}, id="addPod-bad-quantity"),
    pytest.param({"what": "addPod", "name": "p9", "priorityClassName": "nope"}, id="addPod-unknown-class"),
    pytest.param({"what": "addPod", "name": "p1"}, id="addPod-duplicate"),
    pytest.param({"what": "addNode", "name": "n9", "memory": "-8Gi"}, id="addNode-negative-memory"),
]


@pytest.mark.parametrize("fields", RUN_ACTIONS + RUN_ACTIONS_LATE)
def test_run_cluster_actions_refuse(run: tuple[Client, Run], fields: dict) -> None:
    client, the_run = run
    before = snapshot()
    response = client.post(f"/runs/{the_run.share_token}/", {"action": "cluster", **fields}, **HX)
    assert response.status_code == 400
    assert 'class="error' in response.content.decode() or "error" in response.content.decode()
    assert snapshot() == before
