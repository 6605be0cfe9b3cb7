"""HighNodeUtilization (Balance): pods leave the nodes under `thresholds` so the scheduler
(best with a MostAllocated scoring strategy) packs them onto fewer nodes (upstream
highnodeutilization.go). Underutilized nodes are drained least used first while the other
schedulable nodes still have room (their full allocatable)."""

from __future__ import annotations

from typing import Any

from ...pluginargs.highnodeutilization import NAME, HighNodeUtilizationArgs
from ..base import Strategy
from . import nodeutilization as nu


class HighNodeUtilization(Strategy):
    name = NAME
    extension_point = "balance"

    def run(self, nodes: list[Any]) -> None:
        a: HighNodeUtilizationArgs = self.args
        resources = nu.extended_resource_names(a.thresholds)
        usages = {n.name: nu.node_usage(self.handle, n, resources) for n in nodes}
        pct = {name: nu.percentages(u) for name, u in usages.items()}
        full = dict.fromkeys(a.thresholds, float(nu.MAX_RESOURCE_PERCENTAGE))
        thresholds = {n.name: [dict(a.thresholds), full] for n in nodes}
        groups: dict[str, str] = {}
        source, destination = [], []
        for n in nodes:
            if nu.is_node_below_threshold(pct[n.name], a.thresholds):
                groups[n.name] = "underutilized"
                source.append(usages[n.name])
            elif not n.unschedulable:
                groups[n.name] = "overutilized"
                destination.append(usages[n.name])
        for u in (*source, *destination):
            u.available = nu.cap_capacity_to_threshold(u.node, full, resources)
        why = nu.nothing_to_do(source, len(nodes), a.number_of_nodes, destination,
                               "No node is available to schedule the pods, nothing to do here")
        self.handle.scheduler.sink.emit(
            "descheduler_nodes_classified", strategy=NAME, profile=self.evictor.profile,
            nodes=nu.classified_event(nodes, pct, groups, thresholds), outcome=why or "evicting")
        if why:
            return

        def continue_eviction(node: nu.NodeUsage, available: dict[str, int]) -> bool:
            return all(v > 0 for v in available.values())

        nu.evict_pods_from_source_nodes(
            handle=self.handle, evictor=self.evictor, strategy=NAME,
            source=nu.sort_nodes_by_usage(source, ascending=True), destination=destination,
            resources=resources, continue_eviction=continue_eviction,
            excluded_namespaces=a.evictable_namespaces_exclude)
