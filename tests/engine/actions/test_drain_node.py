"""drainNode does what `kubectl drain` does: cordon, kubectl's pod filters (DaemonSet, mirror,
local storage, unmanaged pods), evictions through the eviction API that a PodDisruptionBudget
refuses and kubectl retries every 5 s, a bounded timeout, and kubectl's words in `drain` events."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_core.api.errors import ActionError, ScenarioError
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation
from tests.engine.descheduler.helpers import node, pod, text

PDB = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web"},
       "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "web"}}}}


def _sim(docs: list[dict[str, Any]], **kw: Any) -> Simulation:
    sim = Simulation(load_scenario_text(text(docs), source="drain.yaml"), record_events=True, **kw)
    sim.run()
    return sim


def _lines(sim: Simulation) -> list[tuple[float, str]]:
    return [(e["time"], e["line"]) for e in sim.sink.events if e["type"] == "drain"]


def _web(n2_cpu: str = "4") -> list[dict[str, Any]]:
    """Three web pods of one ReplicaSet, two on n1, one on n2; a PDB keeps two of them up."""
    return [node("n1"), node("n2", cpu=n2_cpu),
            pod("web-a", "n1"), pod("web-b", "n1"), pod("web-c", "n2"), PDB]


def test_drain_waits_on_the_pdb_retries_every_5s_and_drains() -> None:
    sim = _sim(_web())
    sim.apply_manifest_action({"action": "drainNode", "node": "n1"})
    assert sim.scheduler.cluster.nodes["n1"].unschedulable
    sim.run()
    lines = _lines(sim)
    assert lines[:4] == [
        (0.0, "node/n1 cordoned"),
        (0.0, "evicting pod default/web-a"),
        (0.0, "pod/web-a evicted"),
        (0.0, "evicting pod default/web-b"),
    ]
    refused = ('error when evicting pods/"web-b" -n "default" (will retry after 5s): '
               "Cannot evict pod as it would violate the pod's disruption budget.")
    assert lines[4] == (0.0, refused)
    # The replacement of web-a is scheduled on n2 (n1 is cordoned), so the retry 5 s later passes.
    assert lines[5:] == [(5.0, "evicting pod default/web-b"), (5.0, "pod/web-b evicted"), (5.0, "node/n1 drained")]
    pods = sim.scheduler.cluster.pods.values()
    assert sorted(p.node_name for p in pods) == ["n2", "n2", "n2"]
    assert sim.result(True)["settled"]


def test_a_drain_the_pdb_blocks_ends_at_its_timeout() -> None:
    # n2 has no room for the replacements: the PDB never allows the second eviction.
    sim = _sim(_web(n2_cpu="500m"))
    sim.apply_manifest_action({"action": "drainNode", "node": "n1", "timeout": 12})
    assert sim.run() is True  # settles: the drain gave up
    lines = [line for _, line in _lines(sim)]
    times = [t for t, line in _lines(sim) if line == "evicting pod default/web-b"]
    assert times == [0.0, 5.0, 10.0, 15.0]  # kubectl sleeps 5 s, then sees its deadline passed
    assert lines[-3:] == [
        "evicting pod default/web-b",
        'error: unable to drain node "n1" due to error: error when evicting pods/"web-b" -n "default": '
        "global timeout reached: 12s, continuing command...",
        "There are pending nodes to be drained: n1",
    ]
    assert "default/web-b" in sim.scheduler.cluster.pods
    assert sim.scheduler.cluster.nodes["n1"].unschedulable


def test_daemonset_pods_stop_the_drain_unless_ignored_and_stay() -> None:
    docs = [node("n1"), node("n2"), pod("agent", "n1", owner=("DaemonSet", "agent")), pod("web-a", "n1")]
    sim = _sim(docs)
    sim.apply_manifest_action({"action": "drainNode", "node": "n1"})
    sim.run()
    assert [line for _, line in _lines(sim)] == [
        "node/n1 cordoned",
        'error: unable to drain node "n1" due to error: cannot delete DaemonSet-managed Pods '
        "(use --ignore-daemonsets to ignore): default/agent, continuing command...",
        "There are pending nodes to be drained: n1",
    ]
    assert {"default/agent", "default/web-a"} <= set(sim.scheduler.cluster.pods)  # nothing evicted

    sim = _sim(docs)
    sim.apply_manifest_action({"action": "drainNode", "node": "n1", "ignoreDaemonSets": True})
    sim.run()
    lines = [line for _, line in _lines(sim)]
    assert lines[:2] == ["node/n1 cordoned", "Warning: ignoring DaemonSet-managed Pods: default/agent"]
    assert lines[-1] == "node/n1 drained"
    assert sim.scheduler.cluster.pods["default/agent"].node_name == "n1"
    assert "default/web-a" not in sim.scheduler.cluster.pods


def test_mirror_pods_are_skipped_and_unmanaged_pods_need_force() -> None:
    docs = [node("n1"), node("n2"),
            pod("static", "n1", owner=None, annotations={"kubernetes.io/config.mirror": "abc"}),
            pod("bare", "n1", owner=None)]
    sim = _sim(docs)
    sim.apply_manifest_action({"action": "drainNode", "node": "n1"})
    assert [line for _, line in _lines(sim)][1] == (
        'error: unable to drain node "n1" due to error: cannot delete Pods that declare no controller '
        "(use --force to override): default/bare, continuing command...")

    sim = _sim(docs)
    sim.apply_manifest_action({"action": "drainNode", "node": "n1", "force": True, "timeout": 60})
    sim.run()
    assert [line for _, line in _lines(sim)] == [
        "node/n1 cordoned",
        "Warning: deleting Pods that declare no controller: default/bare",
        "evicting pod default/bare",
        "pod/bare evicted",
        "node/n1 drained",
    ]
    assert "default/static" in sim.scheduler.cluster.pods  # the kubelet's: never evicted
    assert "default/bare" not in sim.scheduler.cluster.pods  # no controller: not re-created


def test_emptydir_pods_need_delete_emptydir_data() -> None:
    volume = {"volumes": [{"name": "scratch", "emptyDir": {}}]}
    docs = [node("n1"), node("n2"), pod("cache", "n1", spec=volume)]
    sim = _sim(docs)
    sim.apply_manifest_action({"action": "drainNode", "node": "n1"})
    assert "cannot delete Pods with local storage (use --delete-emptydir-data to override): default/cache" \
        in _lines(sim)[1][1]
    sim = _sim(docs)
    sim.apply_manifest_action({"action": "drainNode", "node": "n1", "deleteEmptyDirData": True})
    sim.run()
    assert _lines(sim)[1][1] == "Warning: deleting Pods with local storage: default/cache"
    assert _lines(sim)[-1][1] == "node/n1 drained"


def test_an_already_cordoned_node_says_so() -> None:
    sim = _sim([node("n1", unschedulable=True), node("n2")])
    sim.apply_manifest_action({"action": "drainNode", "node": "n1"})
    assert [line for _, line in _lines(sim)] == ["node/n1 already cordoned", "node/n1 drained"]


def test_a_missing_node_is_refused_and_changes_nothing() -> None:
    sim = _sim(_web())
    before = len(sim.sink.events)
    with pytest.raises(ActionError, match='node "n9" does not exist'):
        sim.apply_manifest_action({"action": "drainNode", "node": "n9"})
    assert len(sim.sink.events) == before


def test_drain_in_a_timeline_is_located_checked_and_runs_at_its_time() -> None:
    timeline = {"apiVersion": "playground.kube-scheduler.dev/v1", "kind": "Timeline",
                "actions": [{"at": 30, "action": "drainNode", "node": "n1"}]}
    sim = _sim([*_web(), timeline])
    assert [(t, line) for t, line in _lines(sim) if "drained" in line or "cordoned" in line] == [
        (30.0, "node/n1 cordoned"), (35.0, "node/n1 drained")]
    bad = {**timeline, "actions": [{"at": 30, "action": "drainNode", "node": "n1", "timeout": 0}]}
    with pytest.raises(ScenarioError) as error:
        load_scenario_text(text([*_web(), bad]), source="drain.yaml")
    assert error.value.field == "actions[0].timeout"
    gone = {**timeline, "actions": [{"at": 30, "action": "drainNode", "node": "n7"}]}
    with pytest.raises(ScenarioError, match='node "n7" does not exist at t=30') as error:
        load_scenario_text(text([*_web(), gone]), source="drain.yaml")
    assert error.value.field == "actions[0].node"


def test_a_drain_is_deterministic_across_a_checkpoint() -> None:
    sim = _sim(_web())
    sim.apply_manifest_action({"action": "drainNode", "node": "n1"})
    copy = sim.fork()
    sim.run()
    copy.run()
    assert sim.result(True) == copy.result(True)
