"""The batched hot paths give exactly what the one-node-at-a-time paths give.

The framework filters a chunk of nodes plugin by plugin (`filter_nodes`), scores every node per
plugin in one call (`score_nodes`, `normalize_score_values`), and finds selectHost's winner
without building the heap (`max_heap_init_root`). Each is compared here with its per-node
reference on randomised clusters (taints, cordons, full nodes, images, preferred affinities).
"""

from __future__ import annotations

import random

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import Code
from scheduler_core.framework.types import NodeScore
from scheduler_core.loader import load_scenario_file
from scheduler_core.simulation import Simulation
from scheduler_core.util.goheap import heap_init, max_heap_init_root


@pytest.mark.parametrize("seed", range(5))
def test_max_heap_init_root_matches_go_heap_init(seed):
    r = random.Random(seed)
    for _ in range(3000):
        n = r.randint(1, 70)
        vals = [r.randint(0, r.randint(0, 5)) for _ in range(n)]
        h = list(range(n))
        heap_init(h, lambda a, b, vals=vals: vals[a] > vals[b])
        assert max_heap_init_root(vals) == h[0], vals


def test_max_heap_init_root_empty():
    with pytest.raises(IndexError):
        max_heap_init_root([])


def _cluster_yaml(seed: int, n_nodes: int, n_bound: int, n_pending: int) -> str:
    r = random.Random(seed)
    docs = []
    for i in range(n_nodes):
        taints = []
        if r.random() < 0.2:
            taints.append("{key: dedicated, value: x, effect: NoSchedule}")
        if r.random() < 0.3:
            taints.append("{key: soft, value: y, effect: PreferNoSchedule}")
        spec = ""
        if taints or r.random() < 0.1:
            spec = "spec:\n"
            if taints:
                spec += "  taints: [" + ", ".join(taints) + "]\n"
            if r.random() < 0.3:
                spec += "  unschedulable: true\n"
        images = ""
        if r.random() < 0.4:
            images = f"\n  images:\n  - names: ['img/big:1']\n    sizeBytes: {r.choice([5, 150, 900]) * 1000000}"
        mem = r.choice(["2Gi", "8Gi", "0"])
        docs.append(
            f"apiVersion: v1\nkind: Node\nmetadata:\n  name: n{i}\n"
            f"  labels: {{kubernetes.io/hostname: n{i}, zone: z{i % 3}, tier: t{r.randint(0, 2)}}}\n"
            f"{spec}status:\n  capacity: {{cpu: '{r.choice([1, 2, 4])}', memory: {mem}, pods: '{r.randint(1, 6)}'}}"
            f"{images}\n")
    for j in range(n_bound + n_pending):
        bound = j < n_bound
        lines = [f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p{j}\n  labels: {{app: a{j % 3}}}\nspec:"]
        if bound:
            lines.append(f"  nodeName: n{r.randrange(n_nodes)}")
        if r.random() < 0.3:
            lines.append("  tolerations:\n  - {key: soft, operator: Exists}")
        if r.random() < 0.3:
            lines.append("  affinity:\n    nodeAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n"
                         "      - weight: 5\n        preference:\n          matchExpressions:\n"
                         "          - {key: tier, operator: In, values: [t1]}")
        req = "" if r.random() < 0.2 else (
            f"\n    resources:\n      requests: {{cpu: {r.choice(['100m', '500m', '1500m'])}, "
            f"memory: {r.choice(['64Mi', '1Gi', '3Gi'])}}}")
        img = r.choice(["img/big:1", "img/small"])
        lines.append(f"  containers:\n  - name: c\n    image: {img}{req}")
        docs.append("\n".join(lines) + "\n")
    return "---\n".join(docs)


@pytest.mark.parametrize("seed", range(4))
def test_batched_filter_and_score_equal_per_node(tmp_path, seed):
    path = tmp_path / "c.yaml"
    path.write_text(_cluster_yaml(seed, 40, 30, 12))
    sim = Simulation(load_scenario_file(str(path)), seed=0)
    sched = sim.scheduler
    fwk = next(iter(sched.profiles.values()))
    sched.cache.update_snapshot(sched.snapshot)
    nodes = sched.snapshot.list()
    pending = [p for p in sched.cluster.pods.values() if not p.node_name]
    assert pending
    checked_rejections = 0
    for pod in pending:
        state = CycleState()
        _, st, _ = fwk.run_pre_filter_plugins(state, pod)
        if st is not None and st.code != Code.SUCCESS:
            continue
        batched = fwk.run_filter_plugins_batch(state, pod, nodes)
        one_by_one = [fwk.run_filter_plugins(state, pod, ni) for ni in nodes]
        assert [(s.code, s.reasons, s.plugin) if s else None for s in batched] == \
               [(s.code, s.reasons, s.plugin) if s else None for s in one_by_one]
        checked_rejections += sum(1 for s in batched if s is not None)
        for pl in fwk.filter_plugins:
            if pl.name in state.skip_filter_plugins:
                continue
            got = pl.filter_nodes(state, pod, nodes)
            want = [pl.filter(state, pod, ni) for ni in nodes]
            assert [(s.code, s.reasons) if s else None for s in got] == \
                   [(s.code, s.reasons) if s else None for s in want], pl.name
        feasible = [ni for ni, s in zip(nodes, batched, strict=True) if s is None]
        if not feasible:
            continue
        assert fwk.run_pre_score_plugins(state, pod, feasible) is None
        for pl in fwk.score_plugins:
            if pl.name in state.skip_score_plugins:
                continue
            got, st = pl.score_nodes(state, pod, feasible)
            assert st is None
            want = [pl.score(state, pod, ni)[0] for ni in feasible]
            assert got == want, pl.name
            ext = pl.score_extensions()
            if ext is not None and hasattr(ext, "normalize_score_values"):
                ns = [NodeScore(ni.name, s) for ni, s in zip(feasible, want, strict=True)]
                assert ext.normalize_score(state, pod, ns) is None
                vals = list(got)
                assert ext.normalize_score_values(state, pod, vals) is None
                assert vals == [x.score for x in ns], pl.name
        full, st, _ = fwk.run_score_plugins(state, pod, feasible)
        totals, st2, _ = fwk.run_score_plugins_totals(state, pod, feasible)
        assert st is None and st2 is None
        assert totals == [s.total_score for s in full]
    assert checked_rejections > 0
