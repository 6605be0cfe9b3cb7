"""Opportunistic batching (upstream framework/runtime/batch.go, OpportunisticBatching: beta and
on by default in v1.35).

When consecutive pods are interchangeable for every Filter and Score plugin (same "signature")
and the node chosen for the previous one is now full for this one, upstream skips the full walk:
it hints the next-best node from the previous cycle's sorted scores and, if that node passes the
filters, takes it without scoring. This changes placements in large clusters (no fresh walk from
the rotating start index), so a faithful engine must do the same.

Signatures: each plugin that runs at PreFilter/Filter/PreScore/Score contributes fragments (or
declares the pod unsignable); a plugin without a signer disables batching for the profile. With
the default profile PodTopologySpread's system-default constraints make every pod unsignable, so
batching only shows with configurations that change that.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scheduler_core.api.types import Pod
from scheduler_core.framework.types import pod_requests
from scheduler_core.util.goheap import heap_pop

if TYPE_CHECKING:
    from scheduler_core.framework.cycle_state import CycleState
    from scheduler_core.framework.runtime.framework import Framework, NodePluginScores

MAX_BATCH_AGE = 0.5  # seconds (virtual here)


class Unsignable(Exception):
    """The pod cannot be compared with others by this plugin."""


def _tolerations(pod: Pod) -> Any:
    return tuple((t.key, t.operator, t.value, t.effect, t.toleration_seconds) for t in pod.tolerations)


def _resources(pod: Pod) -> Any:
    return tuple(sorted(pod_requests(pod).items()))


def _node_affinity(pod: Pod) -> Any:
    na = pod.affinity.node_affinity if pod.affinity else None
    return repr(na)


def _host_ports(pod: Pod) -> Any:
    return tuple(sorted({p.host_port for c in (*pod.containers, *pod.init_containers)
                         for p in c.ports if p.host_port != 0}))


def _images(pod: Pod) -> Any:
    from scheduler_core.backend.cache.cache import normalized_image_name

    return tuple(sorted({normalized_image_name(c.image) for c in (*pod.containers, *pod.init_containers)}))


def _sign_inter_pod_affinity(pl: Any, pod: Pod) -> dict[str, Any]:
    a = pod.affinity
    if a is not None and (a.pod_affinity is not None or a.pod_anti_affinity is not None):
        raise Unsignable("pods with InterPodAffinity are not signable")
    if getattr(pl, "ignore_preferred_terms_of_existing_pods", False):
        return {}
    return {"labels": tuple(sorted(pod.labels.items()))}


def _sign_topology_spread(pl: Any, pod: Pod) -> dict[str, Any]:
    if pod.topology_spread_constraints:
        raise Unsignable("pods with topology constraints are not signable")
    if getattr(pl, "default_constraints", None):
        raise Unsignable("pods with default topology constraints are not signable")
    return {}


_VOLUMES: dict[str, Any] = {"volumes": ()}  # pods here have no volumes

# plugin name -> signer(plugin, pod) -> {signer key: value}
SIGNERS: dict[str, Callable[[Any, Pod], dict[str, Any]]] = {
    "NodeResourcesFit": lambda pl, pod: {"resources": _resources(pod)},
    "NodeResourcesBalancedAllocation": lambda pl, pod: {"resources": _resources(pod)},
    "TaintToleration": lambda pl, pod: {"tolerations": _tolerations(pod)},
    "NodeUnschedulable": lambda pl, pod: {"tolerations": _tolerations(pod)},
    "NodeAffinity": lambda pl, pod: {"nodeAffinity": _node_affinity(pod),
                                     "nodeSelector": tuple(sorted(pod.node_selector.items()))},
    "NodePorts": lambda pl, pod: {"hostPorts": _host_ports(pod)},
    "ImageLocality": lambda pl, pod: {"images": _images(pod)},
    "NodeName": lambda pl, pod: {"nodeName": pod.node_name},
    "InterPodAffinity": _sign_inter_pod_affinity,
    "PodTopologySpread": _sign_topology_spread,
    "VolumeRestrictions": lambda pl, pod: _VOLUMES,
    "NodeVolumeLimits": lambda pl, pod: _VOLUMES,
    "VolumeBinding": lambda pl, pod: _VOLUMES,
    "VolumeZone": lambda pl, pod: _VOLUMES,
    "DynamicResources": lambda pl, pod: {},
}


def batchable_plugins(fwk: Framework) -> list[Any] | None:
    """The plugins that sign pods, or None when some plugin cannot (or extenders exist)."""
    if fwk.extenders:
        return None
    seen: dict[str, Any] = {}
    for pl in (*fwk.pre_filter_plugins, *fwk.filter_plugins, *fwk.pre_score_plugins, *fwk.score_plugins):
        if pl.name in seen:
            continue
        if pl.name not in SIGNERS:
            return None
        seen[pl.name] = pl
    return list(seen.values())


def sign_pod(fwk: Framework, plugins: list[Any] | None, pod: Pod) -> tuple | None:
    """The pod's signature, or None when it cannot be compared with other pods."""
    if plugins is None:
        return None
    sig: dict[str, Any] = {"schedulerName": pod.scheduler_name}
    try:
        for pl in plugins:
            sig.update(SIGNERS[pl.name](pl, pod))
    except Unsignable:
        return None
    return tuple(sorted(sig.items()))


class OpportunisticBatch:
    """Per-profile batching state: the previous cycle's remaining sorted nodes."""

    def __init__(self) -> None:
        self.signature: tuple | None = None
        self.sorted_nodes: list[NodePluginScores] | None = None  # a Go heap, best first
        self.created: float = 0.0
        self.last_cycle = -1
        self.last_chosen = ""
        self.batched_pods = 0

    def _empty(self) -> bool:
        return not self.sorted_nodes

    def get_node_hint(self, fwk: Framework, state: CycleState, pod: Pod, cycle: int,
                      signature: tuple | None, now: float,
                      less: Callable[[Any, Any], bool]) -> str:
        """The next-best node of the previous batch, if this pod can reuse it ("" if not)."""
        if self._empty() or cycle != self.last_cycle + 1:
            return ""
        if signature is None or signature != self.signature:
            return ""
        if now > self.created + MAX_BATCH_AGE:
            return ""
        last = fwk.snapshot.get(self.last_chosen)
        if last is None:
            return ""
        st = fwk.run_filter_plugins(state, pod, last)
        if st is None or not st.is_rejected():
            return ""  # the last chosen node still fits: scoring may prefer it again
        assert self.sorted_nodes is not None
        return heap_pop(self.sorted_nodes, less).name

    def store_schedule_results(self, signature: tuple | None, hinted: str, chosen: str,
                               others: list[NodePluginScores] | None, cycle: int, now: float) -> None:
        self.last_cycle = cycle
        self.last_chosen = chosen
        if hinted and hinted == chosen:
            self.batched_pods += 1
            return
        if signature is not None and others:
            self.signature = signature
            self.sorted_nodes = others
            self.created = now
        else:
            self.signature = None
            self.sorted_nodes = None
