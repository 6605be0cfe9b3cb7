"""A 5,000-node scenario's pages stay light: paged lists, answers with the changed parts only, the
YAML a page at a time or streamed; a prepared run start is the start the engine would compute."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from playground.manifests import split_documents
from playground.models import PreparedStart, RunCheckpoint, RunEvent, RunFrame, Scenario, ScenarioObject
from playground.ownership import SESSION_KEY, Actor
from playground.presenters.scenarios import listing as listing_presenter
from playground.presenters.scenarios import yaml_view
from playground.selectors.scenarios import scenario_manifests, scenario_yaml
from playground.services import gallery, scenario_bulk, scenario_objects, scenario_validation
from playground.services import scenarios as scenario_service
from playground.services.runs import actions as run_service
from playground.services.runs import prepare
from playground.services.scenario_bulk import node_manifest
from playground.services.scenario_validation import ScenarioInvalid
from tests.web.views.test_scenarios_views import HX, NODE, create, post, url

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

PAGE_LIMIT = 500 * 1024


def _pod(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"pod-{i:05d}", "namespace": "default"},
        "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10",
                                 "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]},
    }


def big_scenario(client: Client, nodes: int = 5000, pods: int = 10000) -> Scenario:
    """A scenario owned by `client` with `nodes` nodes and `pods` pods, its rows written at once
    (what an upload stores, without parsing YAML in the test)."""
    scenario = create(client, name="Big")
    template = scenario_bulk.NodeTemplate(cpu="32", memory="128Gi")
    manifests = [node_manifest(name=f"node-{i:05d}", template=template, zone=f"zone-{i % 4}") for i in range(nodes)]
    manifests += [_pod(i) for i in range(pods)]
    ScenarioObject.objects.bulk_create(scenario_objects.build_rows(scenario, manifests), batch_size=1000)
    return scenario


@pytest.fixture(scope="module")
def big_ids(django_db_setup: None, django_db_blocker: Any) -> Any:
    """One 5,000 x 10,000 scenario for the module (15,000 rows are written once), and the
    session that owns it."""
    with django_db_blocker.unblock():
        client = Client()
        scenario = big_scenario(client)
        yield scenario.pk, client.session[SESSION_KEY]
        Scenario.objects.filter(pk=scenario.pk).delete()


def owner_client(session_token: str) -> Client:
    client = Client()
    session = client.session
    session[SESSION_KEY] = session_token
    session.save()
    return client


def test_the_page_of_a_5000_node_scenario_stays_small_with_no_row_per_node(big_ids: Any) -> None:
    pk, token = big_ids
    scenario = Scenario.objects.get(pk=pk)
    for client in (owner_client(token), Client()):  # the editor and the read-only page
        response = client.get(url(scenario))
        html = response.content.decode()
        assert response.status_code == 200
        assert len(response.content) <= PAGE_LIMIT, len(response.content)
        rows = re.findall(r'<li class="object-row" id="object-(\d+)"', html)
        assert len(rows) <= 2 * listing_presenter.PAGE_SIZE  # a page of nodes and one of pods
        assert "node-00000" in html and "node-04999" not in html and "pod-09999" not in html
        assert "5000 nodes · 10000 pods" in " ".join(unescape(html).split())  # counts by kind
        assert 'id="scenario-yaml"' not in html or "Paste manifests here" in html  # no 4 MB textarea
        assert "name: node-00001" not in html  # no YAML embedded at all
        assert 'id="yaml-page-link"' in html and 'id="node-search"' in html


def test_lists_are_searched_and_paged_by_name(big_ids: Any) -> None:
    pk, token = big_ids
    scenario = Scenario.objects.get(pk=pk)
    client = owner_client(token)
    base = f"/scenarios/{scenario.share_token}/objects"
    found = client.get(f"{base}/node/", {"q": "node-04999"}, **HX).content.decode()
    assert "node-04999" in found and found.count('class="object-row"') == 1
    assert "Edit Node node-04999" in found  # the owner's buttons come with the rows
    second = client.get(f"{base}/pod/", {"page": "2"}, **HX).content.decode()
    assert "default/pod-00025" in second and "default/pod-00024" not in second
    assert "26–50 of 10000" in second and len(second) < 60_000
    assert "Nothing here matches" in client.get(f"{base}/node/", {"q": "no-such-node"}).content.decode()
    assert client.get(f"{base}/secrets/").status_code == 404


def test_an_editor_post_answers_with_the_changed_parts_only(big_ids: Any, settings: Any) -> None:
    """When the request saves it (a big scenario's saves are a worker's by default:
    test_big_editor_save_by_worker.py), the answer carries the changed parts only."""
    settings.PLAYGROUND_UPLOAD_WORKER_WEIGHT = 10**9
    pk, token = big_ids
    scenario = Scenario.objects.get(pk=pk)
    client = owner_client(token)
    node = scenario.kube_objects.get(kind="Node", name="node-02500")
    fields = {"kind": "Node", "object_id": node.pk, "node-name": "node-02500", "node-cpu": "16",
              "node-memory": "128Gi", "node-pods": "110", "node-zone": "zone-0", "node-labels": "",
              "node-taints": "", "node-unschedulable": ""}
    html = post(client, scenario, "save_object", **fields)
    assert len(html.encode()) < 60_000, len(html.encode())
    assert "Node node-02500 saved." in html
    parts = re.findall(r'<(?:div|section|details)[^>]* id="([^"]+)" hx-swap-oob="true"', html)
    assert parts == ["editor-messages", "scenario-heading", "node-section", "yaml-section"]
    node.refresh_from_db()
    assert node.manifest["status"]["capacity"]["cpu"] == "16"


def test_a_refused_post_answers_with_its_form_and_message_only(client: Client) -> None:
    scenario = create(client, yaml_text=NODE.format(name="n1"))
    fields = {"kind": "Node", "node-name": "n2", "node-cpu": "lots", "node-memory": "8Gi", "node-pods": "110"}
    refused = unescape(post(client, scenario, "save_object", **fields))
    assert 'invalid quantity "lots"' in refused
    assert re.findall(r' id="([^"]+)" hx-swap-oob="true"', refused) == ["editor-messages", "node-section"]
    details = unescape(post(client, scenario, "update_details", **{"details-name": "Renamed", "details-seed": "3"}))
    assert re.findall(r' id="([^"]+)" hx-swap-oob="true"', details) == [
        "editor-messages", "scenario-heading", "details-section"]
    assert "Renamed" in details


def test_the_yaml_view_pages_the_documents_and_the_export_streams(big_ids: Any) -> None:
    pk, token = big_ids
    scenario = Scenario.objects.get(pk=pk)
    client = owner_client(token)
    page = client.get(f"/scenarios/{scenario.share_token}/yaml/", {"page": "2"})
    html = unescape(page.content.decode())
    assert page.status_code == 200 and len(page.content) < 100_000
    assert "name: node-00050" in html and "name: node-00099" in html
    assert "name: node-00049" not in html and "name: node-00100" not in html
    assert "documents 51–100 of 15000" in " ".join(html.split())
    last = scenario.kube_objects.get(name="pod-09999")
    shown = unescape(client.get(f"/scenarios/{scenario.share_token}/yaml/", {"object": last.pk}).content.decode())
    assert "name: pod-09999" in shown and "page 300 of 300" in shown

    export = client.get(f"/scenarios/{scenario.share_token}/export.yaml")
    assert export.streaming
    pieces = list(export.streaming_content)
    assert len(pieces) > 10  # sent in pieces, never one 4 MB string
    assert b"".join(pieces).decode() == scenario_yaml(scenario=scenario)


@pytest.mark.postgres
def test_a_page_of_documents_is_edited_in_place(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yaml_view, "DOCS_PER_PAGE", 2)
    text = "---\n".join(NODE.format(name=f"n{i}") for i in range(1, 6))
    scenario = create(client, yaml_text=text)
    yaml_url = f"/scenarios/{scenario.share_token}/yaml/"
    page = client.get(yaml_url, {"page": "2"})
    shown = unescape(page.content.decode())
    assert "name: n3" in shown and "name: n4" in shown and "name: n2" not in shown
    stamp = re.search(r'name="stamp" value="([^"]+)"', shown).group(1)

    # page 2 (n3, n4) becomes three documents: n3 changed, n4 gone, two new ones
    edited = NODE.format(name="n3").replace("'4'", "'8'") + "---\n" + NODE.format(name="x1") + "---\n" + NODE.format(
        name="x2")
    response = client.post(yaml_url, {"action": "save_documents", "first": "2", "count": "2", "stamp": stamp,
                                      "text": edited})
    assert response.status_code == 302 and response["Location"].endswith("?page=2")
    names = [m["metadata"]["name"] for m in scenario_manifests(scenario=scenario)]
    assert names == ["n1", "n2", "n3", "x1", "x2", "n5"]
    assert scenario_manifests(scenario=scenario)[2]["status"]["capacity"]["cpu"] == "8"

    # the page it was cut from changed since: refused, nothing written
    response = client.post(yaml_url, {"action": "save_documents", "first": "0", "count": "2", "stamp": stamp,
                                      "text": ""})
    assert response.status_code == 400 and "changed since this page was shown" in response.content.decode()
    # invalid YAML: the loader's message with the scenario's document number, nothing written
    stamp = re.search(r'name="stamp" value="([^"]+)"', client.get(yaml_url).content.decode()).group(1)
    bad = NODE.format(name="n1").replace("'4'", "'four'")
    response = client.post(yaml_url, {"action": "save_documents", "first": "0", "count": "1", "stamp": stamp,
                                      "text": bad})
    html = unescape(response.content.decode())
    assert response.status_code == 400 and "document 1 (Node n1): status.capacity.cpu" in html
    assert "'four'" in html  # the edited text is given back to fix
    assert [m["metadata"]["name"] for m in scenario_manifests(scenario=scenario)] == names
    # a stranger may read the pages but not save them
    assert Client().get(yaml_url).status_code == 200
    assert Client().post(yaml_url, {"action": "save_documents", "first": "0", "count": "1", "stamp": stamp,
                                    "text": ""}).status_code == 403


def test_small_scenarios_keep_the_whole_yaml_to_edit_in_the_editor(client: Client) -> None:
    scenario = create(client, yaml_text=NODE.format(name="n1"))
    html = client.get(url(scenario)).content.decode()
    assert re.search(r'<textarea name="import-text" id="scenario-yaml"[^>]*>[^<]*name: n1', html)


def test_the_kept_yaml_follows_every_change(client: Client) -> None:
    scenario = create(client, yaml_text=NODE.format(name="n1"))
    kept = prepare.scenario_yaml_prepare(scenario=scenario)
    assert Scenario.objects.get(pk=scenario.pk).yaml_cache == kept
    post(client, scenario, "import_yaml", **{"import-text": NODE.format(name="n2")})
    assert "name: n2" in scenario_yaml(scenario=scenario) and "name: n1" not in scenario_yaml(scenario=scenario)
    row = scenario.kube_objects.get()
    prepare.scenario_yaml_prepare(scenario=scenario)
    manifest = {**row.manifest, "metadata": {**row.manifest["metadata"], "labels": {"disk": "ssd"}}}
    actor = Actor(session_token=scenario.owner_token)
    scenario_objects.scenario_object_save(scenario=scenario, actor=actor, manifest=manifest, object_id=row.pk)
    assert "disk: ssd" in scenario_yaml(scenario=scenario)
    assert scenario_yaml(scenario=scenario) == b"".join(
        client.get(f"/scenarios/{scenario.share_token}/export.yaml").streaming_content).decode()


def _run_record(run: Any) -> tuple[list, list]:
    frames = list(RunFrame.objects.filter(run=run).values_list("step", "cycle", "first_seq", "last_seq", "view"))
    events = list(RunEvent.objects.filter(run=run).order_by("seq").values_list("seq", "type", "data"))
    return frames, events


@pytest.mark.postgres
def test_a_prepared_start_is_the_start_the_engine_computes() -> None:
    from scheduler_core.simulation import Simulation

    gallery.seed()
    scenario = Scenario.objects.get(gallery_slug="priority-preemption")
    actor = Actor(session_token="starter")
    prepare.prepare_start(scenario=scenario)
    kept = PreparedStart.objects.get(scenario=scenario)
    prepared_run = run_service.run_start(scenario=scenario, actor=actor)
    assert bytes(RunCheckpoint.objects.get(run=prepared_run, step=0).blob) == bytes(kept.checkpoint)
    PreparedStart.objects.all().delete()
    fresh_run = run_service.run_start(scenario=scenario, actor=actor)
    assert _run_record(prepared_run) == _run_record(fresh_run)
    a = Simulation.restore(bytes(RunCheckpoint.objects.get(run=prepared_run, step=0).blob))
    b = Simulation.restore(bytes(RunCheckpoint.objects.get(run=fresh_run, step=0).blob))
    for _ in range(5):  # the same engine: the same future
        assert a.step() == b.step()
        assert a.sink.events == b.sink.events
        a.sink.events, b.sink.events = [], []

    # another seed, or a changed scenario: computed afresh, never the kept start
    prepare.prepare_start(scenario=scenario)
    other = run_service.run_start(scenario=scenario, actor=actor, seed=scenario.seed + 1)
    assert bytes(RunCheckpoint.objects.get(run=other, step=0).blob) != bytes(
        PreparedStart.objects.get(scenario=scenario).checkpoint)


def test_a_page_edit_out_of_range_is_refused(client: Client) -> None:
    scenario = create(client, yaml_text=NODE.format(name="n1"))
    actor = Actor(session_token=scenario.owner_token)
    with pytest.raises(ScenarioInvalid, match="no longer there"):
        scenario_objects.scenario_documents_replace(scenario=scenario, actor=actor, first=3, count=1, text="")


@pytest.mark.postgres
def test_a_fork_gets_its_sources_kept_yaml_and_prepared_start() -> None:
    gallery.seed()
    source = Scenario.objects.get(gallery_slug="priority-preemption")
    prepare.prepare_start(scenario=source)
    kept = PreparedStart.objects.get(scenario=source)
    fork = scenario_service.scenario_fork(scenario=source, actor=Actor(session_token="student"))
    assert Scenario.objects.get(pk=fork.pk).yaml_cache == Scenario.objects.get(pk=source.pk).yaml_cache
    copied = PreparedStart.objects.get(scenario=fork)
    assert bytes(copied.checkpoint) == bytes(kept.checkpoint) and copied.key != kept.key
    run = run_service.run_start(scenario=fork, actor=Actor(session_token="student"))
    assert bytes(RunCheckpoint.objects.get(run=run, step=0).blob) == bytes(kept.checkpoint)
    assert run.scenario_yaml == scenario_yaml(scenario=source)


@pytest.mark.parametrize("path", sorted(gallery.GALLERY_DIR.glob("*.yaml")) + [FIXTURES / "kubectl-get-all.yaml"],
                         ids=lambda p: p.name)
def test_an_upload_parsed_once_stores_what_a_second_parse_would(path: Any) -> None:
    """The loader hands back the documents it decoded, and nothing it does changes them (its
    controllers copy what they expand): the rows are the file's objects, as written."""
    text = path.read_text()
    manifests, _warnings = scenario_validation.read_yaml_import(text, source=path.name)
    assert manifests == split_documents(text)
