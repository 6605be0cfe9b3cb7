"""The loader's shortcuts for what a big cluster repeats give what the full parse gives: the
container and label-map memos (copies of the first parse of the same content), the quick answers
for pods without device claims, and the UID computed without the uuid module."""

import dataclasses
import uuid

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.api.types import Container
from scheduler_core.api.uid import _UID_NAMESPACE, stable_uid
from scheduler_core.loader import containers as containers_module
from scheduler_core.loader import reader as reader_module
from scheduler_core.loader import resource_claim as resource_module
from scheduler_core.loader.containers import _parse_container, copy_container, parse_container
from scheduler_core.loader.memo import ParseMemo, content_key
from scheduler_core.loader.reader import FieldReader, Location
from scheduler_core.loader.resource_claim import check_container_claims, parse_pod_resource_claims

CONTAINERS = [
    {"name": "app", "image": "pause", "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}},
    {"name": "app", "image": "pause", "resources": {"requests": {"cpu": 1}, "limits": {"cpu": 2}}},
    {"name": "app", "image": "pause", "resources": {"requests": {"cpu": 1.0}, "limits": {"cpu": 2}}},
    {"name": "web", "ports": [{"containerPort": 80, "hostPort": 8080}, {"containerPort": 53,
                                                                         "protocol": "UDP"}]},
    {"name": "web", "ports": [{"containerPort": 80}]},
    {"name": "side", "restartPolicy": "Always", "resources": {"claims": [{"name": "gpu"}]}},
    {"name": "rules", "restartPolicy": "Never", "restartPolicyRules": [{"action": "Restart"}]},
]
BAD = [
    {"name": "app", "resources": {"requests": {"cpu": True}}},
    {"name": "app", "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}},
    {"name": "web", "ports": [{"containerPort": True}]},
    {"name": "Bad_Name"},
    {"name": "app", "resources": {"claims": "x"}},
]


def _reader() -> FieldReader:
    return FieldReader(Location("s.yaml", 1, "Pod", "default/p"))


@pytest.fixture(autouse=True)
def _empty_memo(monkeypatch):
    monkeypatch.setattr(containers_module, "_CONTAINERS", ParseMemo())


@pytest.mark.parametrize("init", [False, True])
@pytest.mark.parametrize("host_network", [False, True])
def test_a_remembered_container_equals_a_full_parse_and_shares_nothing_mutable(init, host_network):
    for raw in CONTAINERS:
        try:
            full = _parse_container(_reader(), raw, "spec.containers[0]", init=init,
                                    host_network=host_network)
        except ScenarioError:
            continue
        first = parse_container(_reader(), raw, "spec.containers[0]", init=init,
                                host_network=host_network)
        again = parse_container(_reader(), dict(raw), "spec.containers[0]", init=init,
                                host_network=host_network)
        assert first == full and again == full
        assert list(again.requests) == list(full.requests)  # order too
        for a, b in ((first, again), (again, full)):
            assert a.requests is not b.requests and a.limits is not b.limits
            assert a.ports is not b.ports and a.claims is not b.claims
            assert all(p is not q for p, q in zip(a.ports, b.ports, strict=True))


def test_values_that_compare_equal_are_told_apart():
    a = parse_container(_reader(), CONTAINERS[1], "c", init=False, host_network=False)
    b = parse_container(_reader(), CONTAINERS[2], "c", init=False, host_network=False)
    assert a == b  # 1 and 1.0 are the same quantity
    with pytest.raises(ScenarioError):
        parse_container(_reader(), {"name": "web", "ports": [{"containerPort": True}]}, "c",
                        init=False, host_network=False)
    parse_container(_reader(), {"name": "web", "ports": [{"containerPort": 1}]}, "c",
                    init=False, host_network=False)
    with pytest.raises(ScenarioError):
        parse_container(_reader(), {"name": "web", "ports": [{"containerPort": True}]}, "c",
                        init=False, host_network=False)


@pytest.mark.parametrize("raw", BAD)
def test_errors_are_those_of_the_full_parse_every_time(raw):
    with pytest.raises(ScenarioError) as full:
        _parse_container(_reader(), raw, "spec.containers[3]", init=False, host_network=False)
    for _ in range(2):
        with pytest.raises(ScenarioError) as memo:
            parse_container(_reader(), raw, "spec.containers[3]", init=False, host_network=False)
        assert str(memo.value) == str(full.value) and memo.value.field == full.value.field


def test_the_copy_covers_every_field_of_a_container():
    c = Container(name="a", image="i", requests={"cpu": 1}, limits={"cpu": 2}, ports=[],
                  restart_policy="Always", claims=[("x", "")], restart_rule_actions=("Restart",))
    copied = copy_container(c)
    assert copied == c
    assert {f.name for f in dataclasses.fields(Container)} == set(vars(copied))


def test_content_keys_tell_types_apart_and_refuse_self_containing_values():
    assert len({content_key(v) for v in ({"a": 1}, {"a": 1.0}, {"a": True}, {"a": "1"})}) == 4
    loop: list = []
    loop.append(loop)
    assert content_key({"a": loop}) is None


def test_the_uid_is_uuid5():
    for kind, ns, name, salt in [("Pod", "default", "p", ""), ("Node", "", "n-1", ""),
                                 ("Pod", "kube-system", "x" * 200, "s1"), ("Pod", "ü", "é", "")]:
        expected = str(uuid.uuid5(_UID_NAMESPACE, f"{kind}/{ns}/{name}{salt}"))
        assert stable_uid(kind, ns, name, salt) == expected


@pytest.mark.parametrize("spec,status", [
    ({"containers": [{"name": "a"}]}, None),
    ({"containers": [{"name": "a", "resources": {"claims": []}}]}, {}),
    ({"containers": [{"name": "a"}], "initContainers": None}, {"phase": "Running"}),
    ({"containers": [{"name": "a", "resources": {"claims": [{"name": "x"}]}}]}, None),
    ({"containers": [{"name": "a", "resources": {"claims": [{"name": "x"}]}}],
      "resourceClaims": [{"name": "x", "resourceClaimName": "c"}]}, None),
    ({"containers": [{"name": "a"}]}, {"resourceClaimStatuses": [{"name": "y"}]}),
    ({"containers": [{"name": "a", "resources": {"claims": [1]}}]}, None),
    ({"containers": [{"name": "a", "resources": {"claims": {}}}]}, None),
    ({"containers": [{"name": "a"}], "initContainers": "x"}, None),
    ({"containers": [{"name": "a"}], "resourceClaims": []}, {"resourceClaimStatuses": []}),
])
def test_quick_answers_for_pods_without_claims_match_the_full_reading(spec, status, monkeypatch):
    def outcome():
        try:
            found, statuses = parse_pod_resource_claims(_reader(), spec, status)
            check_container_claims(_reader(), spec, found)
        except ScenarioError as exc:
            return "error", str(exc)
        return "ok", [(c.name, c.resource_claim_name) for c in found], statuses

    quick = outcome()
    monkeypatch.setattr(resource_module, "_any_pod_claims", lambda spec, status: True)
    monkeypatch.setattr(resource_module, "_any_container_claims", lambda spec: True)
    assert quick == outcome()


LABEL_MAPS = [
    {"app": "web", "pod-template-hash": "7d9f8c6b5"},
    {"app": "web", "tier": None},
    {"app": "1"},
    {"app": 1},
    {"app": True},
    {"app": 1.0},
    {1: "x"},
    {"app": ["x"]},
    {"Bad Key": "x"},
    {"app": "bad value!"},
    {},
    None,
]


def test_a_remembered_label_map_equals_a_full_check(monkeypatch):
    monkeypatch.setattr(reader_module, "_LABELS", ParseMemo())

    def outcome(fn, raw):
        try:
            got = fn(raw, "metadata.labels")
        except ScenarioError as exc:
            return "error", str(exc), exc.field
        return "ok", list(got.items())

    reader = _reader()
    full = [outcome(reader._labels, raw) for raw in LABEL_MAPS]
    for _ in range(2):  # the second round answers the good maps from the memo
        assert [outcome(reader.labels, raw) for raw in LABEL_MAPS] == full
    first = reader.labels(LABEL_MAPS[0], "metadata.labels")
    again = reader.labels(dict(LABEL_MAPS[0]), "metadata.labels")
    assert first == again and first is not again
    again["app"] = "changed"
    assert reader.labels(LABEL_MAPS[0], "metadata.labels")["app"] == "web"


def _pods_text(*specs: tuple[str, str]) -> str:
    """Pod documents, each (name, the spec's extra YAML lines)."""
    docs = []
    for name, extra in specs:
        docs.append(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, labels: {{app: {name[0]}}}}}\n"
                    f"spec:\n{extra}  containers: [{{name: c, image: x, resources: {{requests: {{cpu: 250m}}}}}}]\n"
                    "  tolerations: [{key: k, operator: Exists, effect: NoSchedule}]\n")
    node = ("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
            "status: {capacity: {cpu: '4', memory: 8Gi, pods: '110'}}\n")
    return "---\n".join([node, *docs])


