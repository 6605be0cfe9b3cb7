"""RemovePodsViolatingTopologySpreadConstraint (Balance): where the pods a topology spread
constraint selects are spread with a skew (largest domain minus smallest) over `maxSkew`, pods
are evicted from the largest domains, lowest priority first, until the counts would be within
`maxSkew`, so the scheduler spreads them again (upstream
removepodsviolatingtopologyspreadconstraint, balanceDomains). `constraints` chooses the
whenUnsatisfiable kinds considered (DoNotSchedule by default); with `topologyBalanceNodeFit`
(the default) a pod is evicted only if another node would take it."""

from __future__ import annotations

from typing import Any

from scheduler_core.framework.plugins.helper.nodeaffinity import get_required_node_affinity

from ..pluginargs.removepodsviolatingtopologyspreadconstraint import (
    NAME,
    RemovePodsViolatingTopologySpreadConstraintArgs,
)
from ..podutil import sort_pods_by_priority_low_to_high, tolerates_taints
from .base import Strategy


class RemovePodsViolatingTopologySpreadConstraint(Strategy):
    name = NAME
    extension_point = "balance"

    def run(self, nodes: list[Any]) -> None:
        a: RemovePodsViolatingTopologySpreadConstraintArgs = self.args
        placed = [(p, n) for n in nodes for p in self.handle.pods_on(n.name)]
        seen: set[tuple] = set()
        for pod, _ in placed:
            if not a.selection.selects(pod):
                continue
            for c in pod.topology_spread_constraints:
                if c.when_unsatisfiable not in a.constraints or c.label_selector is None:
                    continue
                ident = (pod.namespace, c.topology_key, c.max_skew, repr(c.label_selector))
                if ident in seen:
                    continue
                seen.add(ident)
                self._balance(pod, c, nodes, placed)

    def _balance(self, owner: Any, c: Any, nodes: list[Any], placed: list[tuple[Any, Any]]) -> None:
        honor_affinity = (c.node_affinity_policy or "Honor") == "Honor"
        honor_taints = (c.node_taints_policy or "Ignore") == "Honor"
        required = get_required_node_affinity(owner)
        domains: dict[str, list[Any]] = {}
        for n in nodes:
            if c.topology_key not in n.labels:
                continue
            if honor_affinity and not required.match(n):
                continue
            if honor_taints and not tolerates_taints(owner, n.taints):
                continue
            domains.setdefault(n.labels[c.topology_key], [])
        for pod, n in placed:
            value = n.labels.get(c.topology_key)
            if value in domains and pod.namespace == owner.namespace and c.label_selector.matches(pod.labels):
                domains[value].append(pod)
        if len(domains) < 2:
            return
        counts = {d: len(pods) for d, pods in domains.items()}
        candidates = {d: [p for p in sort_pods_by_priority_low_to_high(pods) if self.evictor.filter(p)]
                      for d, pods in domains.items()}
        chosen: list[Any] = []
        while True:
            low = min(counts, key=lambda d: (counts[d], d))
            high = max(counts, key=lambda d: (counts[d], d))
            if counts[high] - counts[low] <= c.max_skew:
                break
            pick = next((p for p in candidates[high]
                         if not self.args.topology_balance_node_fit or self.handle.pod_fits_any_other_node(p)),
                        None)
            if pick is None:
                break
            candidates[high].remove(pick)
            counts[high] -= 1
            counts[low] += 1
            chosen.append(pick)
        for pod in chosen:
            if not self.evict_or_stop(pod):
                continue
