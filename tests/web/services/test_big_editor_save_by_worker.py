"""An editor form's save or delete of one object in a big scenario is done by a worker.

Saving one object loads the whole scenario again to validate it (1.49 s of CPU for a Node of a
15,000-object scenario, bench/history/2026-11-22_to_2026-11-28.md). When the scenario's stored objects weigh as much as
`PLAYGROUND_UPLOAD_WORKER_WEIGHT` (8 units an object, as a YAML-view save counts them), the
request keeps the change as a `ScenarioUpload` and answers htmx with HX-Redirect to its
"checking" page; the worker's part (`upload_check`, called here as the task calls it) saves the
object or records the loader's located error, changing nothing. Small scenarios save in the request.
"""

from __future__ import annotations

from html import unescape
from typing import Any

import pytest
from django.test import Client

from playground.models import ScenarioUpload
from playground.selectors.scenarios import scenario_manifests
from playground.services import scenario_uploads
from playground.tasks.scenarios import check_scenario_upload_task
from tests.web.views.test_scenarios_views import HX, NODE, create, node_fields, post, url

pytestmark = [pytest.mark.django_db]

THREE = "---\n".join(NODE.format(name=f"n{i}") for i in range(1, 4))


def _names(scenario: Any) -> list[str]:
    return [m["metadata"]["name"] for m in scenario_manifests(scenario=scenario)]


def _send(client: Client, scenario: Any, captured: Any, **fields: Any) -> Any:
    with captured() as queued:
        response = client.post(url(scenario), fields, **HX)
    assert response.status_code == 200
    assert response["HX-Redirect"].startswith("/scenarios/checking/")
    assert len(queued) == 1  # the worker's task, sent after the commit
    return response


