"""The nominator with thousands of pods under one node name: a cluster whose unschedulable pods
each found no preemption candidate keeps all of them under the empty node name (as upstream's
nominator does). Each node's pods are a dict keyed by uid in nomination order, so adding,
re-adding and removing one finds it at once instead of scanning the others; a checkpoint keeps
that order (a checkpoint of the older per-node lists has another CHECKPOINT_VERSION and is
rebuilt from the log instead)."""

from __future__ import annotations

import pickle

from scheduler_core.backend.queue.nominator import NominatingInfo, NominatingMode, Nominator
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


def test_a_checkpoint_keeps_each_nodes_nomination_order():
    nominator = Nominator()
    for i in (2, 0, 1):
        nominator.add_nominated_pod(PodInfo(mkpod(f"p-{i}")), NominatingInfo("node-a", NominatingMode.OVERRIDE))
    restored = pickle.loads(pickle.dumps(nominator))
    assert [r.name for r in restored.nominated_refs_for_node("node-a")] == ["p-2", "p-0", "p-1"]
    restored.delete_nominated_pod_if_exists(mkpod("p-0"))
    assert [r.name for r in restored.nominated_refs_for_node("node-a")] == ["p-2", "p-1"]
