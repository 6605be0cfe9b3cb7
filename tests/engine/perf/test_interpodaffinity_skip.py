"""InterPodAffinity's early Skip (a pod without affinity, and no existing pod that could count)
gives what building its PreFilter / PreScore state gives.

The same pod with an empty `Affinity()` (no terms either) goes the long way; both must answer
alike, on clusters with and without pods that carry (anti-)affinity terms."""

from __future__ import annotations

from dataclasses import replace

import pytest

from scheduler_core.api.types import Affinity
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.loader import load_scenario_file
from scheduler_core.simulation import Simulation

_ANTI = """  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: a}}
        topologyKey: kubernetes.io/hostname
    podAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 3
        podAffinityTerm:
          labelSelector: {matchLabels: {app: a}}
          topologyKey: zone
"""


def _yaml(with_terms: bool) -> str:
    docs = []
    for i in range(4):
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata:\n  name: n{i}\n"
                    f"  labels: {{kubernetes.io/hostname: n{i}, zone: z{i % 2}}}\n"
                    "status:\n  capacity: {cpu: '4', memory: 8Gi, pods: '10'}\n")
    for j in range(6):
        spec = f"spec:\n  nodeName: n{j % 4}\n" if j < 3 else "spec:\n"
        if with_terms and j < 3 and j % 2 == 0:
            spec += _ANTI
        docs.append(f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p{j}\n  labels: {{app: a}}\n{spec}"
                    "  containers:\n  - name: c\n    resources:\n      requests: {cpu: 100m}\n")
    return "---\n".join(docs)


@pytest.mark.parametrize("with_terms", [False, True])
def test_early_skip_equals_the_long_way(tmp_path, with_terms):
    path = tmp_path / "c.yaml"
    path.write_text(_yaml(with_terms))
    sim = Simulation(load_scenario_file(str(path)), seed=0)
    sched = sim.scheduler
    sched.cache.update_snapshot(sched.snapshot)
    fwk = next(iter(sched.profiles.values()))
    pl = fwk.plugins_map["InterPodAffinity"]
    nodes = sched.snapshot.list()
    pending = [p for p in sched.cluster.pods.values() if not p.node_name]
    assert pending and all(p.affinity is None for p in pending)
    for pod in pending:
        answers = []
        for variant in (pod, replace(pod, affinity=Affinity())):
            state = CycleState()
            res, st = pl.pre_filter(state, variant, nodes)
            ps = pl.pre_score(state, variant, nodes)
            answers.append((res, st.code if st else None, ps.code if ps else None,
                            sorted(k for k in ("PreFilterInterPodAffinity", "PreScoreInterPodAffinity")
                                   if state.get(k) is not None)))
        assert answers[0] == answers[1]
