"""The row paths for pods with a nodeSelector give what the per-node walks give.

At 1,200 nodes (node arrays in use) with pools selected by label, tainted pools, nodes without a
zone label or with an empty one, cordoned and full nodes:

- the fast filter walk (`fastpath.pass_filters`: NodeAffinity's kept selector column, the
  rejections set aside a chunk at a time, TaintToleration looking only at tainted rows) finds
  the same feasible nodes and records the same per-node statuses, in the same order, as
  schedule_one's node-by-node `walk_filters`, for several start indexes and numbers to find;
- with a recorder (`trace`), the chunk path records the same verdict table and outcomes as
  the node-by-node loop;
- PodTopologySpread's PreScore summing the kept counts over the rows (`_count_rows`) gives the
  same domain counts as its node walk, for nodeSelectors under nodeAffinityPolicy Honor and
  Ignore, several keys, and nodes lacking the label.
"""

from __future__ import annotations

import random

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.fit_error import Diagnosis
from scheduler_core.framework.plugins.podtopologyspread.scoring import PRE_SCORE_STATE_KEY, ScoringMixin
from scheduler_core.framework.runtime import fastpath
from scheduler_core.framework.runtime.filter_record import FilterRecord
from scheduler_core.framework.status import Code
from scheduler_core.loader import load_scenario_file
from scheduler_core.schedule_one import walk_filters
from scheduler_core.simulation import Simulation

NODES = 1200
ZONE = "topology.kubernetes.io/zone"
OWNER = ("  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: a0, uid: uid-a0, "
         "controller: true}]\n")


def _cluster_yaml(seed: int, n_bound: int, n_pending: int) -> str:
    r = random.Random(seed)
    docs = []
    n_owned = 0
    for i in range(NODES):
        pool = "gpu" if i % 50 == 7 else "highmem" if i % 10 == 3 else "general"
        spec = ""
        if pool == "gpu":
            spec = "spec:\n  taints: [{key: gpu, value: 'y', effect: NoSchedule}]\n"
        elif r.random() < 0.01:
            spec = "spec:\n  unschedulable: true\n"
        zone = "" if i % 97 == 5 else f", {ZONE}: z{i % 3}" if i % 89 != 4 else f", {ZONE}: ''"
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata:\n  name: n{i:04d}\n"
                    f"  labels: {{kubernetes.io/hostname: n{i:04d}, pool: {pool}{zone}}}\n{spec}"
                    f"status:\n  capacity: {{cpu: '{r.choice([1, 4])}', memory: 8Gi, pods: '{r.randint(1, 4)}'}}\n")
    for j in range(n_bound + n_pending):
        bound = j < n_bound
        owned = j % 3 == 0 and (bound or r.random() < 0.5)  # system-default spreading, no labels required
        n_owned += owned
        meta = f"  name: p{j}\n  labels: {{app: a{j % 3}}}\n" + (OWNER if owned else "")
        lines = [f"apiVersion: v1\nkind: Pod\nmetadata:\n{meta}spec:"]
        if bound:
            lines.append(f"  nodeName: n{r.randrange(NODES):04d}")
        else:
            pool = r.choice(["gpu", "highmem", "general", None])
            if pool is not None:
                lines.append(f"  nodeSelector: {{pool: {pool}}}")
            if pool == "gpu" or r.random() < 0.2:
                lines.append("  tolerations:\n  - {key: gpu, operator: Exists}")
            policy = r.choice(["Honor", "Ignore"])
            if not owned:
                lines.append("  topologySpreadConstraints:\n"
                             f"  - {{maxSkew: 1, topologyKey: {ZONE}, whenUnsatisfiable: ScheduleAnyway, "
                             f"nodeAffinityPolicy: {policy}, labelSelector: {{matchLabels: {{app: a{j % 3}}}}}}}")
            if not owned and r.random() < 0.5:
                lines.append("  - {maxSkew: 2, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: "
                             f"ScheduleAnyway, labelSelector: {{matchLabels: {{app: a{(j + 1) % 3}}}}}}}")
        cpu = r.choice(["100m", "500m", "1500m"])
        lines.append(f"  containers:\n  - name: c\n    image: i\n    resources:\n      requests: {{cpu: {cpu}}}")
        docs.append("\n".join(lines) + "\n")
    docs.append("apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: a0, uid: uid-a0}"
                f"\nspec:\n  replicas: {n_owned}\n"
                "  selector: {matchLabels: {app: a0}}\n  template:\n    metadata: {labels: {app: a0}}\n"
                "    spec: {containers: [{name: c, image: i}]}\n")
    return "---\n".join(docs)