def _load_pods(text: str):
    from scheduler_core.loader import load_scenario_text

    return load_scenario_text(text, source="s.yaml").pods


def test_the_replicas_of_one_spec_share_its_parse_and_equal_a_full_parse(monkeypatch):
    """Pods whose specs have the same content share what it parses to (parsed once): the same
    containers, tolerations (after admission), selector and affinity objects; spec.nodeName and
    the names stay each pod's own (equal label maps are shared too: test_shared_pod_metadata.py).
    Every pod equals what a parse of its own gives."""
    from scheduler_core.loader import pods as pods_module

    spread = ("  topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule,"
              " labelSelector: {matchLabels: {tier: x}}, matchLabelKeys: [app]}]\n")
    text = _pods_text(("a1", "  nodeName: n1\n"), ("a2", ""), ("a3", "  nodeName: n2\n"),
                      ("b1", spread), ("c1", spread), ("b2", spread))
    monkeypatch.setattr(pods_module, "_SPECS", ParseMemo())
    shared = _load_pods(text)
    monkeypatch.setattr(pods_module, "_spec_key", lambda spec, labels, status: None)
    alone = _load_pods(text)
    assert shared == alone
    a1, a2, a3, b1, c1, b2 = shared
    assert a1.containers is a2.containers is a3.containers
    assert a1.tolerations is a2.tolerations is a3.tolerations and len(a1.tolerations) == 3
    assert [a1.node_name, a2.node_name, a3.node_name] == ["n1", "", "n2"]
    assert a1.name != a2.name and a1.uid != a2.uid
    # matchLabelKeys reads the pod's labels: equal specs with other labels parse apart.
    assert b1.topology_spread_constraints is b2.topology_spread_constraints
    assert b1.topology_spread_constraints is not c1.topology_spread_constraints
    assert b1.topology_spread_constraints != c1.topology_spread_constraints
    assert all(x.containers is not y.containers for x, y in zip(shared, alone, strict=True))


