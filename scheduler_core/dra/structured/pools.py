"""Resource pools as one node sees them (upstream structured/internal/incubating/pools_incubating.go).

A pool is the set of ResourceSlices one driver publishes under one pool name. The slices of the
newest generation count; a pool is complete when all its `resourceSliceCount` slices are there,
and invalid when two of its slices name the same device. Only complete, valid pools are
allocated from (an incomplete pool is skipped; "All" requests refuse to guess).

`SliceIndex` files the slices once by the node they name, so gathering a node's pools costs the
slices that can concern it rather than every slice in the cluster.

With DRAPartitionableDevices on, a slice with `sharedCounters` belongs to every node's view of its
pool (its counter sets are shared by devices wherever they are); a pool whose counter sets repeat
a name, or whose devices consume a set or counter the pool does not define, is invalid. With the
gate off such slices are left out, as upstream's GatherPools does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scheduler_core.api.resource_types import CounterSet, ResourceSlice
from scheduler_core.api.types import Node, NodeSelector
from scheduler_core.framework.plugins.helper.nodeaffinity import new_node_selector

__all__ = ["Pool", "SliceIndex", "node_matches"]


@dataclass
class Pool:
    driver: str
    pool: str
    is_incomplete: bool = False
    is_invalid: bool = False
    invalid_reason: str = ""
    slices: list[ResourceSlice] = field(default_factory=list)  # device slices targeting the node
    # DRAPartitionableDevices: the pool's other device slices (counters they hold count too)
    # and its counter sets by name.
    slices_not_targeting: list[ResourceSlice] = field(default_factory=list)
    counter_sets: dict[str, CounterSet] = field(default_factory=dict)

    @property
    def pool_id(self) -> str:
        return f"{self.driver}/{self.pool}"


class NodeSelectorError(Exception):
    pass


def node_matches(node: Node | None, node_name: str, all_nodes: bool,
                 selector: NodeSelector | None) -> bool:
    """Does a slice (nodeName / allNodes / nodeSelector) make its devices available on node?"""
    if node_name:
        return node is not None and node.name == node_name
    if all_nodes:
        return True
    if selector is not None:
        ns = new_node_selector(selector)
        if ns.errors():
            raise NodeSelectorError(f"failed to parse node selector: {'; '.join(ns.errors())}")
        return ns.match(node)
    return False


class SliceIndex:
    """The cluster's slices, filed by node name and by pool (built once per slice set)."""

    __slots__ = ("slices", "by_node", "other", "by_pool", "_pools", "partitionable")

    def __init__(self, slices: list[ResourceSlice], partitionable: bool = False) -> None:
        self.partitionable = partitionable
        self.slices = slices
        # node name -> (the Node object the pools were gathered for, its pools): a node update
        # replaces the Node object, which invalidates the entry (labels may select other slices).
        self._pools: dict[str, tuple[Node, list[Pool]]] = {}
        self.by_node: dict[str, list[ResourceSlice]] = {}
        self.other: list[ResourceSlice] = []  # allNodes / nodeSelector slices
        self.by_pool: dict[tuple[str, str], list[ResourceSlice]] = {}
        for s in slices:
            # (every slice of a pool counts when checking that the pool is complete)
            self.by_pool.setdefault((s.driver, s.pool_name), []).append(s)
            if s.per_device_node_selection and not partitionable:
                continue  # left out by GatherPools without the gate
            if s.node_name and not (partitionable and s.shared_counters):
                self.by_node.setdefault(s.node_name, []).append(s)
            else:
                self.other.append(s)

    def may_target(self, node: Node) -> bool:
        """Could any slice make devices available on `node`? (cheap: no selector is evaluated)"""
        return bool(self.other) or node.name in self.by_node

    def candidates(self, node: Node) -> list[ResourceSlice]:
        """The slices that may target `node`, in the cluster's slice order."""
        mine = self.by_node.get(node.name, [])
        if not self.other:
            return mine
        if not mine:
            return self.other
        order = {id(s): i for i, s in enumerate(self.slices)}
        return sorted([*mine, *self.other], key=lambda s: order[id(s)])

    def gather_pools(self, node: Node) -> list[Pool]:
        """GatherPools: the pools with slices targeting `node`, in first-slice order (computed
        once per Node object; callers must not modify the answer)."""
        found = self._pools.get(node.name)
        if found is not None and found[0] is node:
            return found[1]
        pools = self._gather(node)
        self._pools[node.name] = (node, pools)
        return pools

    def _gather(self, node: Node) -> list[Pool]:
        pools: dict[tuple[str, str], list[ResourceSlice]] = {}
        for s in self.candidates(node):
            if s.per_device_node_selection:
                if not any(node_matches(node, d.node_name, d.all_nodes, d.node_selector) for d in s.devices):
                    continue
            elif not (self.partitionable and s.shared_counters) and \
                    not node_matches(node, s.node_name, s.all_nodes, s.node_selector):
                continue
            key = (s.driver, s.pool_name)
            current = pools.get(key)
            if current is None:
                pools[key] = [s]
            elif s.pool_generation > current[0].pool_generation:
                pools[key] = [s]
            elif s.pool_generation == current[0].pool_generation:
                current.append(s)
        result: list[Pool] = []
        for (driver, name), slices in pools.items():
            generation = slices[0].pool_generation
            count = slices[0].resource_slice_count
            if len(slices) == count:
                result.append(_build_pool(driver, name, slices, self.partitionable, None))
                continue
            # Some slices of the pool target other nodes (or are missing): look at all of them.
            all_slices = []
            obsolete = False
            for s in self.by_pool.get((driver, name), []):
                if s.pool_generation == generation:
                    all_slices.append(s)
                elif s.pool_generation > generation:
                    obsolete = True
                    break
            if obsolete:
                continue
            if len(all_slices) != count:
                result.append(Pool(driver, name, is_incomplete=True))
                continue
            result.append(_build_pool(driver, name, slices, self.partitionable, all_slices))
        return result


