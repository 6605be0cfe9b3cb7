"""One descheduling pass over a run (upstream pkg/descheduler: runProfiles): every profile's
Deschedule plugins, then every profile's Balance plugins, all sharing one PodEvictor (the
policy's limits count across the pass). Each profile filters with its own DefaultEvictor.

The pass is synchronous on the virtual clock: its evictions, the controllers' replacement
pods and the events happen at the instant it runs; the scheduler then places the new pods in
its next cycles. Events: descheduler_started, descheduler_nodes_classified (the node-utilization
strategies), descheduler_evicted / descheduler_eviction_failed per pod, descheduler_finished.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .defaultevictor import DefaultEvictor, DefaultEvictorArgs
from .evictions import PodEvictor
from .handle import Handle
from .plugins.base import Evictor, StopStrategy
from .policy import DeschedulerPolicy
from .registry import STRATEGIES

SMALL_CLUSTER = ("The cluster size is 0 or 1 meaning eviction causes service disruption or degradation. "
                 "So aborting..")


@dataclass
class PassResult:
    evicted: list[str] = field(default_factory=list)
    recreated: list[str] = field(default_factory=list)


def run_descheduler(sim: Any, policy: DeschedulerPolicy, trigger: str = "manual") -> PassResult:
    """Run the policy once now. `trigger`: "manual" (the run action) or "interval"."""
    s = sim.scheduler
    handle = Handle(s, policy.node_selector)
    nodes = handle.nodes
    sim.sink.emit("descheduler_started", trigger=trigger, profiles=[p.name for p in policy.profiles],
                  nodes=len(nodes))
    pod_evictor = PodEvictor(sim, trigger, max_per_node=policy.max_no_of_pods_to_evict_per_node,
                             max_per_namespace=policy.max_no_of_pods_to_evict_per_namespace,
                             max_total=policy.max_no_of_pods_to_evict_total)
    note = ""
    if len(nodes) <= 1:
        note = SMALL_CLUSTER
    else:
        built = []
        for prof in policy.profiles:
            args = prof.args_for("DefaultEvictor") or DefaultEvictorArgs()
            evictor = Evictor(DefaultEvictor(args, handle), pod_evictor, prof.name)
            built.append((prof, evictor))
        for point in ("deschedule", "balance"):
            for prof, evictor in built:
                for name in getattr(prof.plugins, point).enabled:
                    strategy = STRATEGIES[name](prof.args_for(name), handle, evictor)
                    try:
                        strategy.run(list(nodes))
                    except StopStrategy:
                        pass
    sim.sink.emit("descheduler_finished", trigger=trigger, evicted=list(pod_evictor.evicted),
                  recreated=list(pod_evictor.recreated), **({"note": note} if note else {}))
    sim.mark_changed()
    return PassResult(evicted=list(pod_evictor.evicted), recreated=list(pod_evictor.recreated))