@pytest.mark.parametrize("before,extra,field", [
    (None, "  nodeName: Bad_Node\n  preemptionPolicy: Sometimes\n", "spec.nodeName"),
    (None, "  nodeName: n1\n  schedulingGates: [{name: g}]\n  preemptionPolicy: Sometimes\n", "spec.nodeName"),
    ("  nodeName: n2\n", "  nodeName: Bad_Node\n", "spec.nodeName"),
    ("  schedulingGates: [{name: g}]\n", "  nodeName: n1\n  schedulingGates: [{name: g}]\n", "spec.nodeName"),
    ("  nodeName: n1\n  preemptionPolicy: Never\n", "  preemptionPolicy: Sometimes\n", "spec.preemptionPolicy"),
])
def test_a_spec_parsed_before_reports_the_same_first_error(monkeypatch, before, extra, field):
    """A document whose spec (nodeName apart) was parsed before gets the error the full parse
    gives, the first in the spec's order: a bad nodeName before a later field's error."""
    from scheduler_core.loader import pods as pods_module

    monkeypatch.setattr(pods_module, "_SPECS", ParseMemo())
    first = [("a0", before)] if before is not None else []
    with pytest.raises(ScenarioError) as memo:
        _load_pods(_pods_text(*first, ("a1", extra)))
    assert memo.value.field == field and memo.value.document == len(first) + 2


def test_node_names_found_valid_are_remembered_and_bad_ones_refused_every_time(monkeypatch):
    from scheduler_core.loader import pods as pods_module

    monkeypatch.setattr(pods_module, "_VALID_NODE_NAMES", set())
    _load_pods(_pods_text(("a1", "  nodeName: n1\n"), ("a2", "  nodeName: n1\n")))
    assert pods_module._VALID_NODE_NAMES == {"n1"}
    for _ in range(2):
        with pytest.raises(ScenarioError) as bad:
            _load_pods(_pods_text(("a1", "  nodeName: n1\n"), ("a2", "  nodeName: N_1\n")))
        assert bad.value.field == "spec.nodeName" and bad.value.document == 3
    assert pods_module._VALID_NODE_NAMES == {"n1"}


def test_the_replicas_of_one_owner_share_its_parsed_references(monkeypatch):
    """Pods naming the same owner references share one parsed list; a bad reference is refused
    at its own field, every time."""
    from scheduler_core.loader import metadata as metadata_module

    monkeypatch.setattr(metadata_module, "_OWNER_REFERENCES", ParseMemo())
    owned = ("labels: {app: a}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, "
             "uid: u1, controller: true}]}")
    text = _pods_text(("a1", ""), ("a2", ""), ("b1", "")).replace("labels: {app: a}}", owned)
    a1, a2, b1 = _load_pods(text)
    assert a1.owner_references is a2.owner_references and b1.owner_references == []
    assert [(o.kind, o.name, o.uid, o.controller) for o in a1.owner_references] == [
        ("ReplicaSet", "rs", "u1", True)]
    bad_text = text.replace("controller: true}]}", "controller: 'true'}]}", 2)
    for _ in range(2):
        with pytest.raises(ScenarioError) as bad:
            _load_pods(bad_text)
        assert bad.value.field == "metadata.ownerReferences[0].controller" and bad.value.document == 2
