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


_CONTAINER_VARIANTS = [
    "[{name: app, image: pause}]",
    "[{name: app, image: pause, imagePullPolicy: Always}]",
    "[{name: app, image: pause, livenessProbe: {exec: {command: [x]}}, imagePullPolicy: ''}]",
    "[{name: app, image: pause, imagePullPolicy: Always}, {name: b, image: x, stdin: true}]",
    "[{name: app, image: pause, imagePullPolice: Always}]",
    "[{name: app, image: pause, resources: {requests: {cpu: 1}, limitz: {}}}]",
]


def _outcome(docs: list, notes: NotSimulated) -> tuple:
    try:
        check_workload_documents(docs, "s.yaml", notes)
    except ScenarioError as exc:
        return "error", str(exc), exc.document, exc.field, exc.name, _warnings(notes)
    return "ok", _warnings(notes)


@pytest.mark.parametrize("order", [(0, 1, 2, 3, 1, 2, 3, 0), (1, 1, 4, 1), (2, 3, 5, 2), (3, 2, 1, 3, 3)])
def test_a_part_checked_before_gives_the_verdict_of_a_full_walk(monkeypatch, order):
    """Parts below an object's top-level fields (a pod's containers, their resources) checked
    before are answered from a memo: the same warnings (first object named, the others
    counted), and an unknown field refused at its own document and field, as a full walk."""
    from scheduler_core.loader import strict as strict_module
    from scheduler_core.loader.memo import ParseMemo

    texts = [pod(name=f"p{i}", spec="").replace("[{name: app, image: pause}]", "").replace(
        "  containers:\n  - {name: app, image: pause}\n", f"  containers: {_CONTAINER_VARIANTS[v]}\n")
        for i, v in enumerate(order)]
    monkeypatch.setattr(strict_module, "_VERDICTS", ParseMemo())
    remembered = _outcome(_docs(*texts), NotSimulated())
    hits = len(strict_module._VERDICTS._entries)
    monkeypatch.setattr(strict_module, "_check_part", lambda obj, spec, path, loc, notes, depth:
                        strict_module._check(obj, spec, path, loc, notes, depth))
    assert remembered == _outcome(_docs(*texts), NotSimulated())
    assert hits > 0
