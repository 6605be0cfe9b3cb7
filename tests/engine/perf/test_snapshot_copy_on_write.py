"""The snapshot shares the cache's NodeInfos (copy on write, backend/cache/cache.py).

Plugins read the snapshot for a whole cycle while the cache keeps changing, so a NodeInfo the
snapshot holds must never change under it: after any sequence of cache changes (pods assumed,
confirmed, forgotten, updated and removed; nodes updated, given images, removed and added),
every snapshot NodeInfo reads exactly as it did right after the last `update_snapshot`, and the
next `update_snapshot` gives what the cache holds. Image summaries are the exception upstream
makes: a snapshot copy keeps the node counts of when it was copied, so they are compared as
objects the cache no longer changes.
"""

from __future__ import annotations

import pickle
import random
from dataclasses import replace

import pytest

from scheduler_core.api.types import (
    Affinity,
    Container,
    ContainerImage,
    ContainerPort,
    LabelSelector,
    Node,
    Pod,
    PodAffinityTerm,
    PodAntiAffinity,
)
from scheduler_core.backend.cache.cache import Cache
from scheduler_core.backend.cache.snapshot import Snapshot
from scheduler_core.framework.types import NodeInfo


def _node(i: int, images: bool = False) -> Node:
    return Node(name=f"n{i}", labels={"topology.kubernetes.io/zone": f"z{i % 3}"},
                allocatable={"cpu": 8, "memory": 1 << 32, "pods": 110},
                images=[ContainerImage([f"img{i % 2}:1"], 10 + i)] if images else [])


def _pod(k: int, node: str, rng: random.Random) -> Pod:
    anti = None
    if rng.random() < 0.3:
        term = PodAffinityTerm(LabelSelector({"app": "x"}), topology_key="kubernetes.io/hostname")
        anti = Affinity(pod_anti_affinity=PodAntiAffinity(required=[term]))
    ports = [ContainerPort(80, host_port=8000 + k)] if rng.random() < 0.3 else []
    return Pod(f"p{k}", uid=f"u{k}", labels={"app": "x"}, node_name=node, affinity=anti,
               containers=[Container("c", requests={"cpu": rng.choice([0, 1, 2])}, ports=ports)])


def _reading(ni: NodeInfo) -> tuple:
    """Everything a plugin can read of a NodeInfo, image summaries as (object id, size, count)."""
    return (ni.name, id(ni.node), [p.pod.key for p in ni.pods], [p.pod.key for p in ni.pods_with_affinity],
            [p.pod.key for p in ni.pods_with_required_anti_affinity],
            {ip: sorted(m) for ip, m in ni.used_ports.ports.items()},
            ni.requested.to_json(), ni.non_zero_requested.to_json(), ni.allocatable.to_json(),
            {k: (id(v), v.size, v.num_nodes) for k, v in ni.image_states.items()}, ni.generation)


def _content(ni: NodeInfo) -> tuple:
    """_reading without the image summaries' identity and counts (copies freeze the counts)."""
    r = _reading(ni)
    return r[:9] + (sorted(r[9]), r[10])


def _check_updated(cache: Cache, snap: Snapshot) -> None:
    assert [ni.name for ni in snap.node_info_list] == cache.node_tree.list()
    assert set(snap.node_info_map) == set(cache.nodes)
    for name, ni in snap.node_info_map.items():
        assert snap.node_info_list[snap.index[name]] is ni
        assert _content(ni) == _content(cache.nodes[name])
        live = {id(v) for v in cache.image_states.values()}
        assert not any(id(v) in live for v in ni.image_states.values())  # frozen counts


@pytest.mark.parametrize("seed", range(4))
def test_snapshot_nodeinfos_never_change_under_the_snapshot(seed: int) -> None:
    rng = random.Random(seed)
    cache, snap = Cache(), Snapshot()
    nodes = {i: _node(i, images=rng.random() < 0.3) for i in range(10)}
    for n in nodes.values():
        cache.add_node(n)
    bound: dict[str, Pod] = {}
    assumed: dict[str, Pod] = {}
    k = 0
    prev_list, prev_obj, prev_log, prev_end = None, None, None, 0
    for step in range(150):
        cache.update_snapshot(snap)
        _check_updated(cache, snap)
        if snap.row_log is prev_log:
            # Same list: every slot replaced since the last update is in the row log.
            assert snap.node_info_list is prev_obj
            replaced = {i for i, (a, b) in enumerate(zip(prev_list, snap.node_info_list, strict=True)) if a is not b}
            assert replaced <= set(prev_log.since(prev_end))
        prev_list, prev_obj = list(snap.node_info_list), snap.node_info_list
        prev_log, prev_end = snap.row_log, snap.row_log.end()
        seen = {name: _reading(ni) for name, ni in snap.node_info_map.items()}
        for _ in range(rng.randrange(1, 5)):
            choice = rng.randrange(8)
            names = sorted(cache.nodes)
            if choice <= 1:
                k += 1
                pod = _pod(k, rng.choice(names), rng)
                cache.assume_pod(pod)
                assumed[pod.key] = pod
            elif choice == 2 and assumed:
                key = rng.choice(sorted(assumed))
                pod = assumed.pop(key)
                if rng.random() < 0.5:
                    cache.forget_pod(pod)
                else:
                    cache.add_pod(pod)
                    bound[key] = pod
            elif choice == 3 and bound:
                key = rng.choice(sorted(bound))
                cache.remove_pod(bound.pop(key))
            elif choice == 4 and bound:
                key = rng.choice(sorted(bound))
                old = bound[key]
                new = replace(old, labels={"app": "y"})
                cache.update_pod(old, new)
                bound[key] = new
            elif choice == 5:
                i = rng.choice(sorted(nodes))
                old = nodes[i]
                new = replace(old, images=[] if old.images else _node(i, images=True).images,
                              unschedulable=rng.random() < 0.2)
                cache.update_node(old, new)
                nodes[i] = new
            elif choice == 6 and len(nodes) > 3 and step % 10 == 0:
                i = rng.choice(sorted(nodes))
                gone = [p for p in (*bound.values(), *assumed.values()) if p.node_name == nodes[i].name]
                for p in gone:
                    bound.pop(p.key, None)
                    assumed.pop(p.key, None)
                    cache.pod_states.pop(p.key, None)
                    cache.assumed_pods.discard(p.key)
                cache.remove_node(nodes.pop(i))
            elif choice == 7:
                i = max(nodes) + 1 if rng.random() < 0.5 else rng.choice(sorted(nodes))
                nodes[i] = _node(i, images=rng.random() < 0.5)
                cache.add_node(nodes[i])
            # Whatever the cache did, the snapshot reads as it did at its last update.
            assert {name: _reading(ni) for name, ni in snap.node_info_map.items()} == seen
    cache.update_snapshot(snap)
    _check_updated(cache, snap)


def test_a_restored_cache_still_copies_before_changing_a_shared_nodeinfo() -> None:
    cache, snap = Cache(), Snapshot()
    for i in range(3):
        cache.add_node(_node(i))
    cache.update_snapshot(snap)
    assert snap.get("n0") is cache.nodes["n0"]  # shared, not copied
    cache2, snap2 = pickle.loads(pickle.dumps((cache, snap)))
    assert snap2.get("n0") is cache2.nodes["n0"]
    before = _reading(snap2.get("n0"))
    cache2.assume_pod(_pod(1, "n0", random.Random(0)))
    assert _reading(snap2.get("n0")) == before
    cache2.update_snapshot(snap2)
    assert [p.pod.key for p in snap2.get("n0").pods] == ["default/p1"]
