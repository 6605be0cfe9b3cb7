"""Kept counts for hard spreading and inter-pod (anti-)affinity change no placement.

InterPodAffinity's PreFilter and PreScore read the snapshot's kept sums of existing pods' terms
(backend/cache/affinity_counts.py) and the kept matching-pod counts for the incoming pod's own
required terms (backend/cache/spread_counts.py); PodTopologySpread's PreFilter reads the latter
for DoNotSchedule constraints. Every scenario runs twice, once with the kept counts and once
walking every node's pods (`use_kept_counts = False` on both plugins), and the whole `simulate`
result must be the same.

The clusters mix required and preferred affinity and anti-affinity in both directions (own
group, another group, zone and hostname keys, several terms, namespaces lists, namespace
selectors, an empty namespace selector), hard zone and hostname spreading with minDomains and
with nodes lacking the zone label, default and soft spreading, a priority ladder on nodes small
enough for preemption, and a timeline deleting pods, removing, adding and relabelling nodes,
and adding pods late. At 1,200 nodes the fast path's rows are used. The placements do not show
the order of PodTopologySpread's domains (it matters only when preemption moves tied critical
paths), so its PreFilter state is also compared directly, order included.
"""

from __future__ import annotations

import json
import random

import pytest

from scheduler_core.framework.plugins.interpodaffinity.plugin import InterPodAffinity
from scheduler_core.framework.plugins.podtopologyspread.plugin import PodTopologySpread
from scheduler_core.loader import CLI_LIMITS, load_scenario_text
from scheduler_core.simulation import Simulation

ZONES = ("zone-a", "zone-b", "zone-c", "zone-d")
ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"


def _node(name: str, rng: random.Random, zoned: float) -> str:
    labels = {HOST: name}
    if rng.random() < zoned:
        labels[ZONE] = ZONES[rng.randrange(len(ZONES) - 1)]
    if rng.random() < 0.5:
        labels["rack"] = f"r{rng.randrange(4)}"
    lab = ", ".join(f"{k}: '{v}'" for k, v in labels.items())
    taint = ""
    if rng.random() < 0.03:
        taint = "spec: {taints: [{key: dedicated, value: x, effect: NoSchedule}]}\n"
    return (f"apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels: {{{lab}}}\n{taint}"
            "status: {capacity: {cpu: '2', memory: 8Gi, pods: '12'}}\n")


def _term(app: str, key: str, extra: str = "") -> str:
    return f"{{topologyKey: {key}, labelSelector: {{matchLabels: {{app: {app}}}}}{extra}}}"


def _affinity(rng: random.Random, app: str, apps: list[str]) -> str:
    """The pod's spec lines (2-space indented) for one random mix of terms and constraints."""
    other = apps[rng.randrange(len(apps))]
    roll = rng.randrange(14)
    if roll == 0:
        return f"  affinity: {{podAntiAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: [{_term(app, HOST)}]}}}}\n"
    if roll == 1:
        return (f"  affinity: {{podAntiAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: "
                f"[{_term(other, ZONE)}, {_term(app, 'rack')}]}}}}\n")
    if roll == 2:
        return f"  affinity: {{podAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: [{_term(other, ZONE)}]}}}}\n"
    if roll == 3:
        return (f"  affinity: {{podAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: "
                f"[{_term(app, ZONE)}, {_term(app, 'rack')}]}}}}\n")
    if roll == 4:
        return (f"  affinity: {{podAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: "
                f"[{_term(other, HOST, ', namespaces: [default, other]')}]}}}}\n")
    if roll == 5:
        return (f"  affinity: {{podAntiAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: "
                f"[{_term(other, ZONE, ', namespaceSelector: {matchLabels: {tier: gold}}')}]}}}}\n")
    if roll == 6:
        return (f"  affinity: {{podAntiAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: "
                f"[{_term(app, HOST, ', namespaceSelector: {}')}]}}}}\n")
    if roll == 7:
        return (f"  affinity: {{podAffinity: {{preferredDuringSchedulingIgnoredDuringExecution: "
                f"[{{weight: {rng.randrange(1, 100)}, podAffinityTerm: {_term(other, ZONE)}}}]}}, "
                f"podAntiAffinity: {{preferredDuringSchedulingIgnoredDuringExecution: "
                f"[{{weight: {rng.randrange(1, 100)}, podAffinityTerm: {_term(app, HOST)}}}]}}}}\n")
    if roll == 8:
        return (f"  affinity: {{podAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: "
                f"[{_term(app, ZONE)}], preferredDuringSchedulingIgnoredDuringExecution: "
                f"[{{weight: 50, podAffinityTerm: {_term(other, 'rack')}}}]}}}}\n")
    if roll == 9:
        return ("  topologySpreadConstraints:\n"
                f"  - {{maxSkew: 1, topologyKey: {ZONE}, whenUnsatisfiable: DoNotSchedule, "
                f"labelSelector: {{matchLabels: {{app: {app}}}}}}}\n")
    if roll == 10:
        return ("  topologySpreadConstraints:\n"
                f"  - {{maxSkew: 1, topologyKey: {ZONE}, whenUnsatisfiable: DoNotSchedule, minDomains: 4, "
                f"labelSelector: {{matchLabels: {{app: {app}}}}}}}\n"
                f"  - {{maxSkew: 2, topologyKey: {HOST}, whenUnsatisfiable: DoNotSchedule, "
                f"labelSelector: {{matchLabels: {{app: {app}}}}}}}\n")
    if roll == 11:
        return ("  topologySpreadConstraints:\n"
                f"  - {{maxSkew: 1, topologyKey: rack, whenUnsatisfiable: DoNotSchedule, "
                f"labelSelector: {{matchExpressions: [{{key: app, operator: In, values: [{app}, {other}]}}]}}}}\n"
                f"  - {{maxSkew: 1, topologyKey: {ZONE}, whenUnsatisfiable: ScheduleAnyway, "
                f"labelSelector: {{matchLabels: {{app: {app}}}}}}}\n")
    if roll == 12:
        return ("  topologySpreadConstraints:\n"
                f"  - {{maxSkew: 1, topologyKey: {ZONE}, whenUnsatisfiable: DoNotSchedule, nodeTaintsPolicy: Honor, "
                f"labelSelector: {{matchLabels: {{app: {app}}}}}}}\n"
                f"  nodeSelector: {{rack: r{rng.randrange(4)}}}\n")
    return ""


