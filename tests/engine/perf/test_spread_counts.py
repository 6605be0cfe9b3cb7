"""PodTopologySpread's kept counts (backend/cache/spread_counts.py) change no placement.

Every scenario runs twice, once reading the snapshot's kept counts and once walking every
node's pods as before (`use_kept_counts = False`), and the whole `simulate` result must be the
same. The clusters mix what decides whether the counts may stand in for the walk: ReplicaSet,
StatefulSet and Service selectors (system-default spreading), pods with their own
ScheduleAnyway constraints (every topology label required), nodes without a zone label or with
an empty one, tainted nodes under nodeTaintsPolicy Honor, nodeSelectors, a second namespace,
and a timeline that deletes pods, removes and adds nodes and relabels one. At 1,200 nodes the
fast path's rows (and so the vector scoring) are used; at 60 nodes the per-node loops.
"""

from __future__ import annotations

import json
import random

import pytest

from scheduler_core.framework.plugins.podtopologyspread.plugin import PodTopologySpread
from scheduler_core.loader import CLI_LIMITS, load_scenario_text
from scheduler_core.simulation import Simulation

ZONES = ("zone-a", "zone-b", "zone-c")


def _node(i: int, rng: random.Random, plain: bool) -> str:
    name = f"n{i:04d}"
    labels = {"kubernetes.io/hostname": name}
    roll = rng.random()
    if plain or roll < 0.9:
        labels["topology.kubernetes.io/zone"] = ZONES[i % 3]
    elif roll < 0.95:
        labels["topology.kubernetes.io/zone"] = ""
    lab = ", ".join(f"{k}: '{v}'" for k, v in labels.items())
    taint = ""
    if not plain and rng.random() < 0.05:
        taint = "spec: {taints: [{key: dedicated, value: x, effect: NoSchedule}]}\n"
    return (f"apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels: {{{lab}}}\n{taint}"
            "status: {capacity: {cpu: '8', memory: 32Gi, pods: '30'}}\n")


def _pod(i: int, owner: tuple[str, str, str] | None, ns: str, extra: str = "", labels: str = "") -> str:
    meta = f"metadata:\n  name: p{i:05d}\n  namespace: {ns}\n"
    if labels:
        meta += f"  labels: {{{labels}}}\n"
    if owner is not None:
        kind, api, name = owner
        meta += (f"  ownerReferences: [{{apiVersion: {api}, kind: {kind}, name: {name}, uid: uid-{name}, "
                 "controller: true}]\n")
    return (f"apiVersion: v1\nkind: Pod\n{meta}spec:\n{extra}  containers:\n  - name: c\n    image: pause\n"
            "    resources: {requests: {cpu: 100m, memory: 128Mi}}\n")


def _set(kind: str, api: str, name: str, ns: str, replicas: int) -> str:
    return (f"apiVersion: {api}\nkind: {kind}\nmetadata: {{name: {name}, namespace: {ns}, uid: uid-{name}}}\n"
            f"spec:\n  replicas: {replicas}\n  selector: {{matchLabels: {{app: {name}}}}}\n"
            + ("  serviceName: s\n" if kind == "StatefulSet" else "")
            + f"  template:\n    metadata: {{labels: {{app: {name}}}}}\n"
            "    spec: {containers: [{name: c, image: pause, resources: {requests: {cpu: 100m, memory: 128Mi}}}]}\n")


