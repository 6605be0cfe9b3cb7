"""The snapshot's incremental counts of tainted, cordoned and image-holding nodes.

TaintToleration, NodeUnschedulable and ImageLocality skip their per-node walk when a count is
zero, so a count that drifted from the nodes would change verdicts: after every change the
incremental counts must equal a recount, and the node list must match the node tree.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from scheduler_core.api.types import ContainerImage, Node, Taint
from scheduler_core.backend.cache.cache import Cache
from scheduler_core.backend.cache.node_tree import NodeTree
from scheduler_core.backend.cache.snapshot import Snapshot, node_traits


def _counts(snap: Snapshot) -> tuple[int, int, int]:
    return snap.num_tainted, snap.num_unschedulable, snap.num_with_images


def _recounted(snap: Snapshot) -> tuple[int, int, int]:
    t = [node_traits(ni) for ni in snap.node_info_list]
    return sum(a for a, _, _ in t), sum(b for _, b, _ in t), sum(c for _, _, c in t)


def _node(i: int) -> Node:
    return Node(name=f"n{i}", labels={"topology.kubernetes.io/zone": f"z{i % 3}"},
                allocatable={"cpu": 4, "memory": 1 << 30, "pods": 110})


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_counts_follow_node_changes(seed: int) -> None:
    rng = random.Random(seed)
    cache, snap = Cache(), Snapshot()
    nodes = {i: _node(i) for i in range(12)}
    for n in nodes.values():
        cache.add_node(n)
    cache.update_snapshot(snap)
    assert _counts(snap) == (0, 0, 0)
    seen_nonzero = False
    for _ in range(60):
        i = rng.randrange(12)
        old = nodes[i]
        choice = rng.randrange(4)
        if choice == 0:
            new = replace(old, taints=[] if old.taints else [Taint("k", "v", "NoSchedule")])
        elif choice == 1:
            new = replace(old, unschedulable=not old.unschedulable)
        elif choice == 2:
            new = replace(old, images=[] if old.images else [ContainerImage([f"img{i}:1"], 10)])
        else:
            new = replace(old, labels={"topology.kubernetes.io/zone": f"z{rng.randrange(4)}"})
        cache.update_node(old, new)
        nodes[i] = new
        if rng.random() < 0.7:
            cache.update_snapshot(snap)
            assert _counts(snap) == _recounted(snap)
            seen_nonzero = seen_nonzero or any(_counts(snap))
    cache.update_snapshot(snap)
    assert _counts(snap) == _recounted(snap)
    assert [ni.name for ni in snap.node_info_list] == cache.node_tree.list()
    assert seen_nonzero


def test_node_tree_ignores_a_second_add_and_survives_pickling() -> None:
    import pickle

    tree = NodeTree()
    for i in range(6):
        tree.add_node(_node(i))
    tree.add_node(_node(3))
    assert tree.num_nodes == 6
    back = pickle.loads(pickle.dumps(tree))
    back.add_node(_node(4))
    assert back.num_nodes == 6 and back.list() == tree.list()
    assert back.remove_node(_node(4)) and not back.remove_node(_node(4))