def _scenario(seed: int, nodes: int, pods: int, zoned: float) -> str:
    rng = random.Random(seed)
    names = [f"n{i:04d}" for i in range(nodes)]
    docs = [_node(n, rng, zoned) for n in names]
    docs.append("apiVersion: v1\nkind: Namespace\nmetadata: {name: other, labels: {tier: gold}}\n")
    for name, value in (("high", 1000), ("low", 10)):
        docs.append(f"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {{name: {name}}}\n"
                    f"value: {value}\n")
    apps = [f"a{j}" for j in range(8)]
    kinds = {app: _affinity(rng, app, apps) for app in apps}
    owned = {app: 0 for app in apps[:4]}
    body = []
    placed = []
    for i in range(pods):
        app = apps[rng.randrange(len(apps))]
        ns = "other" if rng.random() < 0.15 else "default"
        extra = kinds[app] if rng.random() < 0.8 else _affinity(rng, app, apps)
        meta = f"metadata:\n  name: p{i:05d}\n  namespace: {ns}\n  labels: {{app: {app}}}\n"
        if app in owned and ns == "default":
            owned[app] += 1
            meta += (f"  ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: rs-{app}, "
                     f"uid: uid-{app}, controller: true}}]\n")
        prio = f"  priorityClassName: {'high' if rng.random() < 0.3 else 'low'}\n"
        node = ""
        if rng.random() < 0.1:
            node = f"  nodeName: {names[rng.randrange(nodes)]}\n"
        cpu = rng.choice(("100m", "250m", "500m"))
        body.append(f"apiVersion: v1\nkind: Pod\n{meta}spec:\n{prio}{node}{extra}"
                    f"  containers:\n  - name: c\n    image: pause\n    resources: {{requests: {{cpu: {cpu}}}}}\n")
        placed.append((ns, f"p{i:05d}"))
    for app, n in owned.items():
        docs.append(f"apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {{name: rs-{app}, namespace: default, "
                    f"uid: uid-{app}}}\nspec:\n  replicas: {max(1, n)}\n  selector: {{matchLabels: {{app: {app}}}}}\n"
                    f"  template:\n    metadata: {{labels: {{app: {app}}}}}\n"
                    "    spec: {containers: [{name: c, image: pause}]}\n")
    docs += body
    actions = [f"- {{at: {5 + k}, action: deletePod, pod: {ns}/{name}}}"
               for k, (ns, name) in enumerate(rng.sample(placed, 12))]
    actions.append(f"- {{at: 20, action: deleteNode, node: {names[1]}}}")
    actions.append(f"- {{at: 21, action: setNodeLabels, node: {names[2]}, labels: {{{ZONE}: zone-d, rack: r9}}}}")
    actions.append("- {at: 22, action: addNode, node: {apiVersion: v1, kind: Node, metadata: {name: late, "
                   f"labels: {{{HOST}: late, {ZONE}: zone-b}}}}, "
                   "status: {capacity: {cpu: '2', memory: 8Gi, pods: '12'}}}}")
    for k in range(25):
        app = apps[rng.randrange(len(apps))]
        pod = (f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: late{k:03d}\n  namespace: default\n"
               f"  labels: {{app: {app}}}\nspec:\n  priorityClassName: high\n{_affinity(rng, app, apps)}"
               "  containers:\n  - name: c\n    image: pause\n    resources: {requests: {cpu: 500m}}\n")
        actions.append(f"- at: {30 + k}\n  action: addPod\n  pod:\n" + "".join(f"    {line}\n" for line in pod.splitlines()))
    docs.append("apiVersion: playground.kube-scheduler.dev/v1\nkind: Timeline\nactions:\n" + "\n".join(actions) + "\n")
    return "---\n".join(docs)


