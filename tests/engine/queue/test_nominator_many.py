"""The nominator with thousands of pods under one node name: a cluster whose unschedulable pods
each found no preemption candidate keeps all of them under the empty node name (as upstream's
nominator does). Each node's pods are a dict keyed by uid in nomination order, so adding,
re-adding and removing one finds it at once instead of scanning the others; a checkpoint
written with the older per-node lists restores to the same order."""

from __future__ import annotations

import pickle

from scheduler_core.backend.queue.nominator import NominatingInfo, NominatingMode, Nominator, PodRef
from scheduler_core.framework.types import PodInfo
from tests.engine.queue.queue_fakes import mkpod

CLEAR = NominatingInfo("", NominatingMode.OVERRIDE)


def test_thousands_under_the_empty_node_keep_their_order_and_leave_one_by_one():
    nominator = Nominator()
    pods = [mkpod(f"p-{i}") for i in range(3000)]
    for p in pods:
        nominator.add_nominated_pod(PodInfo(p), CLEAR)
    under = nominator.nominated_pods[""]
    assert isinstance(under, dict) and list(under)[:3] == ["uid-default-p-0", "uid-default-p-1", "uid-default-p-2"]
    # Re-adding a pod (each failed attempt does) moves it to the end, as delete-then-append did.
    nominator.add_nominated_pod(PodInfo(pods[0]), CLEAR)
    assert [r.key for r in nominator.nominated_refs_for_node("")][-2:] == ["default/p-2999", "default/p-0"]
    # One is nominated to a node, then every pod leaves: nothing is left behind.
    nominator.add_nominated_pod(PodInfo(pods[5]), NominatingInfo("node-a", NominatingMode.OVERRIDE))
    assert nominator.has_node_nominations()
    assert [r.key for r in nominator.nominated_refs_for_node("node-a")] == ["default/p-5"]
    for p in pods:
        nominator.delete_nominated_pod_if_exists(p)
    assert nominator.nominated_pods == {} and nominator.nominated_pod_to_node == {}


def test_a_checkpoint_with_per_node_lists_restores_in_order():
    old = Nominator.__new__(Nominator)
    refs = [PodRef(f"p-{i}", "default", f"uid-default-p-{i}") for i in (2, 0, 1)]
    old.__setstate__({"nominated_pods": {"node-a": refs},
                      "nominated_pod_to_node": {r.uid: "node-a" for r in refs}})
    restored = pickle.loads(pickle.dumps(old))
    assert [r.name for r in restored.nominated_refs_for_node("node-a")] == ["p-2", "p-0", "p-1"]
    restored.delete_nominated_pod_if_exists(mkpod("p-0"))
    assert [r.name for r in restored.nominated_refs_for_node("node-a")] == ["p-2", "p-1"]
