"""The strict field check runs once per object: `flatten_documents` skips the objects
`check_workload_documents` already checked, and that must change no entry, error or warning."""

import textwrap

import pytest
from helpers import NODE, pod

from scheduler_core.api.errors import ScenarioError
from scheduler_core.controllers.workloads import expand_workloads
from scheduler_core.loader.cluster_import import normalize_dump
from scheduler_core.loader.documents import (
    CheckedObjects,
    check_workload_documents,
    flatten_documents,
)
from scheduler_core.loader.strict import NotSimulated
from scheduler_core.loader.yaml_input import decode_yaml

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: app, image: pause, resources: {requests: {cpu: 100m}}}
"""
LIST = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n2, uid: u2}}
- apiVersion: v1
  kind: Pod
  metadata: {name: q, resourceVersion: '7'}
  spec: {containers: [{name: app, image: pause, imagePullPolicy: Always}]}
"""


def _docs(*texts: str) -> list:
    docs, duplicates = decode_yaml("\n---\n".join(textwrap.dedent(t) for t in texts), "s.yaml")
    assert not duplicates
    return docs


def _entries(entries) -> list:
    return [(e.doc, e.kind, e.api_version, id(e.obj)) for e in entries]


def _warnings(notes: NotSimulated) -> list:
    return [(str(w), w.more) for w in notes.warnings()]


@pytest.mark.parametrize("texts", [
    (NODE, pod("nodeName: n1\n"), DEPLOYMENT),
    (NODE, LIST, pod(name="r")),
    (LIST, DEPLOYMENT, DEPLOYMENT.replace("name: web}", "name: api}")),
])
def test_skipping_checked_objects_gives_the_same_entries_and_warnings(texts):
    docs = _docs(*texts)
    checked = check_workload_documents(docs, "s.yaml", NotSimulated())
    assert len(checked) > 0
    expanded, _ = expand_workloads(*normalize_dump(docs), "s.yaml")
    full, once = NotSimulated(), NotSimulated()
    assert _entries(flatten_documents(expanded, "s.yaml", once, checked)) == \
        _entries(flatten_documents(expanded, "s.yaml", full))
    # What is skipped are objects already checked: their warnings were noted by the first pass.
    first = NotSimulated()
    check_workload_documents(docs, "s.yaml", first)
    assert set(_warnings(full)) >= set(_warnings(once))


def test_objects_the_controllers_create_are_still_checked():
    docs = _docs(NODE, DEPLOYMENT)
    checked = check_workload_documents(docs, "s.yaml", NotSimulated())
    expanded, _ = expand_workloads(*normalize_dump(docs), "s.yaml")
    created = [d for d in expanded if isinstance(d, dict) and d.get("kind") == "List"]
    pods = [it for d in created for it in d["items"] if it.get("kind") == "Pod"]
    assert pods and not any(checked.contains(p, 2, "Pod") for p in pods)
    pods[0]["spec"]["nodeSelectr"] = {"a": "b"}  # as if a controller had written a wrong field
    with pytest.raises(ScenarioError) as info:
        flatten_documents(expanded, "s.yaml", NotSimulated(), checked)
    assert info.value.field and info.value.field.endswith("spec.nodeSelectr")


def test_an_object_is_skipped_only_as_the_kind_and_document_it_was_checked_as():
    obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}
    checked = CheckedObjects()
    checked.add(obj, 1, "Pod")
    assert checked.contains(obj, 1, "Pod")
    assert not checked.contains(obj, 2, "Pod")
    assert not checked.contains(obj, 1, "Node")
    assert not checked.contains(dict(obj), 1, "Pod")


@pytest.mark.parametrize("texts,field", [
    ((NODE, pod("nodeSelectr: {disk: ssd}\n")), "spec.nodeSelectr"),
    ((NODE, LIST.replace("imagePullPolicy", "imagePullPolicyy")), "items[1].spec.containers[0]"
                                                                   ".imagePullPolicyy"),
    ((NODE, DEPLOYMENT.replace("requests:", "request:")),
     "spec.template.spec.containers[0].resources.request"),
])
def test_errors_are_those_of_the_full_check(texts, field):
    docs = _docs(*texts)
    with pytest.raises(ScenarioError) as first:
        check_workload_documents(docs, "s.yaml", NotSimulated())
    assert first.value.field == field
    if "Deployment" not in texts[1]:
        with pytest.raises(ScenarioError) as full:
            flatten_documents(docs, "s.yaml", NotSimulated())
        assert str(full.value) == str(first.value)
