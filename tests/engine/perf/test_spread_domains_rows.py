"""PodTopologySpread's PreScore finds the candidates' domains from the filter walk's rows also
for pods whose counts it must walk (a nodeSelector: the kept sums cannot stand in), instead of
reading every candidate's labels; placements stay those of the walk.

At 65,000 nodes such a pod (the envelope's high-memory and GPU sets) has a few thousand
candidates, and the per-candidate label loop was ~1.4 s of a 2,000-pod late run's profile.
"""

from __future__ import annotations

import json

import pytest

from scheduler_core.framework.plugins.podtopologyspread.plugin import PodTopologySpread
from scheduler_core.framework.plugins.podtopologyspread.scoring import ScoringMixin
from scheduler_core.loader import CLI_LIMITS, load_scenario_text
from scheduler_core.simulation import Simulation

ZONES = ("zone-a", "zone-b", "zone-c")


def _scenario(nodes: int, pods: int) -> str:
    """Nodes in three zones, a tenth of them pool=big; a ReplicaSet's pods (system-default
    spreading) with a nodeSelector for the big pool, some already bound round robin."""
    docs = []
    for i in range(nodes):
        pool = "big" if i % 10 == 3 else "general"
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata:\n  name: n{i:05d}\n"
                    f"  labels: {{kubernetes.io/hostname: n{i:05d}, topology.kubernetes.io/zone: {ZONES[i % 3]}, "
                    f"pool: {pool}}}\nstatus: {{capacity: {{cpu: '8', memory: 32Gi, pods: '30'}}}}\n")
    docs.append("apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs, namespace: default, uid: uid-rs}\n"
                f"spec:\n  replicas: {pods}\n  selector: {{matchLabels: {{app: rs}}}}\n"
                "  template:\n    metadata: {labels: {app: rs}}\n"
                "    spec: {containers: [{name: c, image: pause}]}\n")
    for i in range(pods):
        bound = f"  nodeName: n{(i * 10 + 3) % nodes:05d}\n" if i < pods // 2 else ""
        docs.append(f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i:04d}\n  namespace: default\n"
                    "  labels: {app: rs}\n  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, "
                    f"uid: uid-rs, controller: true}}]\nspec:\n{bound}  nodeSelector: {{pool: big}}\n"
                    "  containers:\n  - name: c\n    image: pause\n"
                    "    resources: {requests: {cpu: 100m, memory: 128Mi}}\n")
    return "---\n".join(docs)


def _result(text: str, kept: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[str, int]:
    """The whole result and how many times PreScore read the candidates' labels one by one."""
    calls = 0
    walk = ScoringMixin._init_domains

    def counted(self, *args, **kwargs):  # noqa: ANN001, ANN202 - a pass-through spy
        nonlocal calls
        calls += 1
        return walk(self, *args, **kwargs)

    monkeypatch.setattr(PodTopologySpread, "use_kept_counts", kept)
    monkeypatch.setattr(ScoringMixin, "_init_domains", counted)
    sim = Simulation(load_scenario_text(text, source="s.yaml", limits=CLI_LIMITS), seed=1)
    return json.dumps(sim.result(sim.run()), sort_keys=True), calls


def test_selector_pods_take_their_domains_from_the_rows(monkeypatch):
    text = _scenario(2000, 120)
    fast, fast_walks = _result(text, True, monkeypatch)
    walked, walks = _result(text, False, monkeypatch)
    placed = [p for p in json.loads(fast)["pods"] if p["status"] == "Bound"]
    assert len(placed) == 120
    assert walks == 60, "the reference walks every pending pod's candidates"
    assert fast_walks == 0
    assert fast == walked


def test_normalize_reads_the_vector_scores_it_was_handed(monkeypatch):
    """The vector Score keeps its int64 scores beside the list it returns, and NormalizeScore
    reads them (no conversion of the list back to an array) for every pod it normalises;
    the placements stay those of the walk."""
    text = _scenario(2000, 120).replace("  nodeSelector: {pool: big}\n", "")
    seen: list[bool] = []
    normalize = ScoringMixin.normalize_score_values

    def spied(self, state, pod, scores):  # noqa: ANN001, ANN202 - a pass-through spy
        s = state.get("PreScore" + PodTopologySpread.name)
        rows = getattr(s, "row_scores", None)
        seen.append(rows is not None and rows[0] is scores and rows[1].tolist() == scores)
        return normalize(self, state, pod, scores)

    monkeypatch.setattr(ScoringMixin, "normalize_score_values", spied)
    fast, _ = _result(text, True, monkeypatch)
    assert len(seen) == 60 and all(seen)
    seen.clear()
    walked, _ = _result(text, False, monkeypatch)
    assert len(seen) == 60 and not any(seen)
    assert fast == walked
