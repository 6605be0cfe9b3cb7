"""The strict check walks each distinct spec once (strict.py's `_SPEC_CHECKS`): replicas of one
spec are answered from the first walk, with the same "not simulated" notes, and a bad spec is
still refused at its own document and field, exactly as the full walk refuses it."""

import pytest
from helpers import NODE, load, pod

from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader import strict
from scheduler_core.loader.memo import ParseMemo, content_bytes

SPEC = "dnsPolicy: ClusterFirst\nrestartPolicy: Always\n"


@pytest.fixture(autouse=True)
def _empty_memo(monkeypatch):
    monkeypatch.setattr(strict, "_SPEC_CHECKS", ParseMemo())


def _without_memo(monkeypatch) -> None:
    monkeypatch.setattr(strict, "_spec_check_key", lambda kind, path, body: None)


def _replicas(count: int, bad: int | None = None) -> list[str]:
    """`count` pods of one spec (each bound to its own node name), the `bad`-th misspelt."""
    out = []
    for i in range(count):
        spec = SPEC + f"nodeName: n{i % 3}\n"
        if i == bad:
            spec += "tolerationz: []\n"
        out.append(pod(spec, name=f"p{i}"))
    return out


def test_each_distinct_spec_is_walked_once(monkeypatch):
    walked: list[str] = []
    real = strict.check_fields

    def counting(obj, spec, path, loc, notes):
        if path == "spec" and loc.kind == "Pod":
            walked.append(loc.name)
        return real(obj, spec, path, loc, notes)

    monkeypatch.setattr(strict, "check_fields", counting)
    scenario = load(NODE, *_replicas(30), pod("nodeName: n1\n", name="other"))
    assert len(scenario.pods) == 31
    # Two distinct specs (nodeName is left out of the key): two walks, not 31.
    assert walked == ["default/p0", "default/other"]


def test_replicas_get_the_same_warnings_as_the_full_walk(monkeypatch):
    shared = load(NODE, *_replicas(12))
    _without_memo(monkeypatch)
    full = load(NODE, *_replicas(12))
    assert [(str(w), w.more) for w in shared.warnings] == [(str(w), w.more) for w in full.warnings]
    noted = [w for w in shared.warnings if w.field == "spec.dnsPolicy"]
    assert len(noted) == 1 and noted[0].more == 11


@pytest.mark.parametrize("bad", [0, 7])
def test_a_misspelt_replica_is_refused_at_its_own_document(monkeypatch, bad):
    with pytest.raises(ScenarioError) as shared:
        load(NODE, *_replicas(10, bad=bad))
    _without_memo(monkeypatch)
    with pytest.raises(ScenarioError) as full:
        load(NODE, *_replicas(10, bad=bad))
    assert str(shared.value) == str(full.value)
    assert shared.value.document == bad + 2 and shared.value.field == "spec.tolerationz"
    assert shared.value.name == f"default/p{bad}"


def test_content_bytes_tells_types_apart():
    values = [{"a": 1}, {"a": True}, {"a": 1.0}, {"a": "1"}, {"a": [1]}, {"b": 1},
              {"a": 1, "b": 2}, {"b": 2, "a": 1}]
    keys = [content_bytes(v) for v in values]
    assert None not in keys and len(set(keys)) == len(values)
    assert content_bytes({"a": "x" + str(1)}) == content_bytes({"a": "x1"})
    looped: list = []
    looped.append(looped)
    assert content_bytes(looped) is None


def _owned(count: int, bad: int | None = None) -> list[str]:
    """`count` pods naming one owner (blockOwnerDeletion: noted as not simulated), the
    `bad`-th with a misspelt field in its reference."""
    out = []
    for i in range(count):
        extra = ", kindd: x" if i == bad else ""
        meta = ("ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u, "
                f"controller: true, blockOwnerDeletion: true{extra}}}]")
        out.append(pod(name=f"p{i}", meta=meta))
    return out


def test_owner_references_are_walked_once_with_the_same_notes(monkeypatch):
    walked: list[str] = []
    real = strict.check_fields

    def counting(obj, spec, path, loc, notes):
        if path == "metadata.ownerReferences":
            walked.append(loc.name)
        return real(obj, spec, path, loc, notes)

    monkeypatch.setattr(strict, "check_fields", counting)
    shared = load(NODE, *_owned(8))
    assert walked == ["default/p0"]
    _without_memo(monkeypatch)
    full = load(NODE, *_owned(8))
    assert [(str(w), w.more) for w in shared.warnings] == [(str(w), w.more) for w in full.warnings]
    assert any(w.field == "metadata.ownerReferences[0].blockOwnerDeletion" and w.more == 7
               for w in shared.warnings)


def test_a_misspelt_owner_reference_is_refused_at_its_own_document(monkeypatch):
    with pytest.raises(ScenarioError) as shared:
        load(NODE, *_owned(6, bad=4))
    _without_memo(monkeypatch)
    with pytest.raises(ScenarioError) as full:
        load(NODE, *_owned(6, bad=4))
    assert str(shared.value) == str(full.value)
    assert shared.value.document == 6 and shared.value.field == "metadata.ownerReferences[0].kindd"
