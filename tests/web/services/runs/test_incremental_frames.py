"""A step's frame built from what changed equals the one built from the whole view.

The worker re-describes only the pods whose state changed (scheduler_core/view/pods.py), diffs
only those (`frame_views.diff(changed=...)`), and readers apply a chain of deltas at once
(`frame_views.apply_chain`). After every step of gallery scenarios and of a randomized one
(preemption, deletions, node changes, timeline and live actions), each must give exactly what
the full build gives: the same view, the same delta (same JSON bytes), the same view read back.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from playground import frame_views
from playground.services.runs.engine import engine_view
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation
from scheduler_core.view.pods import PodViewMemo

GALLERY = Path(__file__).resolve().parents[4] / "playground" / "gallery"
SCENARIOS = ["priority-preemption.yaml", "noexecute-eviction.yaml", "preemption-pdb.yaml",
             "descheduler-rebalance.yaml", "deployments-daemonsets.yaml", "scheduler-profiles.yaml",
             "gang-scheduling.yaml", "bind-failure.yaml", "dra-gpus.yaml", "read-write-once-pod.yaml"]
PRIORITIES = (("low", -10), ("mid", 100), ("high", 10000))


def _node(name: str, cpu: int, zone: str) -> str:
    return (f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}, "
            f"topology.kubernetes.io/zone: {zone}}}}}\nstatus: {{capacity: {{cpu: '{cpu}', memory: 16Gi, pods: '20'}}}}\n")


def _pod(name: str, rng: random.Random, indent: str = "", cls: str = "") -> str:
    cls = cls or PRIORITIES[rng.randrange(len(PRIORITIES))][0]
    extra = "  schedulerName: other\n" if rng.random() < 0.05 else ""
    text = (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, labels: {{app: a{rng.randrange(3)}}}}}\n"
            f"spec:\n  priorityClassName: {cls}\n{extra}"
            f"  containers: [{{name: c, image: pause, resources: {{requests: {{cpu: {rng.choice((250, 500, 1000))}m, "
            f"memory: 256Mi}}}}}}]\n")
    return "".join(indent + line + "\n" for line in text.splitlines())


def _random_scenario(seed: int) -> str:
    """A small crowded cluster: pods of three priorities (the high ones preempt), then a
    timeline that deletes pods and a node, adds a node and pods, taints, cordons, relabels."""
    rng = random.Random(seed)
    docs = [f"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {{name: {n}}}\nvalue: {v}\n"
            for n, v in PRIORITIES]
    docs += [_node(f"n{i}", 2, f"z{i % 2}") for i in range(4)]
    docs += [_pod(f"p{i:02d}", rng, cls="low" if i < 16 else "high" if i < 20 else "") for i in range(24)]
    # Deleted by the timeline: high pods (no preemption takes them first).
    actions = [f"- {{at: {3 + k}, action: deletePod, pod: default/p{d:02d}}}" for k, d in enumerate(rng.sample(range(16, 20), 3))]
    actions += [
        "- {at: 8, action: deleteNode, node: n1}",
        "- {at: 9, action: addTaint, node: n2, taint: {key: k, effect: NoExecute}}",
        "- {at: 10, action: cordon, node: n3}",
        "- {at: 11, action: setNodeLabels, node: n0, labels: {topology.kubernetes.io/zone: z9}}",
        "- at: 12\n  action: addNode\n  node:\n" + "".join("    " + line + "\n" for line in _node("late", 4, "z1").splitlines()),
    ]
    actions += [f"- at: {13 + k}\n  action: addPod\n  pod:\n" + _pod(f"late{k}", rng, "    ", "high") for k in range(6)]
    docs.append("apiVersion: playground.kube-scheduler.dev/v1\nkind: Timeline\nactions:\n" + "\n".join(actions) + "\n")
    return "---\n".join(docs)


def _live_actions(sim: Simulation, rng: random.Random, step: int) -> None:
    """Now and then a live action, as the web's action form applies it mid-run."""
    if step % 7 != 3:
        return
    pods = [k for k, r in sim.scheduler.cluster.records.items() if r.status != "Deleted" and "/live" in k]
    if pods and rng.random() < 0.5:
        sim.apply_manifest_action({"action": "deletePod", "pod": rng.choice(pods)})
    else:
        name = f"live{step}"
        sim.apply_manifest_action({"action": "addPod", "pod": {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "pause", "resources": {"requests": {"cpu": "500m"}}}]}}})


def _check(sim: Simulation, rng: random.Random | None, steps: int = 120) -> int:
    node_memo: dict[str, Any] = {}
    memo = PodViewMemo()
    before = frame_views.compact_view(engine_view(sim, node_memo, memo))
    base, chain, compared = before, [], 0
    for step in range(1, steps + 1):
        if rng is not None:
            _live_actions(sim, rng, step)
        result = sim.step(3600.0)
        after = frame_views.compact_view(engine_view(sim, node_memo, memo))
        full = frame_views.compact_view(engine_view(sim))
        assert after == full, step
        known = {"pods": frame_views.Changes(memo.changed, memo.appended)}
        delta = frame_views.diff(before, after, base=step - 1, changed=known)
        assert json.dumps(delta) == json.dumps(frame_views.diff(before, full, base=step - 1)), step
        assert frame_views.apply(before, delta) == full
        chain.append(delta)
        assert frame_views.apply_chain(base, chain) == full, step
        if step % 9 == 0:  # a keyframe now and then: chains of several lengths
            base, chain = full, []
        before, compared = after, compared + 1
        if result in ("settled", "max-time") and rng is None:
            break
    return compared


@pytest.mark.parametrize("name", SCENARIOS)
def test_gallery_frames_built_from_changes_equal_full_frames(name: str) -> None:
    text = (GALLERY / name).read_text()
    sim = Simulation(load_scenario_text(text, source=name), seed=1, record_events=True)
    assert _check(sim, None) > 2


@pytest.mark.parametrize("seed", [1, 2])
def test_randomized_frames_built_from_changes_equal_full_frames(seed: int) -> None:
    sim = Simulation(load_scenario_text(_random_scenario(seed), source="random.yaml"), seed=seed, record_events=True)
    assert _check(sim, random.Random(seed), steps=160) == 160
    cs = sim.scheduler.cluster
    fates = {r.status for r in cs.records.values()}
    causes = {r.deleted_by for r in cs.records.values()}
    assert {"Bound", "Deleted"} <= fates and {"User", "NodeDeleted", "TaintManagerEviction"} <= causes
    assert any(c and "reempt" in c for c in causes), causes  # victims of preemption too
