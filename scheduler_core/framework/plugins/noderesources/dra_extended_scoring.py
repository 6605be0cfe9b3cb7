"""Scoring of extended resources backed by DRA (DRAExtendedResource; upstream
resource_allocation.go's getDRAPreScoredParams and calculateDRAResourceTotals).

When a scoring strategy's `resources` list names an extended resource that a DeviceClass serves,
a node whose allocatable lacks it is scored on its devices instead: the allocatable is the number
of devices of the class the node's ResourceSlices publish, and the requested amount is how many of
them claims hold (or hold in flight), plus the pod's request. Used by NodeResourcesFit's
strategies and NodeResourcesBalancedAllocation. As upstream, every slice counts (whatever its
pool's generation), a device counts once it matches the class's selectors, and a selector that
fails to evaluate leaves the resource out of the node's score.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.dra.cel import compile_selector
from scheduler_core.dra.extended_resource_cache import DeviceClassResolver, is_dra_extended_resource_name
from scheduler_core.dra.structured.allocator import DeviceCelCache
from scheduler_core.dra.structured.pools import node_matches

__all__ = ["DRAPreScoreState", "dra_pre_score_state"]


class DRAPreScoreState:
    """draPreScoreState: the devices claims hold and the slices, fixed for one cycle's scoring."""

    __slots__ = ("resolver", "slices", "allocated", "cel")

    def __init__(self, resolver: DeviceClassResolver, slices: list[Any], allocated: set[tuple[str, str, str]],
                 cel: DeviceCelCache) -> None:
        self.resolver = resolver
        self.slices = slices
        self.allocated = allocated
        self.cel = cel

    def totals(self, node: Any, resource: str) -> tuple[int, int]:
        """(devices of the resource's class on the node, how many of them are held); (0, 0)
        when no class serves the resource or a selector fails."""
        cls = self.resolver.get_device_class(resource)
        if cls is None:
            return 0, 0
        selectors = [compile_selector(s.cel) for s in cls.selectors]
        capacity = held = 0
        for s in self.slices:
            if s.per_device_node_selection:
                devices = [d for d in s.devices if node_matches(node, d.node_name, d.all_nodes, d.node_selector)]
            elif node_matches(node, s.node_name, s.all_nodes, s.node_selector):
                devices = s.devices
            else:
                continue
            for d in devices:
                for compiled in selectors:
                    if compiled.error:
                        return 0, 0
                    ok, err = self.cel.verdict(compiled, s.driver, d)
                    if err is not None:
                        return 0, 0
                    if not ok:
                        break
                else:
                    capacity += 1
                    if (s.driver, s.pool_name, d.name) in self.allocated:
                        held += 1
        return capacity, held


def dra_pre_score_state(resolver: DeviceClassResolver | None, cluster: Any, resources: list[Any],
                        cel: DeviceCelCache) -> DRAPreScoreState | None:
    """getDRAPreScoredParams: the state, or None when no scored resource is backed by DRA (or the
    gate is off: no resolver)."""
    if resolver is None or cluster is None:
        return None
    resolver.refresh(cluster.device_classes)
    if not any(is_dra_extended_resource_name(r.name) and resolver.get_device_class(r.name) is not None
               for r in resources):
        return None
    flight = cluster.dra_in_flight
    allocated: set[tuple[str, str, str]] = set()
    known = set()
    for claim in cluster.resource_claims.values():
        known.add(claim.uid)
        pending = flight.get(claim.uid)
        _add_devices(allocated, pending.allocation if pending is not None else claim.allocation)
    for uid, claim in flight.items():
        if uid not in known:
            _add_devices(allocated, claim.allocation)
    return DRAPreScoreState(resolver, list(cluster.resource_slices), allocated, cel)


def _add_devices(out: set[tuple[str, str, str]], allocation: Any) -> None:
    if allocation is None:
        return
    for r in allocation.results:
        if not r.admin_access:
            out.add((r.driver, r.pool, r.device))
