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
        cs = self.handle.cluster
        others: list[tuple[Pod, Any]] | None = None  # every placed pod with its node, built when needed
        gone: set[str] = set()
        for node in nodes:
            for pod in sort_pods_by_priority_low_to_high(self.handle.pods_on(node.name)):
                aff = pod.affinity
                if aff is None or aff.pod_anti_affinity is None or not aff.pod_anti_affinity.required:
                    continue
                if not a.selection.selects(pod) or not self.evictor.filter(pod):
                    continue
                if others is None:
                    others = [(p, n) for _, n in sorted(cs.nodes.items()) for p in self.handle.pods_on(n.name)]
                live = [(p, n) for p, n in others if p.key not in gone]
                if self._violates(pod, node, live):
                    if not self.evict_or_stop(pod):
                        break
                    if pod.key not in cs.pods or cs.pods[pod.key].deletion_timestamp is not None:
                        gone.add(pod.key)