def _build_pool(driver: str, name: str, slices: list[ResourceSlice], partitionable: bool,
                all_slices: list[ResourceSlice] | None) -> Pool:
    if partitionable:
        device_slices = [s for s in slices if not s.shared_counters]
        counter_slices = [s for s in slices if s.shared_counters]
    else:
        device_slices, counter_slices = slices, []
    seen: set[str] = set()
    for s in device_slices:
        for d in s.devices:
            if d.name in seen:
                return Pool(driver, name, is_invalid=True, invalid_reason=f"duplicate device name {d.name}")
            seen.add(d.name)
    if not partitionable:
        return Pool(driver, name, slices=device_slices)
    counter_sets: dict[str, CounterSet] = {}
    for s in counter_slices:
        for cs in s.shared_counters:
            if cs.name in counter_sets:
                return Pool(driver, name, is_invalid=True,
                            invalid_reason=f"duplicate counter set name {cs.name}")
            counter_sets[cs.name] = cs
    reason = _check_consumption(counter_sets, slices)
    if reason:
        return Pool(driver, name, is_invalid=True, invalid_reason=reason)
    if all_slices is None or len(slices) == len(all_slices):
        return Pool(driver, name, slices=device_slices, counter_sets=counter_sets)
    mine = {s.name for s in slices}
    others = [s for s in all_slices if s.name not in mine]
    reason = _check_consumption(counter_sets, others)
    if reason:
        return Pool(driver, name, is_invalid=True, invalid_reason=reason)
    return Pool(driver, name, slices=device_slices, slices_not_targeting=others,
                counter_sets=counter_sets)


def _check_consumption(counter_sets: dict[str, CounterSet], slices: list[ResourceSlice]) -> str:
    """validateDeviceCounterConsumption: every consumed set and counter exists in the pool."""
    for s in slices:
        for d in s.devices:
            for use in d.consumes_counters:
                cs = counter_sets.get(use.counter_set)
                if cs is None:
                    return f"counter set {use.counter_set} not found"
                for counter in use.counters:
                    if counter not in cs.counters:
                        return f"counter {counter} not found in counter set {cs.name}"
    return ""
