"""Scenario services and selectors (no HTTP): validation through the engine, atomicity, helpers."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied

from playground.manifests import split_documents
from playground.models import Scenario, ScenarioObject
from playground.ownership import Actor, can_edit
from playground.selectors.scenarios import (
    gallery_scenarios,
    scenario_manifests,
    scenario_yaml,
    scenarios_owned_by,
)
from playground.services import scenario_bulk, scenario_objects
from playground.services import scenarios as svc
from playground.services.scenario_bulk import NodeTemplate
from playground.services.scenario_validation import ScenarioInvalid

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

OWNER = Actor(session_token="owner-token")
STRANGER = Actor(session_token="someone-else")

NODE = """apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{kubernetes.io/hostname: {name}}}
status:
  capacity: {{cpu: '4', memory: 8Gi}}
"""
POD = """apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  containers:
  - name: app
    image: registry.k8s.io/pause:3.10
    resources:
      requests: {{cpu: {cpu}}}
"""
GOOD = NODE.format(name="n1") + "---\n" + NODE.format(name="n2") + "---\n" + POD.format(name="p1", cpu="1")


def make(yaml_text: str | None = GOOD, actor: Actor = OWNER) -> Scenario:
    return svc.scenario_create(actor=actor, name="test", yaml_text=yaml_text)


def kinds(scenario: Scenario) -> list[tuple[str, str]]:
    return list(scenario.kube_objects.values_list("kind", "name"))


def test_create_from_yaml_stores_one_row_per_object_in_document_order() -> None:
    scenario = make()
    assert kinds(scenario) == [("Node", "n1"), ("Node", "n2"), ("Pod", "p1")]
    pod = scenario.kube_objects.get(kind="Pod")
    assert pod.namespace == "default"
    assert pod.manifest["spec"]["containers"][0]["resources"]["requests"]["cpu"] == 1
    assert scenario.owner_token == OWNER.session_token
    assert len(scenario.share_token) >= 40


def test_export_round_trips_losslessly() -> None:
    scenario = make()
    exported = scenario_yaml(scenario=scenario)
    again = make(exported)
    assert scenario_manifests(scenario=again) == scenario_manifests(scenario=scenario)
    assert scenario_yaml(scenario=again) == exported
    assert split_documents(exported) == split_documents(GOOD)


def test_kind_list_is_flattened() -> None:
    text = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        "- " + NODE.format(name=n).replace("\n", "\n  ").rstrip() + "\n" for n in ("a", "b")
    )
    assert kinds(make(text)) == [("Node", "a"), ("Node", "b")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("kind: Node\napiVersion: v1\nmetadata: {name: [unclosed\n", "YAML syntax error"),
        ("apiVersion: v1\nkind: Gadget\nmetadata: {name: g}\n", 'unsupported kind "Gadget"'),
        (NODE.format(name="n1").replace("cpu: '4'", "cpu: 4 cores"), "invalid quantity"),
        (NODE.format(name="n1").replace("cpu: '4'", "cpu: 1e999999"), "status.capacity.cpu"),
        (POD.format(name="p1", cpu="-1"), "must be greater than or equal to 0"),
        (NODE.format(name="n1") + "---\n" + NODE.format(name="n1"), "Duplicate value"),
        ("- just\n- a list\n", "expected a Kubernetes object"),
        (NODE.format(name="Bad_Name"), "metadata.name"),
        (
            'a: &a ["x","x","x","x","x","x","x","x","x"]\n'
            + "".join(
                f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n"
                for p, c in zip("abcdefgh", "bcdefghi", strict=True)
            )
            + "kind: Node\n",
            "alias expansion",
        ),
    ],
    ids=[
        "malformed",
        "unknown-kind",
        "bad-quantity",
        "absurd-quantity",
        "negative",
        "duplicate",
        "not-object",
        "bad-name",
        "alias-bomb",
    ],
)
def test_bad_import_raises_the_loaders_message_and_changes_nothing(text: str, expected: str) -> None:
    scenario = make()
    before = scenario_manifests(scenario=scenario)
    with pytest.raises(ScenarioInvalid) as caught:
        svc.scenario_import_yaml(scenario=scenario, actor=OWNER, text=text, source="bad.yaml")
    assert expected in caught.value.message
    assert "bad.yaml" in caught.value.message
    assert scenario_manifests(scenario=scenario) == before


def test_size_limits_are_enforced(settings) -> None:
    settings.PLAYGROUND_MAX_BYTES = 5 * 1024 * 1024
    scenario = make()
    huge = "# " + "x" * (5 * 1024 * 1024) + "\n" + GOOD
    with pytest.raises(ScenarioInvalid, match="too large"):
        svc.scenario_import_yaml(scenario=scenario, actor=OWNER, text=huge)
    many_nodes = "---\n".join(f"{{apiVersion: v1, kind: Node, metadata: {{name: n{i}}}}}\n" for i in range(5001))
    with pytest.raises(ScenarioInvalid, match="too many nodes"):
        svc.scenario_import_yaml(scenario=scenario, actor=OWNER, text=many_nodes)
    assert scenario.kube_objects.count() == 3


def test_empty_import_empties_the_scenario() -> None:
    scenario = make()
    svc.scenario_import_yaml(scenario=scenario, actor=OWNER, text="# nothing\n")
    assert scenario.kube_objects.count() == 0


def test_only_the_owner_edits_and_gallery_is_read_only() -> None:
    scenario = make()
    assert can_edit(scenario=scenario, actor=OWNER)
    assert not can_edit(scenario=scenario, actor=STRANGER)
    assert not can_edit(scenario=scenario, actor=Actor())
    with pytest.raises(PermissionDenied):
        svc.scenario_import_yaml(scenario=scenario, actor=STRANGER, text=GOOD)
    with pytest.raises(PermissionDenied):
        svc.scenario_delete(scenario=scenario, actor=STRANGER)
    scenario.is_gallery = True
    scenario.save()
    assert not can_edit(scenario=scenario, actor=OWNER)
    with pytest.raises(PermissionDenied, match="fork"):
        scenario_objects.scenario_object_delete(scenario=scenario, actor=OWNER, object_id=scenario.kube_objects.first().pk)


def test_signed_in_users_own_by_user(django_user_model) -> None:
    user = django_user_model.objects.create_user(username="ada", password="x" * 12)
    actor = Actor(session_token="", user=user)
    scenario = make(actor=actor)
    assert scenario.owner == user
    assert can_edit(scenario=scenario, actor=Actor(session_token="another-browser", user=user))
    assert list(scenarios_owned_by(actor=Actor(user=user))) == [scenario]


def test_creating_needs_a_session_or_user() -> None:
    with pytest.raises(PermissionDenied):
        svc.scenario_create(actor=Actor(), name="x")


def test_object_save_validates_the_whole_scenario() -> None:
    scenario = make()
    pod = scenario.kube_objects.get(kind="Pod")
    manifest = dict(pod.manifest, spec={**pod.manifest["spec"], "priorityClassName": "missing"})
    with pytest.raises(ScenarioInvalid) as caught:
        scenario_objects.scenario_object_save(scenario=scenario, actor=OWNER, manifest=manifest, object_id=pod.pk)
    assert "missing" in caught.value.message
    assert caught.value.field == "spec.priorityClassName"
    pod.refresh_from_db()
    assert "priorityClassName" not in pod.manifest["spec"]


def test_object_add_edit_delete_keep_document_order() -> None:
    scenario = make()
    added = scenario_objects.scenario_object_save(
        scenario=scenario, actor=OWNER, manifest=split_documents(NODE.format(name="n3"))[0]
    )
    assert kinds(scenario)[-1] == ("Node", "n3")
    first = scenario.kube_objects.get(name="n1")
    renamed = split_documents(NODE.format(name="n1-renamed"))[0]
    scenario_objects.scenario_object_save(scenario=scenario, actor=OWNER, manifest=renamed, object_id=first.pk)
    assert kinds(scenario)[0] == ("Node", "n1-renamed")
    scenario_objects.scenario_object_delete(scenario=scenario, actor=OWNER, object_id=added.pk)
    assert ("Node", "n3") not in kinds(scenario)


def test_adding_a_duplicate_name_is_refused() -> None:
    scenario = make()
    with pytest.raises(ScenarioInvalid, match='Node named "n1" already exists'):
        scenario_objects.scenario_object_save(scenario=scenario, actor=OWNER, manifest=split_documents(NODE.format(name="n1"))[0])


def test_deleting_a_priority_class_in_use_is_refused() -> None:
    pc = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n"
    pod = POD.format(name="p9", cpu="1").replace("spec:\n", "spec:\n  priorityClassName: high\n")
    scenario = make(pc + "---\n" + pod)
    pc_row = scenario.kube_objects.get(kind="PriorityClass")
    with pytest.raises(ScenarioInvalid, match="high"):
        scenario_objects.scenario_object_delete(scenario=scenario, actor=OWNER, object_id=pc_row.pk)
    assert scenario.kube_objects.filter(kind="PriorityClass").exists()


def test_config_save_and_remove() -> None:
    scenario = make()
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "percentageOfNodesToScore": 50,
    }
    scenario_objects.scenario_config_save(scenario=scenario, actor=OWNER, config=config)
    assert scenario.kube_objects.get(kind="KubeSchedulerConfiguration").manifest == config
    with pytest.raises(ScenarioInvalid):
        scenario_objects.scenario_config_save(scenario=scenario, actor=OWNER, config={**config, "percentageOfNodesToScore": 500})
    assert scenario.kube_objects.get(kind="KubeSchedulerConfiguration").manifest == config
    scenario_objects.scenario_config_save(scenario=scenario, actor=OWNER, config=None)
    assert not scenario.kube_objects.filter(kind="KubeSchedulerConfiguration").exists()


def test_bulk_nodes_spread_over_zones_and_continue_numbering() -> None:
    scenario = make(None)
    scenario_bulk.scenario_nodes_add_bulk(
        scenario=scenario, actor=OWNER, count=6, prefix="worker", zones=3, template=NodeTemplate(cpu="2", memory="4Gi")
    )
    nodes = list(scenario.kube_objects.filter(kind="Node"))
    assert [n.name for n in nodes] == [f"worker-{i}" for i in range(1, 7)]
    zones = [n.manifest["metadata"]["labels"]["topology.kubernetes.io/zone"] for n in nodes]
    assert zones == ["zone-a", "zone-b", "zone-c"] * 2
    assert nodes[0].manifest["status"]["capacity"] == {"cpu": "2", "memory": "4Gi", "pods": "110"}
    scenario_bulk.scenario_nodes_add_bulk(
        scenario=scenario, actor=OWNER, count=2, prefix="worker", zones=0, template=NodeTemplate()
    )
    assert scenario.kube_objects.filter(kind="Node").count() == 8
    assert scenario.kube_objects.filter(name="worker-8").exists()


def test_bulk_nodes_with_bad_template_change_nothing() -> None:
    scenario = make(None)
    with pytest.raises(ScenarioInvalid, match="invalid quantity"):
        scenario_bulk.scenario_nodes_add_bulk(
            scenario=scenario, actor=OWNER, count=3, prefix="n", zones=1, template=NodeTemplate(cpu="lots")
        )
    assert scenario.kube_objects.count() == 0


def test_pod_batch_is_deployment_like() -> None:
    scenario = make()
    template = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"namespace": "shop"},
        "spec": {"containers": [{"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "100m"}}}]},
    }
    scenario_bulk.scenario_pods_add_batch(scenario=scenario, actor=OWNER, count=4, name="web", pod_template=template)
    pods = list(scenario.kube_objects.filter(kind="Pod", namespace="shop"))
    replicaset = scenario.kube_objects.get(kind="ReplicaSet")
    assert len(pods) == 4 and len({p.name for p in pods}) == 4
    hash_ = replicaset.manifest["spec"]["selector"]["matchLabels"]["pod-template-hash"]
    for pod in pods:
        assert pod.name.startswith(f"web-{hash_}-")
        assert pod.manifest["metadata"]["labels"] == {"app": "web", "pod-template-hash": hash_}
        assert pod.manifest["metadata"]["ownerReferences"][0]["name"] == replicaset.name
    assert replicaset.manifest["spec"]["replicas"] == 4
    scenario_bulk.scenario_pods_add_batch(
        scenario=scenario, actor=OWNER, count=2, name="web", pod_template=template, with_replicaset=False
    )
    assert scenario.kube_objects.filter(kind="Pod", namespace="shop").count() == 6
    assert scenario.kube_objects.filter(kind="ReplicaSet").count() == 1


def test_fork_copies_objects_for_the_forker() -> None:
    scenario = make()
    fork = svc.scenario_fork(scenario=scenario, actor=STRANGER)
    assert fork.pk != scenario.pk and fork.share_token != scenario.share_token
    assert fork.forked_from == scenario
    assert scenario_manifests(scenario=fork) == scenario_manifests(scenario=scenario)
    assert can_edit(scenario=fork, actor=STRANGER) and not can_edit(scenario=fork, actor=OWNER)
    svc.scenario_import_yaml(scenario=fork, actor=STRANGER, text=NODE.format(name="only"))
    assert scenario.kube_objects.count() == 3  # the original is untouched


def test_scenario_lists() -> None:
    mine = make()
    make(actor=STRANGER)
    gallery = Scenario.objects.create(name="g", is_gallery=True, gallery_slug="g")
    listed = list(scenarios_owned_by(actor=OWNER))
    assert listed == [mine]
    assert listed[0].node_count == 2 and listed[0].pod_count == 1
    assert list(gallery_scenarios()) == [gallery]
    assert list(scenarios_owned_by(actor=Actor())) == []


def test_rows_cascade_with_the_scenario() -> None:
    scenario = make()
    svc.scenario_delete(scenario=scenario, actor=OWNER)
    assert ScenarioObject.objects.count() == 0
