"""PodEvictor: every eviction of a descheduling pass goes through here (upstream
pkg/descheduler/evictions): the policy's limits (per node, per namespace, in total), then the
API server's eviction subresource (which a PodDisruptionBudget can refuse), then the event
upstream records (reason: the strategy, note "pod evicted from <node> node by
sigs.k8s.io/descheduler"). The pod's controller then creates its replacement, which the
scheduler places like any new pod.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scheduler_core.api.errors import ScenarioError
from scheduler_core.api.types import Pod
from scheduler_core.controllers.workloads.replace import create_replacement

EVENT_ACTION = "Descheduled"
EVENT_NOTE = "pod evicted from {node} node by sigs.k8s.io/descheduler"
EVICTED_BY = "Evicted"
# Replacement pods' creation indexes count from here: after any live action's (their place in the
# run's log), before a timeline scale's (scheduler_core.simulation), so none is shared.
REPLACEMENT_INDEX = 2_000_000


class EvictionLimitError(Exception):
    """A limit reached: the strategy stops evicting from this node (node/namespace) or at all
    (total). str() is upstream's error text."""

    def __init__(self, scope: str) -> None:
        self.scope = scope  # node | namespace | total
        super().__init__(f"maximum number of evicted pods per {scope} reached" if scope != "total"
                         else "maximum number of evicted pods reached")


@dataclass
class EvictOptions:
    strategy: str
    profile: str
    reason: str = ""


@dataclass
class PodEvictor:
    """One per descheduling pass (upstream resets its counters every cycle)."""

    sim: Any
    trigger: str
    max_per_node: int | None = None
    max_per_namespace: int | None = None
    max_total: int | None = None
    node_count: dict[str, int] = field(default_factory=dict)
    namespace_count: dict[str, int] = field(default_factory=dict)
    evicted: list[str] = field(default_factory=list)
    recreated: list[str] = field(default_factory=list)
    # Names ever used per namespace (a generated name never repeats one), built at the first
    # replacement of the pass and kept up to date by it.
    _taken: dict[str, set[str]] | None = None

    def total(self) -> int:
        return len(self.evicted)

    def evict_pod(self, pod: Pod, node: str, opts: EvictOptions) -> bool:
        """Evict now; False when the API refused (a PDB). Raises EvictionLimitError when a
        limit forbids it (nothing is evicted then)."""
        s = self.sim.apiserver
        if self.max_total is not None and self.total() + 1 > self.max_total:
            raise EvictionLimitError("total")
        if node and self.max_per_node is not None and self.node_count.get(node, 0) + 1 > self.max_per_node:
            raise EvictionLimitError("node")
        if self.max_per_namespace is not None and self.namespace_count.get(pod.namespace, 0) + 1 > self.max_per_namespace:
            raise EvictionLimitError("namespace")
        refusal = s.evict_pod(pod.key)
        if refusal is not None:
            self.sim.sink.emit("descheduler_eviction_failed", pod=pod.key, node=node, strategy=opts.strategy,
                               profile=opts.profile, error=refusal)
            return False
        if node:
            self.node_count[node] = self.node_count.get(node, 0) + 1
        self.namespace_count[pod.namespace] = self.namespace_count.get(pod.namespace, 0) + 1
        self.evicted.append(pod.key)
        reason = opts.reason or opts.strategy or "NotSet"
        self.sim.sink.emit("descheduler_evicted", pod=pod.key, node=node, strategy=opts.strategy,
                           profile=opts.profile, reason=reason, trigger=self.trigger)
        s.record_event("Normal", reason, pod.key, EVENT_NOTE.format(node=node))
        self._replace(pod)
        return True

    def _replace(self, pod: Pod) -> None:
        """The pod's controller creates its replacement (see controllers.workloads.replace)."""
        try:
            new = create_replacement(self.sim, pod, self._taken_in, origin="descheduler",
                                     index_base=REPLACEMENT_INDEX)
        except ScenarioError as error:  # a template the loader accepted once always loads again
            self.sim.sink.emit("descheduler_eviction_failed", pod=pod.key, node="", strategy="", profile="",
                               error=f"replacement not created: {error}")
            return
        if new is not None:
            self.recreated.append(new.key)

    def _taken_in(self, namespace: str) -> set[str]:
        """The names ever used in `namespace`, built from the cluster's records at the pass's
        first replacement and kept up to date by the replacements after it."""
        if self._taken is None:
            self._taken = {}
            for k in self.sim.scheduler.cluster.records:
                ns, _, name = k.partition("/")
                self._taken.setdefault(ns, set()).add(name)
        return self._taken.setdefault(namespace, set())
