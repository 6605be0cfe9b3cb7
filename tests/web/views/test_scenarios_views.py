"""Scenario pages through Django's test client: forms, htmx fragments, import, sharing, bad input."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from playground.models import Scenario
from playground.ownership import SESSION_KEY
from playground.selectors.scenarios import scenario_manifests, scenario_yaml

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

HX = {"HTTP_HX_REQUEST": "true"}
NODE = "apiVersion: v1\nkind: Node\nmetadata: {{name: {name}}}\nstatus:\n  capacity: {{cpu: '4', memory: 8Gi}}\n"
GOOD = NODE.format(name="n1") + "---\n" + NODE.format(name="n2")


def create(client: Client, name: str = "Mine", yaml_text: str | None = None) -> Scenario:
    data: dict = {"name": name, "description": "", "seed": "0"}
    if yaml_text is not None:
        data["file"] = SimpleUploadedFile("start.yaml", yaml_text.encode())
    response = client.post("/scenarios/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    return Scenario.objects.get(share_token=response["Location"].split("/")[2])


def url(scenario: Scenario) -> str:
    return f"/scenarios/{scenario.share_token}/"


def post(client: Client, scenario: Scenario, action: str, **fields) -> str:
    response = client.post(url(scenario), {"action": action, **fields}, **HX)
    assert response.status_code == 200, response.content.decode()[:2000]
    return response.content.decode()


def node_fields(**overrides) -> dict:
    fields = {
        "kind": "Node",
        "node-name": "n9",
        "node-cpu": "8",
        "node-memory": "32Gi",
        "node-pods": "110",
        "node-zone": "zone-a",
        "node-labels": "disk=ssd",
        "node-taints": "",
        "node-unschedulable": "",
    }
    fields.update(overrides)
    return fields


def test_list_page_shows_gallery_and_my_scenarios(client: Client) -> None:
    Scenario.objects.create(name="Gallery one", is_gallery=True, gallery_slug="one", explanation="Watch this.")
    other = Client()
    create(other, name="Not mine")
    mine = create(client, name="Mine")
    html = client.get("/scenarios/").content.decode()
    assert "Gallery one" in html and "Watch this." not in html  # the explanation spoils the lesson
    assert url(mine) in html
    assert "Not mine" not in html
    assert client.session[SESSION_KEY] == mine.owner_token


def test_create_with_an_invalid_file_shows_the_error_and_creates_nothing(client: Client) -> None:
    response = client.post(
        "/scenarios/",
        {"name": "x", "seed": "0", "file": SimpleUploadedFile("bad.yaml", b"apiVersion: v1\nkind: Gizmo\n")},
    )
    assert response.status_code == 400
    assert "bad.yaml" in response.content.decode() and "unsupported kind" in response.content.decode()
    assert not Scenario.objects.exists()


def test_owner_sees_forms_and_others_see_read_only(client: Client) -> None:
    scenario = create(client, yaml_text=GOOD)
    owner_html = client.get(url(scenario)).content.decode()
    assert 'name="action" value="save_object"' in owner_html
    assert 'id="readonly-notice"' not in owner_html
    stranger = Client()
    html = stranger.get(url(scenario)).content.decode()
    assert 'id="readonly-notice"' in html
    assert 'value="save_object"' not in html and 'value="import_yaml"' not in html
    assert "n1" in html and "n2" in html
    response = stranger.post(url(scenario), {"action": "import_yaml", "import-text": NODE.format(name="x")}, **HX)
    assert response.status_code == 403
    assert stranger.get(url(scenario) + "?edit=1", **HX).status_code == 403
    assert [m["metadata"]["name"] for m in scenario_manifests(scenario=scenario)] == ["n1", "n2"]


def test_unknown_share_token_is_404(client: Client) -> None:
    assert client.get("/scenarios/not-a-real-token/").status_code == 404


def test_add_edit_delete_node_with_htmx_fragments(client: Client) -> None:
    scenario = create(client)
    html = post(client, scenario, "save_object", **node_fields())
    # the parts the save changed, each swapped in out-of-band by id, never the whole editor
    assert html.startswith('<div id="editor-messages" hx-swap-oob="true">')
    assert '<section class="panel object-section" id="node-section" hx-swap-oob="true">' in html
    assert 'id="pod-section"' not in html and 'id="bulk-section"' not in html
    assert '<div id="editor"' not in html and "<html" not in html  # a fragment, not a page
    assert "Node n9 saved." in html
    row = scenario.kube_objects.get()
    assert row.manifest["metadata"]["labels"] == {
        "disk": "ssd",
        "kubernetes.io/hostname": "n9",
        "topology.kubernetes.io/zone": "zone-a",
    }
    assert row.manifest["status"]["capacity"] == {"cpu": "8", "memory": "32Gi", "pods": "110"}

    form = client.get(url(scenario) + f"?edit={row.pk}", **HX).content.decode()
    assert 'value="32Gi"' in form and f'name="object_id" value="{row.pk}"' in form

    post(
        client,
        scenario,
        "save_object",
        object_id=row.pk,
        **node_fields(**{"node-taints": "dedicated=db:NoSchedule", "node-unschedulable": "on"}),
    )
    row.refresh_from_db()
    assert row.manifest["spec"] == {
        "taints": [{"key": "dedicated", "value": "db", "effect": "NoSchedule"}],
        "unschedulable": True,
    }
    html = post(client, scenario, "delete_object", object_id=row.pk)
    assert "deleted" in html
    assert not scenario.kube_objects.exists()


def test_invalid_node_shows_the_loaders_message_inline_and_changes_nothing(client: Client) -> None:
    scenario = create(client)
    html = post(client, scenario, "save_object", **node_fields(**{"node-cpu": "eight"}))
    assert 'invalid quantity "eight"' in unescape(html)
    # next to the cpu input, inside its field
    cpu_field = re.search(r'<div class="field has-error">\s*<label for="id_node-cpu".*?</div>', html, re.S)
    assert cpu_field and "invalid quantity" in cpu_field.group(0)
    assert 'value="eight"' in html  # the form keeps what was typed
    assert not scenario.kube_objects.exists()


def test_form_syntax_errors_are_reported(client: Client) -> None:
    scenario = create(client)
    html = post(client, scenario, "save_object", **node_fields(**{"node-taints": "no-effect-here"}))
    assert "is not key[=value]:Effect" in html
    assert not scenario.kube_objects.exists()


def test_pod_form_builds_a_manifest(client: Client) -> None:
    scenario = create(client, yaml_text=GOOD)
    post(
        client,
        scenario,
        "save_object",
        **{
            "kind": "PriorityClass",
            "priorityclass-name": "high",
            "priorityclass-value": "1000",
            "priorityclass-preemption_policy": "PreemptLowerPriority",
            "priorityclass-description": "",
        },
    )
    html = post(
        client,
        scenario,
        "save_object",
        **{
            "kind": "Pod",
            "pod-name": "web",
            "pod-namespace": "shop",
            "pod-cpu": "250m",
            "pod-memory": "1Gi",
            "pod-priority_class_name": "high",
            "pod-labels": "app=web",
            "pod-node_selector": "disk=ssd",
            "pod-tolerations": "dedicated=db:NoSchedule\nmaintenance:NoExecute:30\n*",
            "pod-scheduler_name": "",
        },
    )
    assert "Pod shop/web saved." in html
    pod = scenario.kube_objects.get(kind="Pod").manifest
    assert pod["metadata"] == {"name": "web", "namespace": "shop", "labels": {"app": "web"}}
    assert pod["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "250m", "memory": "1Gi"}}
    assert pod["spec"]["priorityClassName"] == "high" and pod["spec"]["nodeSelector"] == {"disk": "ssd"}
    assert pod["spec"]["tolerations"] == [
        {"key": "dedicated", "operator": "Equal", "value": "db", "effect": "NoSchedule"},
        {"key": "maintenance", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30},
        {"operator": "Exists"},
    ]


def test_pdb_form(client: Client) -> None:
    scenario = create(client)
    post(
        client,
        scenario,
        "save_object",
        **{
            "kind": "PodDisruptionBudget",
            "poddisruptionbudget-name": "guard",
            "poddisruptionbudget-namespace": "default",
            "poddisruptionbudget-selector": "app=db",
            "poddisruptionbudget-min_available": "2",
        },
    )
    pdb = scenario.kube_objects.get(kind="PodDisruptionBudget").manifest
    assert pdb["spec"] == {"selector": {"matchLabels": {"app": "db"}}, "minAvailable": 2}
    html = post(
        client,
        scenario,
        "save_object",
        **{
            "kind": "PodDisruptionBudget",
            "poddisruptionbudget-name": "guard2",
            "poddisruptionbudget-namespace": "default",
            "poddisruptionbudget-selector": "app=db",
            "poddisruptionbudget-min_available": "1",
            "poddisruptionbudget-max_unavailable": "1",
        },
    )
    assert "cannot be both set" in html


def test_scheduler_config(client: Client) -> None:
    scenario = create(client)
    html = post(client, scenario, "save_config", **{"config-config": "percentageOfNodesToScore: 30\n"})
    assert "Scheduler configuration saved." in html
    assert scenario.kube_objects.get().manifest["percentageOfNodesToScore"] == 30
    html = post(client, scenario, "save_config", **{"config-config": "percentageOfNodesToScore: 300\n"})
    assert "percentageOfNodesToScore" in html and 'class="error"' in html
    html = post(client, scenario, "save_config", **{"config-config": "a: [\n"})
    assert "Not valid YAML" in html
    assert scenario.kube_objects.get().manifest["percentageOfNodesToScore"] == 30


def test_import_bad_then_good_and_export(client: Client) -> None:
    scenario = create(client, yaml_text=GOOD)
    before = scenario_yaml(scenario=scenario)
    bad = GOOD + "---\n" + NODE.format(name="n3").replace("'4'", "four")
    upload = SimpleUploadedFile("cluster.yaml", bad.encode())
    html = post(client, scenario, "import_yaml", **{"import-file": upload})
    assert "cluster.yaml: document 3 (Node n3): status.capacity.cpu" in html
    assert scenario_yaml(scenario=scenario) == before

    good = GOOD + "---\n" + NODE.format(name="n3")
    html = post(client, scenario, "import_yaml", **{"import-text": good})
    assert "all objects replaced" in html
    assert [m["metadata"]["name"] for m in scenario_manifests(scenario=scenario)] == ["n1", "n2", "n3"]

    response = client.get(f"/scenarios/{scenario.share_token}/export.yaml")
    assert response["Content-Disposition"] == 'attachment; filename="mine.yaml"'
    assert response.streaming  # streamed, never one string in memory
    exported = b"".join(response.streaming_content).decode()
    assert exported == scenario_yaml(scenario=scenario)
    # importing the export changes nothing
    post(client, scenario, "import_yaml", **{"import-text": exported})
    assert scenario_yaml(scenario=scenario) == exported


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (b"\xff\xfe not utf-8", "not UTF-8 text"),
        (b"x" * (5 * 1024 * 1024 + 1), "too large"),
        (b"kind: Node\n  - broken: [", "YAML syntax error"),
        (b"apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n", 'unsupported kind "Secret"'),
        (
            b"a: &a [1,1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
            b"d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
            b"f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\nkind: Node\n",
            "alias expansion is too large",
        ),
        (
            b"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: i\n"
            b"    resources: {requests: {cpu: 1e999999}}\n",
            "quantity is too large",
        ),
    ],
    ids=["not-utf8", "too-large", "malformed", "unknown-kind", "alias-bomb", "absurd-quantity"],
)
def test_bad_uploads_are_explained_and_change_nothing(client: Client, settings, payload: bytes, expected: str) -> None:
    settings.PLAYGROUND_MAX_BYTES = 5 * 1024 * 1024  # the "too-large" case: a payload a little past it
    scenario = create(client, yaml_text=GOOD)
    before = scenario_yaml(scenario=scenario)
    html = post(client, scenario, "import_yaml", **{"import-file": SimpleUploadedFile("up.yaml", payload)})
    assert expected in unescape(html)
    assert scenario_yaml(scenario=scenario) == before


def test_oversized_paste_is_explained(client: Client, settings) -> None:
    settings.PLAYGROUND_MAX_BYTES = 5 * 1024 * 1024  # pastes a little past it; a body past it + 1 MiB
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 6 * 1024 * 1024
    scenario = create(client, yaml_text=GOOD)
    html = post(client, scenario, "import_yaml", **{"import-text": "# " + "x" * (5 * 1024 * 1024)})
    assert "too large" in html
    html = post(client, scenario, "import_yaml", **{"import-text": "# " + "x" * (7 * 1024 * 1024)})
    assert "The request is too large" in html
    assert scenario.kube_objects.count() == 2


def test_empty_import_form_asks_for_input(client: Client) -> None:
    scenario = create(client, yaml_text=GOOD)
    assert "Paste some YAML" in post(client, scenario, "import_yaml", **{"import-text": "  "})


def test_markup_in_user_data_is_escaped(client: Client) -> None:
    evil = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">'
    scenario = create(client, name=evil)
    post(client, scenario, "update_details", **{"details-name": evil, "details-description": evil, "details-seed": "3"})
    for page in (client.get("/scenarios/").content.decode(), client.get(url(scenario)).content.decode()):
        assert "<script>window.__xss" not in page and "<img src=x" not in page
        assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in page
    html = post(client, scenario, "save_object", **node_fields(**{"node-labels": f"team={evil}"}))
    assert "<script>window.__xss" not in html and "<img src=x" not in html
    assert "&lt;img src=x" in html  # the loader's message quotes the value, escaped
    assert not scenario.kube_objects.exists()


def test_csrf_is_enforced() -> None:
    client = Client(enforce_csrf_checks=True)
    scenario_client = Client()
    scenario = create(scenario_client)
    client.cookies = scenario_client.cookies
    response = client.post(url(scenario), {"action": "save_object", **node_fields()}, **HX)
    assert response.status_code == 403
    assert client.post("/scenarios/", {"name": "x", "seed": "0"}).status_code == 403
    page = client.get(url(scenario)).content.decode()
    assert 'hx-headers=\'{"X-CSRFToken": "' in page


def test_fork_a_shared_scenario(client: Client) -> None:
    owner = Client()
    original = create(owner, name="Shared", yaml_text=GOOD)
    response = client.post(url(original), {"action": "fork"})
    assert response.status_code == 302
    fork = Scenario.objects.exclude(pk=original.pk).get()
    assert response["Location"] == url(fork)
    assert fork.name == "Fork of Shared" and fork.forked_from == original
    assert fork.owner_token == client.session[SESSION_KEY]
    post(client, fork, "save_object", **node_fields())
    assert fork.kube_objects.count() == 3 and original.kube_objects.count() == 2
    # htmx fork answers with a client-side redirect
    response = client.post(url(original), {"action": "fork"}, **HX)
    assert response.status_code == 200 and response["HX-Redirect"].startswith("/scenarios/")


def test_gallery_is_read_only_and_forkable(client: Client) -> None:
    gallery = Scenario.objects.create(name="G", is_gallery=True, gallery_slug="g", explanation="Look here")
    response = client.get("/gallery/g/")
    assert response.status_code == 302 and response["Location"] == url(gallery)
    html = client.get(url(gallery)).content.decode()
    assert "gallery scenario" in html and "Look here" in html
    assert client.post(url(gallery), {"action": "import_yaml", "import-text": GOOD}, **HX).status_code == 403
    assert client.post(url(gallery), {"action": "fork"}).status_code == 302
    assert client.get("/gallery/nope/").status_code == 404


def test_bulk_helpers_through_the_page(client: Client) -> None:
    scenario = create(client)
    html = post(
        client,
        scenario,
        "bulk_nodes",
        **{
            "bulknodes-count": "4",
            "bulknodes-prefix": "w",
            "bulknodes-zones": "2",
            "bulknodes-cpu": "2",
            "bulknodes-memory": "4Gi",
            "bulknodes-pods": "110",
            "bulknodes-labels": "",
            "bulknodes-taints": "",
        },
    )
    assert "4 nodes added." in html
    html = post(
        client,
        scenario,
        "pod_batch",
        **{
            "podbatch-count": "3",
            "podbatch-name": "api",
            "podbatch-namespace": "default",
            "podbatch-cpu": "100m",
            "podbatch-memory": "",
            "podbatch-with_replicaset": "on",
        },
    )
    assert "3 pods of api added." in html
    assert scenario.kube_objects.filter(kind="Pod").count() == 3
    html = post(
        client,
        scenario,
        "bulk_nodes",
        **{
            "bulknodes-count": "0",
            "bulknodes-prefix": "w",
            "bulknodes-zones": "2",
            "bulknodes-cpu": "2",
            "bulknodes-memory": "4Gi",
        },
    )
    assert "greater than or equal to 1" in html


def test_delete_scenario(client: Client) -> None:
    scenario = create(client)
    assert Client().post(url(scenario), {"action": "delete_scenario"}).status_code == 403
    response = client.post(url(scenario), {"action": "delete_scenario"}, **HX)
    assert response["HX-Redirect"] == "/scenarios/"
    assert not Scenario.objects.exists()


def test_run_and_cycle_parameters_are_accepted(client: Client) -> None:
    scenario = create(client)
    assert client.get(url(scenario) + "?run=7&cycle=12").status_code == 200


def test_non_htmx_posts_redirect_or_render_the_page(client: Client) -> None:
    scenario = create(client)
    response = client.post(url(scenario), {"action": "save_object", **node_fields()})
    assert response.status_code == 302 and response["Location"] == url(scenario)
    assert "Node n9 saved." in client.get(url(scenario)).content.decode()
    response = client.post(
        url(scenario), {"action": "save_object", **node_fields(**{"node-name": "n8", "node-cpu": "x"})}
    )
    assert response.status_code == 400 and "<html" in response.content.decode()
    assert client.post(url(scenario), {"action": "explode"}).status_code == 400


def test_cancel_editing_returns_an_empty_form(client: Client) -> None:
    scenario = create(client)
    html = client.get(url(scenario) + "?new=Node", **HX).content.decode()
    assert html.lstrip().startswith('<div id="node-form"') and "Add a Node" in html
    assert client.get(url(scenario) + "?new=Secret", **HX).status_code == 404
    assert client.get(url(scenario) + "?edit=999999", **HX).status_code == 404


def test_pod_form_sets_ports_gates_anti_affinity_and_spread(client: Client) -> None:
    scenario = create(client, yaml_text=GOOD)
    base = {
        "kind": "Pod",
        "pod-name": "db",
        "pod-namespace": "default",
        "pod-cpu": "",
        "pod-memory": "",
        "pod-priority_class_name": "",
        "pod-labels": "app=db",
        "pod-node_selector": "",
        "pod-tolerations": "",
        "pod-scheduler_name": "",
        "pod-host_port": "5432",
        "pod-scheduling_gates": "approval, quota",
        "pod-anti_affinity": "kubernetes.io/hostname",
        "pod-spread": "topology.kubernetes.io/zone",
    }
    html = post(client, scenario, "save_object", **base)
    assert "Pod default/db saved." in html
    spec = scenario.kube_objects.get(kind="Pod").manifest["spec"]
    assert spec["containers"][0]["ports"] == [{"containerPort": 5432, "hostPort": 5432}]
    assert spec["schedulingGates"] == [{"name": "approval"}, {"name": "quota"}]
    assert spec["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}
    ]
    assert spec["topologySpreadConstraints"] == [
        {
            "maxSkew": 1,
            "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": "db"}},
        }
    ]
    # The engine reads them: the gated pod is never attempted.
    from playground.selectors.scenarios import scenario_yaml
    from scheduler_core.loader import load_scenario_text
    from scheduler_core.simulation import Simulation

    sim = Simulation(load_scenario_text(scenario_yaml(scenario=scenario)))
    assert sim.run() and sim.result(True)["pods"][0]["message"] is None
    # Spreading without labels is refused with a clear message, and nothing changes.
    html = post(client, scenario, "save_object", **{**base, "pod-name": "x", "pod-labels": ""})
    assert "select pods by these labels" in html
    assert scenario.kube_objects.filter(kind="Pod").count() == 1
