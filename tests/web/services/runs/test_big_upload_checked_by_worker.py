"""Big uploads are loaded by a worker, not in the web request (services/scenario_uploads.py).

An upload whose estimated load (`load_weight`) reaches `PLAYGROUND_UPLOAD_WORKER_WEIGHT` is kept
as a `ScenarioUpload` and the request answers with its "checking" page at once; the worker's
part (`upload_check`, here called as the worker calls it; the live test below uses a real
worker) creates the scenario or records the loader's located error, changing nothing else.
Small uploads are loaded in the request as before.
"""

from __future__ import annotations

from html import unescape
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from bench.timeline_start import timeline_yaml
from playground.models import Scenario, ScenarioUpload
from playground.selectors.scenarios import scenario_manifests
from playground.services import scenario_uploads
from playground.services.scenario_uploads import load_weight, worker_weight
from tests.web.views.test_scenarios_views import GOOD, NODE, create

pytestmark = [pytest.mark.django_db]

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"


def big_timeline(*, bad_at: int | None = None) -> str:
    """The fewest timeline actions (by thousands) whose estimated load reaches the worker's
    weight: a node, a pod and a long Timeline; with `bad_at`, that action names no known action."""
    actions = 10_000
    while load_weight(timeline_yaml(actions)) < worker_weight():
        actions += 10_000
    text = timeline_yaml(actions)
    if bad_at is not None:
        verb = "uncordon" if bad_at % 2 else "cordon"
        bad = text.replace(f"- {{at: {bad_at + 1}, action: {verb},", f"- {{at: {bad_at + 1}, action: explode,", 1)
        assert bad != text, f"the timeline has no action {bad_at}"
        text = bad
    return text


def _new(client: Client, text: str, name: str = "Long timeline") -> Any:
    return client.post("/scenarios/", {"name": name, "description": "", "seed": "0",
                                       "file": SimpleUploadedFile("long.yaml", text.encode())})


def test_the_estimate_counts_bytes_workload_pods_and_daemonsets() -> None:
    assert load_weight(GOOD) < worker_weight()
    deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: 20000\n"
    assert load_weight(deployment) >= 20_000 > len(deployment)
    json_job = '{"kind": "Job", "spec": {"parallelism": 9000, "completions": 9000}}'
    assert load_weight(json_job) >= 18_000
    daemons = "---\n".join([f"kind: Node\nmetadata: {{name: n{i}}}\n" for i in range(100)]
                           + [f"kind: DaemonSet\nmetadata: {{name: d{i}}}\n" for i in range(100)])
    assert load_weight(daemons) >= 100 * 100


def test_a_small_upload_is_still_loaded_in_the_request(client: Client) -> None:
    response = _new(client, GOOD, name="Small")
    assert response.status_code == 302 and "/checking/" not in response["Location"]
    assert Scenario.objects.get(name="Small").kube_objects.count() == 2
    assert not ScenarioUpload.objects.exists()


