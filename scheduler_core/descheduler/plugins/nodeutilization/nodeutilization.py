"""What LowNodeUtilization and HighNodeUtilization share (upstream nodeutilization.go).

Usage is what the pods bound to a node request (never real consumption), as a percentage of the
node's allocatable: cpu in millicores, the rest in units, `pods` counting pods. Nodes are
classified against thresholds; then pods leave the source nodes, lowest priority first (then
BestEffort, Burstable, Guaranteed), while the source stays above its target and the destination
nodes still have room below theirs (the "total available" the evictions use up).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from scheduler_core.api.types import Node, Pod
from scheduler_core.framework.types import pod_requests

from ...evictions import EvictionLimitError
from ...pluginargs.nodeutilization import MAX_RESOURCE_PERCENTAGE, MIN_RESOURCE_PERCENTAGE
from ...podutil import in_namespaces, pod_tolerates_taints_of_any, sort_pods_by_priority_low_to_high
from ..base import Evictor

BASIC_RESOURCES = ("cpu", "memory", "pods")


def _units(name: str, q: Fraction) -> int:
    """Quantity.MilliValue() for cpu, Value() (rounded up) for the rest: upstream's units."""
    if name == "cpu":
        return -((-q * 1000) // 1)
    return -((-q) // 1)


@dataclass
class NodeUsage:
    node: Node
    usage: dict[str, int]  # resource -> units (cpu: millicores)
    pods: list[Pod]
    available: dict[str, int] = field(default_factory=dict)  # capacity capped at the target


def capacity(node: Node, name: str) -> int:
    """Allocatable (capacity when none is reported) in upstream's units; a node always has pods."""
    alloc = node.allocatable or node.capacity
    if name not in alloc:
        return 110 if name == "pods" else 0
    return _units(name, alloc[name])


def node_usage(handle: Any, node: Node, resources: tuple[str, ...]) -> NodeUsage:
    pods = handle.pods_on(node.name)
    usage = dict.fromkeys(resources, 0)
    for p in pods:
        reqs = pod_requests(p)
        for name in resources:
            if name == "pods":
                usage[name] += 1
            elif name in reqs:
                usage[name] += _units(name, reqs[name])
    return NodeUsage(node=node, usage=usage, pods=pods)


def percentages(nu: NodeUsage) -> dict[str, float]:
    """ResourceUsageToResourceThreshold: usage / capacity x 100 (0 when the node has none)."""
    out: dict[str, float] = {}
    for name, used in nu.usage.items():
        cap = capacity(nu.node, name)
        out[name] = used / cap * 100 if cap > 0 else 0.0
    return out


def is_node_below_threshold(usage: dict[str, float], threshold: dict[str, float]) -> bool:
    """Every thresholded resource at or under its threshold."""
    return all(not threshold[name] < usage.get(name, 0.0) for name in threshold)


def is_node_above_threshold(usage: dict[str, float], threshold: dict[str, float]) -> bool:
    """At least one thresholded resource over its threshold."""
    return any(threshold[name] < usage.get(name, 0.0) for name in threshold)


def cap_capacity_to_threshold(node: Node, threshold: dict[str, float], resources: tuple[str, ...]) -> dict[str, int]:
    """capNodeCapacitiesToThreshold: capacity x threshold% (truncated), full capacity for a
    resource without a threshold."""
    out: dict[str, int] = {}
    for name in resources:
        cap = capacity(node, name)
        out[name] = int(threshold[name] * 0.01 * cap) if name in threshold else cap
    return out


def average(usages: dict[str, dict[str, float]], names: tuple[str, ...]) -> dict[str, float]:
    if not usages:
        return dict.fromkeys(names, 0.0)
    return {n: sum(u.get(n, 0.0) for u in usages.values()) / len(usages) for n in names}


def clamp(t: dict[str, float]) -> dict[str, float]:
    return {k: min(MAX_RESOURCE_PERCENTAGE, max(MIN_RESOURCE_PERCENTAGE, v)) for k, v in t.items()}


def extended_resource_names(thresholds: dict[str, float]) -> tuple[str, ...]:
    names = list(BASIC_RESOURCES)
    names += sorted(n for n in thresholds if n not in BASIC_RESOURCES)
    return tuple(names)


def sort_nodes_by_usage(nodes: list[NodeUsage], ascending: bool) -> list[NodeUsage]:
    """The sum of a node's usage values (cpu in millicores) orders the nodes; name breaks ties."""
    def total(nu: NodeUsage) -> int:
        return sum(nu.usage.values())
    return sorted(nodes, key=lambda nu: (total(nu) if ascending else -total(nu), nu.node.name))


def evict_pods_from_source_nodes(
    *, handle: Any, evictor: Evictor, strategy: str, source: list[NodeUsage], destination: list[NodeUsage],
    resources: tuple[str, ...], continue_eviction: Callable[[NodeUsage, dict[str, int]], bool],
    excluded_namespaces: tuple[str, ...] = (), max_per_node: int | None = None,
) -> None:
    """Move pods off `source` nodes (in the order given) while there is room on `destination`."""
    available: dict[str, int] = dict.fromkeys(resources, 0)
    for nu in destination:
        for name in resources:
            available[name] += nu.available[name] - nu.usage[name]
    taints = {nu.node.name: list(nu.node.taints) for nu in destination}
    for nu in source:
        removable = [p for p in nu.pods if evictor.filter(p)]
        if not removable:
            continue
        try:
            _evict_pods(handle, evictor, strategy, sort_pods_by_priority_low_to_high(removable), nu, available,
                        taints, continue_eviction, excluded_namespaces, max_per_node)
        except EvictionLimitError as error:
            if error.scope == "total":
                return


def _evict_pods(handle: Any, evictor: Evictor, strategy: str, pods: list[Pod], nu: NodeUsage,
                available: dict[str, int], taints: dict[str, list[Any]],
                continue_eviction: Callable[[NodeUsage, dict[str, int]], bool],
                excluded_namespaces: tuple[str, ...], max_per_node: int | None) -> None:
    if not continue_eviction(nu, available):
        return
    evicted = 0
    for pod in pods:
        if max_per_node is not None and evicted >= max_per_node:
            break
        if not pod_tolerates_taints_of_any(pod, taints):
            continue
        if not in_namespaces(pod, ((), excluded_namespaces)):
            continue
        try:
            if not evictor.evict(handle, pod, strategy):
                continue
        except EvictionLimitError as error:
            if error.scope in ("node", "total"):
                raise
            continue
        evicted += 1
        reqs = pod_requests(pod)
        for name in available:
            used = 1 if name == "pods" else (_units(name, reqs[name]) if name in reqs else 0)
            nu.usage[name] -= used
            available[name] -= used
        if not continue_eviction(nu, available):
            break


def classified_event(nodes: list[Node], pct: dict[str, dict[str, float]], groups: dict[str, str],
                     thresholds: dict[str, list[dict[str, float]]]) -> list[dict[str, Any]]:
    """The classification as the pass reports it: per node, its usage percentages, its
    thresholds (low, high) and its class."""
    return [{"node": n.name, "usage": {k: round(v, 2) for k, v in pct[n.name].items()},
             "thresholds": [{k: round(v, 2) for k, v in t.items()} for t in thresholds[n.name]],
             "class": groups.get(n.name, "appropriately utilized")} for n in nodes]


def nothing_to_do(under: list[Any], nodes: int, number_of_nodes: int, others: list[Any], no_others: str) -> str:
    """Why a utilization strategy stops before evicting (upstream's log lines; "" to go on):
    `under` the underutilized nodes, `others` the nodes on the other side (the overutilized
    ones, or the destinations), `no_others` what to say when there are none."""
    if not under:
        return "No node is underutilized, nothing to do here, you might tune your thresholds further"
    if len(under) <= number_of_nodes:
        return "Number of nodes underutilized is less or equal than NumberOfNodes, nothing to do here"
    if len(under) == nodes:
        return "All nodes are underutilized, nothing to do here"
    if not others:
        return no_others
    return ""
