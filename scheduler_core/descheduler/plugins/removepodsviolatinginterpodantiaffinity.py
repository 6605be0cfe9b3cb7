"""RemovePodsViolatingInterPodAntiAffinity (Deschedule): evicts a pod whose required pod
anti-affinity is violated by a pod in the same topology domain (both placed before the rule
could see the other), lowest priority first, so each violation costs one eviction (upstream
removepodsviolatinginterpodantiaffinity)."""

from __future__ import annotations

from typing import Any

from scheduler_core.api.types import Pod

from ..pluginargs.removepodsviolatinginterpodantiaffinity import NAME, RemovePodsViolatingInterPodAntiAffinityArgs
from ..podutil import sort_pods_by_priority_low_to_high
from .base import Strategy


class RemovePodsViolatingInterPodAntiAffinity(Strategy):
    name = NAME
    extension_point = "deschedule"

    def _violates(self, pod: Pod, node: Any, others: list[tuple[Pod, Any]]) -> bool:
        aff = pod.affinity
        terms = aff.pod_anti_affinity.required if aff is not None and aff.pod_anti_affinity is not None else []
        cs = self.handle.cluster
        for term in terms:
            if term.label_selector is None or term.topology_key not in node.labels:
                continue
            value = node.labels[term.topology_key]
            for other, other_node in others:
                if other.key == pod.key or other_node.labels.get(term.topology_key) != value:
                    continue
                if term.namespace_selector is not None:
                    in_ns = term.namespace_selector.matches(cs.namespace_labels(other.namespace)) or \
                        other.namespace in term.namespaces
                else:
                    in_ns = other.namespace in (term.namespaces or [pod.namespace])
                if in_ns and term.label_selector.matches(other.labels):
                    return True
        return False

    def run(self, nodes: list[Any]) -> None:
        a: RemovePodsViolatingInterPodAntiAffinityArgs = self.args
        by_name = {n.name: n for n in self.handle.cluster.nodes.values()}
        for node in nodes:
            for pod in sort_pods_by_priority_low_to_high(self.handle.pods_on(node.name)):
                if not a.selection.selects(pod) or not self.evictor.filter(pod):
                    continue
                others = [(p, by_name[n]) for n in by_name for p in self.handle.pods_on(n)]
                if self._violates(pod, node, others) and not self.evict_or_stop(pod):
                    break