def test_a_big_upload_answers_at_once_and_a_worker_creates_it(
    client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    text = big_timeline()
    with django_capture_on_commit_callbacks() as queued:
        response = _new(client, text)
    assert response.status_code == 302 and "/scenarios/checking/" in response["Location"]
    assert len(queued) == 1  # the worker's task, sent after the commit
    assert not Scenario.objects.filter(name="Long timeline").exists()  # nothing loaded yet
    upload = ScenarioUpload.objects.get()
    assert upload.status == ScenarioUpload.CHECKING and upload.text == text
    page = client.get(response["Location"])
    assert page.status_code == 200 and "Checking your scenario" in page.content.decode()
    assert 'hx-trigger="every 500ms"' in page.content.decode()
    assert Client().get(response["Location"]).status_code == 404  # only its uploader sees it

    scenario_uploads.upload_check(upload_id=upload.pk)  # the worker's part
    scenario = Scenario.objects.get(name="Long timeline")
    assert [m["kind"] for m in scenario_manifests(scenario=scenario)] == ["Node", "Pod", "Timeline"]
    upload.refresh_from_db()
    assert upload.status == ScenarioUpload.DONE and upload.scenario == scenario and upload.text == ""
    done = client.get(response["Location"])
    assert done.status_code == 302 and done["Location"] == f"/scenarios/{scenario.share_token}/"
    shown = client.get(done["Location"])
    assert shown.status_code == 200 and "Created from long.yaml." in shown.content.decode()
    assert "Created from" not in client.get(done["Location"]).content.decode()  # shown once
    polled = client.get(response["Location"], HTTP_HX_REQUEST="true")
    assert polled["HX-Redirect"] == done["Location"]


def test_a_big_invalid_upload_shows_the_located_error_and_creates_nothing(
    client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    before = Scenario.objects.count()
    with django_capture_on_commit_callbacks():
        response = _new(client, big_timeline(bad_at=20_000))
    upload = ScenarioUpload.objects.get()
    scenario_uploads.upload_check(upload_id=upload.pk)
    assert Scenario.objects.count() == before
    page = client.get(response["Location"])
    html = unescape(page.content.decode())
    assert page.status_code == 200 and "Not accepted" in html and "Nothing was created" in html
    assert "document 3" in html and "actions[20000]" in html and "explode" in html
    upload.refresh_from_db()
    assert upload.status == ScenarioUpload.FAILED and upload.text == ""
    assert upload.error_where["document"] == 3


def test_a_big_import_replaces_the_objects_through_a_worker(
    client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    scenario = create(client, yaml_text=GOOD)
    with django_capture_on_commit_callbacks():
        answer = client.post(f"/scenarios/{scenario.share_token}/", {
            "action": "import_yaml", "import-file": SimpleUploadedFile("long.yaml", big_timeline().encode())},
            HTTP_HX_REQUEST="true")
    assert "/scenarios/checking/" in answer["HX-Redirect"]
    assert scenario.kube_objects.count() == 2  # unchanged until the worker is done
    stranger = Client()
    assert stranger.get(answer["HX-Redirect"]).status_code == 404
    scenario_uploads.upload_check(upload_id=ScenarioUpload.objects.get().pk)
    assert [m["kind"] for m in scenario_manifests(scenario=scenario)] == ["Node", "Pod", "Timeline"]
    done = client.get(answer["HX-Redirect"])
    assert done["Location"] == f"/scenarios/{scenario.share_token}/"
    assert "Imported long.yaml: all objects replaced." in unescape(client.get(done["Location"]).content.decode())


def test_an_import_by_someone_else_is_refused_before_anything_is_kept(client: Client) -> None:
    scenario = create(client, yaml_text=GOOD)
    response = Client().post(f"/scenarios/{scenario.share_token}/", {
        "action": "import_yaml", "import-file": SimpleUploadedFile("long.yaml", big_timeline().encode())})
    assert response.status_code == 403
    assert not ScenarioUpload.objects.exists()


def test_a_yaml_view_edit_of_a_big_scenario_is_saved_by_a_worker(
    client: Client, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    scenario = create(client, yaml_text="---\n".join(NODE.format(name=f"n{i}") for i in range(1, 4)))
    settings.PLAYGROUND_UPLOAD_WORKER_WEIGHT = 20  # three stored objects weigh 24: "big" here
    yaml_url = f"/scenarios/{scenario.share_token}/yaml/"
    stamp = scenario.updated_at.isoformat()
    with django_capture_on_commit_callbacks():
        response = client.post(yaml_url, {"action": "save_documents", "first": "0", "count": "1", "stamp": stamp,
                                          "text": NODE.format(name="x1")})
    assert "/scenarios/checking/" in response["Location"]
    assert [m["metadata"]["name"] for m in scenario_manifests(scenario=scenario)] == ["n1", "n2", "n3"]
    scenario_uploads.upload_check(upload_id=ScenarioUpload.objects.get().pk)
    assert [m["metadata"]["name"] for m in scenario_manifests(scenario=scenario)] == ["x1", "n2", "n3"]
    assert client.get(response["Location"])["Location"] == f"{yaml_url}?page=1"


def test_a_cluster_dump_import_is_loaded_by_a_worker_and_summarised_on_the_page(
    client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    """The 1 MB kubectl dump: a 0.6 s load, but ~3 s with its reduction (services.cluster_import)."""
    scenario = create(client, yaml_text=GOOD)
    dump = (FIXTURES / "kubectl-get-all.yaml").read_bytes()
    with django_capture_on_commit_callbacks():
        answer = client.post(f"/scenarios/{scenario.share_token}/", {
            "action": "import_yaml", "import-file": SimpleUploadedFile("cluster.yaml", dump)}, HTTP_HX_REQUEST="true")
    assert "/scenarios/checking/" in answer["HX-Redirect"]
    scenario_uploads.upload_check(upload_id=ScenarioUpload.objects.get().pk)
    assert scenario.kube_objects.filter(kind="Pod").count() == 220
    html = unescape(client.get(client.get(answer["HX-Redirect"])["Location"]).content.decode())
    assert "Imported a kubectl-list cluster dump" in html and 'id="import-summary"' in html
    assert "dropped 4 Pod: finished (phase Succeeded): holds no resources" in html
    assert 'id="not-simulated"' in html


def test_a_big_upload_counts_toward_the_hourly_scenario_quota(
    redis_url: str, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """Charged by the request, as a small upload is (playground/middleware.py), before anything is kept."""
    settings.REDIS_URL = redis_url
    settings.PLAYGROUND_SCENARIOS_PER_HOUR = 1
    client = Client(REMOTE_ADDR="10.38.4.1")
    text = big_timeline()
    with django_capture_on_commit_callbacks():
        assert "/scenarios/checking/" in _new(client, text)["Location"]
        refused = _new(client, text)
    assert refused.status_code == 429 and "PLAYGROUND_SCENARIOS_PER_HOUR" in refused.content.decode()
    assert ScenarioUpload.objects.count() == 1