def test_an_added_node_of_a_big_scenario_is_saved_by_a_worker(
    client: Client, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    scenario = create(client, yaml_text=THREE)
    settings.PLAYGROUND_UPLOAD_WORKER_WEIGHT = 20  # three stored objects weigh 24: "big" here
    response = _send(client, scenario, django_capture_on_commit_callbacks, action="save_object", **node_fields())
    assert _names(scenario) == ["n1", "n2", "n3"]  # nothing loaded or saved in the request
    checking = client.get(response["HX-Redirect"])
    assert checking.status_code == 200 and 'id="upload-checking"' in checking.content.decode()
    assert "with Node n9 and saves it" in checking.content.decode()
    check_scenario_upload_task.run(ScenarioUpload.objects.get().pk)  # the worker's part, in this process
    assert _names(scenario) == ["n1", "n2", "n3", "n9"]
    added = scenario.kube_objects.get(name="n9").manifest
    assert added["status"]["capacity"] == {"cpu": "8", "memory": "32Gi", "pods": "110"}
    done = client.get(response["HX-Redirect"])
    assert done["Location"] == url(scenario)
    assert "Node n9 saved." in client.get(url(scenario)).content.decode()  # said once, on the scenario page


def test_an_edit_and_a_delete_of_a_big_scenario_go_through_the_worker(
    client: Client, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    scenario = create(client, yaml_text=THREE)
    settings.PLAYGROUND_UPLOAD_WORKER_WEIGHT = 20
    row = scenario.kube_objects.get(name="n2")
    _send(client, scenario, django_capture_on_commit_callbacks, action="save_object", object_id=row.pk,
          **node_fields(**{"node-name": "n2", "node-cpu": "16"}))
    scenario_uploads.upload_check(upload_id=ScenarioUpload.objects.latest("pk").pk)
    row.refresh_from_db()
    assert row.manifest["status"]["capacity"]["cpu"] == "16"
    _send(client, scenario, django_capture_on_commit_callbacks, action="delete_object", object_id=row.pk)
    assert _names(scenario) == ["n1", "n2", "n3"]
    scenario_uploads.upload_check(upload_id=ScenarioUpload.objects.latest("pk").pk)
    assert _names(scenario) == ["n1", "n3"]


def test_a_bad_object_of_a_big_scenario_is_refused_located_and_changes_nothing(
    client: Client, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    scenario = create(client, yaml_text=THREE)
    settings.PLAYGROUND_UPLOAD_WORKER_WEIGHT = 20
    before = scenario.kube_objects.order_by("pk").values_list("pk", "manifest")
    before = list(before)
    stamp = scenario.updated_at
    response = _send(client, scenario, django_capture_on_commit_callbacks, action="save_object",
                     **node_fields(**{"node-cpu": "eight"}))
    upload = ScenarioUpload.objects.get()
    scenario_uploads.upload_check(upload_id=upload.pk)
    upload.refresh_from_db()
    assert upload.status == ScenarioUpload.FAILED
    assert upload.error_where["kind"] == "Node" and upload.error_where["name"] == "n9"
    assert "cpu" in upload.error_where["field"]
    html = unescape(client.get(response["HX-Redirect"]).content.decode())
    assert 'id="upload-error"' in html and 'invalid quantity "eight"' in html and 'id="upload-where"' in html
    assert list(scenario.kube_objects.order_by("pk").values_list("pk", "manifest")) == before
    scenario.refresh_from_db()
    assert scenario.updated_at == stamp


def test_a_small_scenarios_save_stays_in_the_request(client: Client, settings: Any) -> None:
    scenario = create(client, yaml_text=THREE)
    settings.PLAYGROUND_UPLOAD_WORKER_WEIGHT = 25  # three stored objects weigh 24: small
    html = post(client, scenario, "save_object", **node_fields())
    assert "Node n9 saved." in html
    assert _names(scenario) == ["n1", "n2", "n3", "n9"]
    assert not ScenarioUpload.objects.exists()


BULK_NODES = {"bulknodes-count": "4", "bulknodes-prefix": "w", "bulknodes-zones": "2", "bulknodes-cpu": "2",
              "bulknodes-memory": "4Gi", "bulknodes-pods": "110", "bulknodes-labels": "", "bulknodes-taints": ""}
POD_BATCH = {"podbatch-count": "3", "podbatch-name": "api", "podbatch-namespace": "default",
             "podbatch-cpu": "100m", "podbatch-memory": "", "podbatch-with_replicaset": "on"}


@pytest.mark.parametrize(("action", "fields", "checking", "done"), [
    ("bulk_nodes", BULK_NODES, "with 4 new nodes and saves it", "4 nodes added."),
    ("pod_batch", POD_BATCH, "with 3 pods of api and saves it", "3 pods of api added."),
    ("save_config", {"config-config": "percentageOfNodesToScore: 30\n"},
     "with the scheduler configuration and saves it", "Scheduler configuration saved."),
], ids=["nodes", "pods", "config"])
def test_the_editors_batches_and_configuration_of_a_big_scenario_go_through_the_worker(
    client: Client, settings: Any, django_capture_on_commit_callbacks: Any, action: str, fields: dict[str, str],
    checking: str, done: str,
) -> None:
    """Adding nodes or pods in a batch and saving the scheduler configuration load the whole
    scenario again too: past the weight, the worker does it, and nothing changes before."""
    scenario = create(client, yaml_text=THREE)
    settings.PLAYGROUND_UPLOAD_WORKER_WEIGHT = 20
    response = _send(client, scenario, django_capture_on_commit_callbacks, action=action, **fields)
    assert scenario.kube_objects.count() == 3  # nothing loaded or saved in the request
    assert checking in client.get(response["HX-Redirect"]).content.decode()
    check_scenario_upload_task.run(ScenarioUpload.objects.get().pk)
    assert ScenarioUpload.objects.get().status == ScenarioUpload.DONE
    assert scenario.kube_objects.count() > 3
    assert client.get(response["HX-Redirect"])["Location"] == url(scenario)
    assert done in client.get(url(scenario)).content.decode()  # said once, on the scenario page


def test_a_bad_configuration_of_a_big_scenario_is_refused_by_the_worker_and_changes_nothing(
    client: Client, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    scenario = create(client, yaml_text=THREE)
    settings.PLAYGROUND_UPLOAD_WORKER_WEIGHT = 20
    response = _send(client, scenario, django_capture_on_commit_callbacks, action="save_config",
                     **{"config-config": "percentageOfNodesToScore: 300\n"})
    check_scenario_upload_task.run(ScenarioUpload.objects.get().pk)
    upload = ScenarioUpload.objects.get()
    assert upload.status == ScenarioUpload.FAILED and "percentageOfNodesToScore" in upload.error
    assert "percentageOfNodesToScore" in unescape(client.get(response["HX-Redirect"]).content.decode())
    assert _names(scenario) == ["n1", "n2", "n3"]
