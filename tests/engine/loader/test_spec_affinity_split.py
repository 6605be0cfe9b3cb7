"""Pods whose specs differ only in their affinity (a DaemonSet's, one node each) share the
rest of their parsed spec and parse only their own affinity (pods.py's `_with_own_affinity`):
the same pods, warnings and errors as a full parse of each spec."""

import pytest
from helpers import NODE, load, pod

from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader import pods as pods_module
from scheduler_core.loader.memo import ParseMemo


@pytest.fixture(autouse=True)
def _empty_memos(monkeypatch):
    monkeypatch.setattr(pods_module, "_SPECS", ParseMemo())
    monkeypatch.setattr(pods_module, "_SPECS_BUT_AFFINITY", ParseMemo())


def _full_parse(monkeypatch) -> None:
    monkeypatch.setattr(pods_module, "_but_affinity_key", lambda spec, labels, status: None)


def _pinned(i: int, values: str | None = None, labels: str = "app: d") -> str:
    values = values if values is not None else f"[n{i}]"
    return pod(f"""\
        tolerations: [{{key: k, operator: Exists}}]
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms: [{{matchFields: [{{key: metadata.name, operator: In, values: {values}}}]}}]
          podAntiAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
            - {{labelSelector: {{matchLabels: {{tier: x}}}}, topologyKey: zone, matchLabelKeys: [app]}}
        """, name=f"p{i}", meta=f"labels: {{{labels}}}")


def _view(scenario) -> list:
    return [(p.name, repr(p.containers), repr(p.tolerations), repr(p.affinity), p.labels)
            for p in scenario.pods]


def test_pods_differing_in_affinity_share_the_rest(monkeypatch):
    texts = [NODE, *(_pinned(i) for i in range(5)), _pinned(5, labels="app: e")]
    shared = load(*texts)
    pods = shared.pods
    assert all(p.containers is pods[0].containers and p.tolerations is pods[0].tolerations
               for p in pods)
    assert len({id(p.affinity) for p in pods}) == len(pods)
    _full_parse(monkeypatch)
    full = load(*texts)
    assert _view(shared) == _view(full)
    assert [str(w) for w in shared.warnings] == [str(w) for w in full.warnings]
    # matchLabelKeys read each pod's own labels: the last pod's term selects app=e.
    assert "'e'" in repr(pods[5].affinity) and "'e'" not in repr(pods[4].affinity)


@pytest.mark.parametrize("bad", ["[]", "[n1, n2]", "'x'"])
def test_a_bad_affinity_after_good_ones_is_refused_as_the_full_parse_refuses_it(monkeypatch, bad):
    texts = [NODE, _pinned(0), _pinned(1), _pinned(2, values=bad)]
    with pytest.raises(ScenarioError) as shared:
        load(*texts)
    _full_parse(monkeypatch)
    with pytest.raises(ScenarioError) as full:
        load(*texts)
    assert str(shared.value) == str(full.value)
    assert shared.value.document == 4 and shared.value.field.startswith("spec.affinity")