def _statuses(d: Diagnosis):
    return ([(n, s.code, s.reasons, s.plugin) for n, s in d.node_to_status.node_to_status.items()],
            sorted(d.unschedulable_plugins), sorted(d.pending_plugins))


@pytest.mark.parametrize("seed", range(2))
def test_selector_rows_equal_the_walks(tmp_path, monkeypatch, seed):
    path = tmp_path / "c.yaml"
    path.write_text(_cluster_yaml(seed, 1500, 24))
    sim = Simulation(load_scenario_file(str(path)), seed=0)
    sched = sim.scheduler
    fwk = next(iter(sched.profiles.values()))
    sched.cache.update_snapshot(sched.snapshot)
    nodes = sched.snapshot.list()
    assert sched.snapshot.node_arrays() is not None  # the row paths are in use
    spread = next(pl for pl in fwk.pre_score_plugins if pl.name == "PodTopologySpread")
    pending = [p for p in sched.cluster.pods.values() if not p.node_name]
    rejected = counted = 0
    for pod in pending:
        state = CycleState()
        _, st, _ = fwk.run_pre_filter_plugins(state, pod)
        if st is not None and st.code != Code.SUCCESS:
            continue
        for start, to_find in [(0, NODES), (7, 60), (NODES - 1, 1), (500, 100), (13, 300)]:
            plain_d, fast_d = Diagnosis(), Diagnosis()
            plain = walk_filters(sched, fwk, state, pod, plain_d, nodes, start, to_find, has_nominated=False)
            fast = fastpath.pass_filters(fwk, state, pod, fast_d, nodes, start, to_find)
            assert [n.name for n in fast] == [n.name for n in plain]
            assert _statuses(fast_d) == _statuses(plain_d)
            rejected += len(plain_d.node_to_status)
            if (start, to_find) not in ((0, NODES), (500, 100)):
                continue
            # Recording (trace): the chunk path's record equals the node-by-node loop's.
            records = []
            for chunked in (True, False):
                if not chunked:
                    monkeypatch.setattr(fastpath, "_takes_whole", lambda res, room: False)
                record = FilterRecord([pl.name for pl in fwk.filter_plugins], state.skip_filter_plugins)
                d = Diagnosis()
                found = fastpath.pass_filters(fwk, state, pod, d, nodes, start, to_find, record)
                monkeypatch.undo()
                records.append(([n.name for n in found], _statuses(d), record.fields(nodes, start)))
            assert records[0] == records[1]
        feasible = walk_filters(sched, fwk, state, pod, Diagnosis(), nodes, 0, NODES, has_nominated=False)
        if not pod.node_selector or len(feasible) < 2:
            continue
        counts = []
        for rows in (True, False):
            if not rows:
                monkeypatch.setattr(ScoringMixin, "_count_rows", lambda *a: False)
            assert spread.pre_score(state, pod, feasible) is None
            s = state.get(PRE_SCORE_STATE_KEY)
            counts.append((s.topology_value_to_pod_counts, s.index_keys, s.topology_normalizing_weight))
            monkeypatch.undo()
        assert counts[0] == counts[1]
        counted += sum(sum(m.values()) for m in counts[0][0])
    assert rejected > 1000 and counted > 0  # the cases reach many rejections and non-zero counts
