"""DefaultEvictor's rules and the policy's limits."""

from __future__ import annotations

import pytest

from tests.engine.descheduler.helpers import deschedule, evicted, node, pod, policy, profile, simulate

TAINT = {"action": "addTaint", "node": "a", "taint": {"key": "k", "effect": "NoSchedule"}}


def _evicted(pods, evictor=None, **top):
    sim = simulate([node("a"), node("b"), *pods,
                    policy([profile("RemovePodsViolatingNodeTaints", "deschedule", evictor=evictor)], **top)])
    sim.apply_manifest_action(TAINT)
    return evicted(deschedule(sim))


def test_bare_pods_stay_unless_failed_and_allowed():
    assert _evicted([pod("bare", "a", owner=None)]) == []


def test_system_critical_pods_stay_unless_allowed():
    critical = pod("c", "a", spec={"priorityClassName": "system-cluster-critical"})
    assert _evicted([critical]) == []
    assert _evicted([critical], evictor={"evictSystemCriticalPods": True}) == ["default/c"]


def test_priority_threshold():
    pods = [pod("low", "a", spec={"priority": 5}), pod("high", "a", spec={"priority": 100})]
    assert _evicted(pods, evictor={"priorityThreshold": {"value": 100}}) == ["default/low"]


def test_local_storage_and_daemonset_pods():
    local = pod("local", "a", spec={"volumes": [{"name": "scratch", "emptyDir": {}}]})
    ds = pod("ds", "a", owner=("DaemonSet", "agent"))
    assert _evicted([local, ds]) == []
    assert sorted(_evicted([local, ds], evictor={"evictLocalStoragePods": True, "evictDaemonSetPods": True})) == \
        ["default/ds", "default/local"]


def test_evict_annotation_overrides_the_rules():
    assert _evicted([pod("bare", "a", owner=None,
                         annotations={"descheduler.alpha.kubernetes.io/evict": "true"})]) == ["default/bare"]


def test_label_selector_and_node_fit():
    pods = [pod("x", "a", labels={"app": "x"}), pod("y", "a", labels={"app": "y"})]
    assert _evicted(pods, evictor={"labelSelector": {"matchLabels": {"app": "y"}}}) == ["default/y"]
    # nodeFit: b is cordoned, so no other node would take the pod.
    sim = simulate([node("a"), node("b", unschedulable=True), pod("p", "a"),
                    policy([profile("RemovePodsViolatingNodeTaints", "deschedule", evictor={"nodeFit": True})])])
    sim.apply_manifest_action(TAINT)
    assert evicted(deschedule(sim)) == []


@pytest.mark.parametrize("top,expect", [({"maxNoOfPodsToEvictPerNode": 1}, 1),
                                        ({"maxNoOfPodsToEvictPerNamespace": 2}, 2),
                                        ({"maxNoOfPodsToEvictTotal": 0}, 0), ({}, 3)])
def test_eviction_limits(top, expect):
    assert len(_evicted([pod(f"p{i}", "a") for i in range(3)], **top)) == expect


def test_a_pass_on_a_one_node_cluster_does_nothing():
    sim = simulate([node("a"), pod("p", "a"), policy([profile("RemovePodsViolatingNodeTaints", "deschedule")])])
    sim.apply_manifest_action(TAINT)
    events = deschedule(sim)
    assert evicted(events) == [] and "aborting" in events[-1]["note"]
