"""A pod's label and annotation maps, its empty condition maps and its namespace string are shared
by the replicas that have the same ones (scheduler_core/loader/metadata.py, pods.py): a
checkpoint then writes each once, with no sharing pass of its own. What that must keep:

- equal content gives the same object, other content another one, and the result equals a full
  parse (order included);
- a bad map is still refused, located, even after an equal-looking good one was remembered;
- other kinds (nodes, namespaces: whose maps the loader goes on to change) get maps of their own;
- nothing changes a shared map in place: tests/engine/simulation/test_start_sharing.py runs the
  gallery to the end and finds every pod of the loaded scenario unchanged; here, that the
  gallery's replicas do share maps, so that run covers them, and that an in-place change would
  show in another pod.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader import load_scenario_file, load_scenario_text
from scheduler_core.loader import metadata as metadata_module
from scheduler_core.loader.memo import ParseMemo

GALLERY = Path(__file__).resolve().parents[3] / "playground" / "gallery"

POD = """---
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: {namespace}
  labels: {labels}
  annotations: {annotations}
spec:
  containers: [{{name: c, image: x}}]
"""
NODE = """---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{zone: a}}
status: {{capacity: {{cpu: '4', memory: 8Gi, pods: '110'}}}}
"""


@pytest.fixture(autouse=True)
def _empty_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(metadata_module, "_SHARED_MAPS", ParseMemo())


def _pod(name: str, labels: str = "{app: web, tier: front}", annotations: str = "{}",
         namespace: str = "shop") -> str:
    return POD.format(name=name, labels=labels, annotations=annotations, namespace=namespace)


def test_replicas_share_their_maps_and_namespace_and_other_content_gets_its_own() -> None:
    text = (_pod("a") + _pod("b") + _pod("c", labels="{app: web, tier: back}")
            + _pod("d", labels="{tier: front, app: web}", annotations="{note: hi}"))
    a, b, c, d = load_scenario_text(text, source="s.yaml").pods
    for field in ("labels", "annotations", "conditions", "condition_reasons"):
        assert getattr(a, field) is getattr(b, field), field
    assert a.namespace is b.namespace is c.namespace is d.namespace == "shop"
    assert c.labels is not a.labels and c.labels == {"app": "web", "tier": "back"}
    # The same pairs in another order are another map (the order is part of the content).
    assert d.labels is not a.labels and list(d.labels) == ["tier", "app"] and d.labels == a.labels
    assert d.annotations == {"note": "hi"} and d.annotations is not a.annotations
    assert a.labels == {"app": "web", "tier": "front"} and a.conditions == {} and a.condition_reasons == {}


def test_a_null_label_value_reads_as_empty_and_is_shared_like_any_other() -> None:
    a, b = load_scenario_text(_pod("a", labels="{app: null}") + _pod("b", labels="{app: null}"),
                              source="s.yaml").pods
    assert a.labels == {"app": ""} and a.labels is b.labels


@pytest.mark.parametrize(("labels", "message"), [
    ("{app: 1}", "metadata.labels.app"),  # an int equals no string: never taken for "1"
    ("{app: true}", "metadata.labels.app"),
    ("{'bad key!': x}", "metadata.labels"),
    ("[a, b]", "metadata.labels"),
])
def test_a_bad_map_is_refused_located_after_a_good_one_was_remembered(labels: str, message: str) -> None:
    good = _pod("a", labels="{app: '1'}")
    with pytest.raises(ScenarioError) as exc:
        load_scenario_text(good + _pod("b", labels=labels), source="s.yaml")
    assert message in str(exc.value) and "default/b" not in str(exc.value) and "shop/b" in str(exc.value)


def test_nodes_and_namespaces_keep_maps_of_their_own() -> None:
    text = NODE.format(name="n1") + NODE.format(name="n2") + _pod("a")
    sc = load_scenario_text(text, source="s.yaml")
    n1, n2 = sc.nodes
    assert n1.labels == n2.labels and n1.labels is not n2.labels
    shop = next(ns for ns in sc.namespaces if ns.name == "shop")
    assert shop.labels == {"kubernetes.io/metadata.name": "shop"}  # the loader added its name


def test_an_in_place_change_of_a_shared_map_would_show_in_the_other_replica() -> None:
    """Why the maps must never be changed in place (and what the gallery run rules out)."""
    a, b = load_scenario_text(_pod("a") + _pod("b"), source="s.yaml").pods
    a.conditions["DisruptionTarget"] = "True"
    assert b.conditions == {"DisruptionTarget": "True"}


def test_the_gallerys_replicas_share_maps_so_its_no_change_run_covers_them() -> None:
    """tests/engine/simulation/test_start_sharing.py's gallery run checks the scenario's pods are
    unchanged after a run; that covers the shared maps only if its pods share some."""
    shared = 0
    for path in sorted(GALLERY.glob("*.yaml")):
        pods = load_scenario_file(path).pods
        for field in ("labels", "conditions", "condition_reasons"):
            shared += len(pods) - len({id(getattr(p, field)) for p in pods})
    assert shared > 100
