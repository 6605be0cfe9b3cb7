"""LowNodeUtilization (Balance): pods leave nodes over `targetThresholds` for nodes under
`thresholds` (upstream lownodeutilization.go).

A node is underutilized when every thresholded resource is at or under `thresholds` (and it is
schedulable), overutilized when any is over `targetThresholds`. Nothing moves when no node is
underutilized, when no more than `numberOfNodes` are, when all are, or when none is over.
Overutilized nodes are drained most used first, each until it is no longer over its target or
the underutilized nodes' room up to their targets is used up. `useDeviationThresholds` reads
both thresholds as distances from the nodes' average usage.
"""

from __future__ import annotations

from typing import Any

from ...pluginargs.lownodeutilization import NAME, LowNodeUtilizationArgs
from ..base import Strategy
from . import nodeutilization as nu


class LowNodeUtilization(Strategy):
    name = NAME
    extension_point = "balance"

    def run(self, nodes: list[Any]) -> None:
        a: LowNodeUtilizationArgs = self.args
        resources = nu.extended_resource_names(a.thresholds)
        usages = {n.name: nu.node_usage(self.handle, n, resources) for n in nodes}
        pct = {name: nu.percentages(u) for name, u in usages.items()}
        if a.use_deviation_thresholds:
            avg = nu.average({k: {r: v[r] for r in a.thresholds} for k, v in pct.items()}, tuple(a.thresholds))
            low = nu.clamp({r: avg[r] - a.thresholds[r] for r in a.thresholds})
            high = nu.clamp({r: avg[r] + a.target_thresholds[r] for r in a.thresholds})
        else:
            low, high = dict(a.thresholds), dict(a.target_thresholds)
        thresholds = {n.name: [low, high] for n in nodes}
        groups: dict[str, str] = {}
        low_nodes, high_nodes = [], []
        for n in nodes:
            if not n.unschedulable and nu.is_node_below_threshold(pct[n.name], low):
                groups[n.name] = "underutilized"
                low_nodes.append(usages[n.name])
            elif nu.is_node_above_threshold(pct[n.name], high):
                groups[n.name] = "overutilized"
                high_nodes.append(usages[n.name])
        for u in (*low_nodes, *high_nodes):
            u.available = nu.cap_capacity_to_threshold(u.node, high, resources)
        why = nu.nothing_to_do(low_nodes, len(nodes), a.number_of_nodes, high_nodes,
                               "All nodes are under target utilization, nothing to do here")
        self.handle.scheduler.sink.emit(
            "descheduler_nodes_classified", strategy=NAME, profile=self.evictor.profile,
            nodes=nu.classified_event(nodes, pct, groups, thresholds), outcome=why or "evicting")
        if why:
            return

        def continue_eviction(node: nu.NodeUsage, available: dict[str, int]) -> bool:
            if not any(node.available[r] < node.usage[r] for r in node.usage):
                return False
            return all(v > 0 for v in available.values())

        nu.evict_pods_from_source_nodes(
            handle=self.handle, evictor=self.evictor, strategy=NAME,
            source=nu.sort_nodes_by_usage(high_nodes, ascending=False), destination=low_nodes,
            resources=resources, continue_eviction=continue_eviction,
            excluded_namespaces=a.evictable_namespaces_exclude, max_per_node=a.eviction_limits_node)