def _result(text: str, kept: bool, monkeypatch: pytest.MonkeyPatch) -> dict:
    monkeypatch.setattr(PodTopologySpread, "use_kept_counts", kept)
    monkeypatch.setattr(InterPodAffinity, "use_kept_counts", kept)
    sim = Simulation(load_scenario_text(text, source="s.yaml", limits=CLI_LIMITS), seed=1)
    return sim.result(sim.run())


@pytest.mark.parametrize(("seed", "nodes", "pods", "zoned"), [
    # Small clusters crowd the mix (refusals, preemption); 1,200 nodes take the array paths.
    (1, 40, 300, 0.9), (2, 30, 300, 1.0), (3, 50, 450, 1.0), (4, 1200, 200, 1.0), (5, 1200, 150, 0.95),
    (6, 25, 300, 1.0),
])
def test_kept_counts_give_the_placements_of_the_walk(monkeypatch, seed, nodes, pods, zoned):
    text = _scenario(seed, nodes, pods, zoned)
    kept = _result(text, True, monkeypatch)
    walked = _result(text, False, monkeypatch)
    statuses = {p["status"] for p in kept["pods"]}
    assert "Bound" in statuses, "the scenario scheduled nothing"
    assert json.dumps(kept, sort_keys=True) == json.dumps(walked, sort_keys=True)


def test_the_scenarios_exercise_preemption_and_refusals(monkeypatch):
    """The mix is not vacuous: pods are preempted and some stay pending for affinity reasons."""
    kept = _result(_scenario(3, 70, 700, 1.0), True, monkeypatch)
    text = json.dumps(kept)
    assert any(p["deletedBy"] for p in kept["pods"]), "no pod was preempted"
    assert "affinity" in text or "topology spread" in text


def test_the_term_sums_follow_the_snapshot_and_match_a_recount(monkeypatch):
    """After a run with deletions, node changes and late pods, the kept term sums equal sums made
    afresh from the final snapshot."""
    from scheduler_core.backend.cache.affinity_counts import AffinityTermCounts

    monkeypatch.setattr(InterPodAffinity, "use_kept_counts", True)
    sim = Simulation(load_scenario_text(_scenario(7, 60, 600, 0.9), source="s.yaml", limits=CLI_LIMITS), seed=1)
    sim.run()
    sched = sim.scheduler
    sched.cache.update_snapshot(sched.snapshot)
    snap = sched.snapshot
    kept = snap.affinity_counts
    assert kept.terms and kept.follows(snap.generation)
    fresh = AffinityTermCounts()
    fresh.sync(snap.list(), snap.generation)

    def by_ident(c: AffinityTermCounts) -> dict:
        return {ident: c.sums[g] for ident, g in c.groups.items() if c.sums[g]}

    assert by_ident(kept) == by_ident(fresh)


@pytest.mark.parametrize(("seed", "nodes", "pods"), [(11, 1200, 250), (12, 300, 400)])
def test_hard_spreading_state_equals_the_walk_in_order(monkeypatch, seed, nodes, pods):
    """PodTopologySpread's PreFilter state from the kept counts equals the walk's, domain order
    included (the critical paths keep the first of equal counts, and preemption's AddPod/RemovePod
    then move them): checked on the final snapshot for every pod with DoNotSchedule constraints."""
    sim = Simulation(load_scenario_text(_scenario(seed, nodes, pods, 1.0), source="s.yaml", limits=CLI_LIMITS), seed=1)
    sim.run()
    sched = sim.scheduler
    sched.cache.update_snapshot(sched.snapshot)
    fwk = next(iter(sched.profiles.values()))
    plugin = next(pl for pl in fwk.pre_filter_plugins if isinstance(pl, PodTopologySpread))
    nodes = sched.snapshot.list()
    checked = 0
    for pod in sched.cluster.pods.values():
        if not any(c.when_unsatisfiable == "DoNotSchedule" for c in pod.topology_spread_constraints):
            continue
        states = []
        for kept in (True, False):
            monkeypatch.setattr(PodTopologySpread, "use_kept_counts", kept)
            s = plugin._cal_pre_filter_state(pod, nodes)
            states.append(([list(m.items()) for m in s.tp_value_to_match_num],
                           [p.as_tuple() for p in s.critical_paths]))
        assert states[0] == states[1]
        checked += 1
    assert checked > 20