def _scenario(seed: int, nodes: int, pods: int, plain: bool) -> str:
    rng = random.Random(seed)
    docs = [_node(i, rng, plain) for i in range(nodes)]
    sets = [("ReplicaSet", "apps/v1", f"rs{j}", "default") for j in range(4)]
    sets += [("StatefulSet", "apps/v1", "db", "default"), ("ReplicaSet", "apps/v1", "rs0", "other")]
    counts = {s: 0 for s in sets}
    body = []
    namespace_of = {}
    for i in range(pods):
        roll = rng.random()
        if roll < 0.75:
            s = sets[rng.randrange(len(sets))]
            counts[s] += 1
            extra = ""
            if not plain and rng.random() < 0.1:
                extra = f"  nodeSelector: {{topology.kubernetes.io/zone: {ZONES[rng.randrange(3)]}}}\n"
            body.append(_pod(i, (s[0], s[1], s[2]), s[3], extra, f"app: {s[2]}, tier: web"))
            namespace_of[i] = s[3]
        elif roll < 0.9:
            policy = "Honor" if not plain and rng.random() < 0.5 else "Ignore"
            extra = ("  topologySpreadConstraints:\n"
                     "  - {maxSkew: 2, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway,"
                     f" nodeTaintsPolicy: {policy}, labelSelector: {{matchLabels: {{team: t1}}}}}}\n"
                     "  - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway,"
                     " labelSelector: {matchLabels: {team: t1}}}\n")
            body.append(_pod(i, None, "default", extra, "team: t1"))
        else:
            body.append(_pod(i, None, "default", "", "app: web"))
    docs += [_set(k, a, n, ns, max(1, counts[(k, a, n, ns)])) for (k, a, n, ns) in sets]
    docs.append("apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {tier: web}}\n")
    docs += body
    if not plain:
        deleted = rng.sample(range(pods), 10)
        actions = [f"- {{at: {5 + k}, action: deletePod, pod: {namespace_of.get(d, 'default')}/p{d:05d}}}"
                   for k, d in enumerate(deleted)]
        actions.append("- {at: 20, action: deleteNode, node: n0001}")
        actions.append("- {at: 21, action: setNodeLabels, node: n0002, labels: {topology.kubernetes.io/zone: zone-z}}")
        actions.append("- {at: 22, action: addNode, node: {apiVersion: v1, kind: Node, metadata: {name: late, "
                       "labels: {kubernetes.io/hostname: late, topology.kubernetes.io/zone: zone-b}}, "
                       "status: {capacity: {cpu: '8', memory: 32Gi, pods: '30'}}}}")
        late = [_pod(pods + k, (sets[0][0], sets[0][1], sets[0][2]), "default", "", "app: rs0, tier: web")
                for k in range(20)]
        actions += [f"- at: {30 + k}\n  action: addPod\n  pod:\n" + "".join(f"    {line}\n" for line in p.splitlines())
                    for k, p in enumerate(late)]
        docs.append("apiVersion: playground.kube-scheduler.dev/v1\nkind: Timeline\nactions:\n" + "\n".join(actions) + "\n")
    return "---\n".join(docs)


def _result(text: str, kept: bool, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(PodTopologySpread, "use_kept_counts", kept)
    sim = Simulation(load_scenario_text(text, source="s.yaml", limits=CLI_LIMITS), seed=1)
    return json.dumps(sim.result(sim.run()), sort_keys=True)


@pytest.mark.parametrize(("seed", "nodes", "pods", "plain"), [
    (1, 60, 400, False), (2, 60, 400, True), (3, 1200, 400, False), (4, 1200, 300, True),
])
def test_kept_counts_give_the_placements_of_the_walk(monkeypatch, seed, nodes, pods, plain):
    text = _scenario(seed, nodes, pods, plain)
    kept = _result(text, True, monkeypatch)
    walked = _result(text, False, monkeypatch)
    assert json.loads(kept)["pods"], "the scenario scheduled nothing"
    assert kept == walked


def test_the_counts_follow_the_snapshot_and_match_a_recount(monkeypatch):
    """After a run with deletions, node changes and late pods, the kept counts equal counts
    made afresh from the final snapshot."""
    from scheduler_core.backend.cache.spread_counts import SpreadCounts

    monkeypatch.setattr(PodTopologySpread, "use_kept_counts", True)
    sim = Simulation(load_scenario_text(_scenario(5, 1200, 300, False), source="s.yaml", limits=CLI_LIMITS), seed=1)
    sim.run()
    sched = sim.scheduler
    sched.cache.update_snapshot(sched.snapshot)
    snap = sched.snapshot
    kept = snap.spread_counts
    assert kept.selectors and kept.follows(snap.generation)
    fresh = SpreadCounts()
    for ident, k in sorted(kept.keys.items(), key=lambda item: item[1]):
        namespaces, matcher = kept.selectors[k]
        assert fresh.key_for(ident[1:], namespaces, matcher, ident[0], snap.list(), snap.generation) == k
    for k in range(len(kept.selectors)):
        assert {n: r.counts.get(k, 0) for n, r in kept.nodes.items()} == \
            {n: r.counts.get(k, 0) for n, r in fresh.nodes.items()}
        for (kk, tk) in list(kept.sums):
            if kk == k:
                assert {v: c for v, c in kept.sums[(k, tk)].items() if c} == \
                    {v: c for v, c in fresh.sums_for(k, tk).items() if c}
