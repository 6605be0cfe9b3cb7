"""What a strategy is given: the pass's Handle and its profile's Evictor (upstream
frameworktypes.Handle.Evictor: Filter, PreEvictionFilter, Evict)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scheduler_core.api.types import Pod

from ..defaultevictor import DefaultEvictor
from ..evictions import EvictionLimitError, EvictOptions, PodEvictor
from ..handle import Handle


@dataclass
class Evictor:
    plugin: DefaultEvictor
    pod_evictor: PodEvictor
    profile: str

    def filter(self, pod: Pod) -> bool:
        return self.plugin.filter(pod)

    def pre_eviction_filter(self, pod: Pod) -> bool:
        return self.plugin.pre_eviction_filter(pod)

    def evict(self, handle: Handle, pod: Pod, strategy: str, reason: str = "") -> bool:
        """PreEvictionFilter, then the PodEvictor (limits, PDBs). EvictionLimitError passes up."""
        if not self.pre_eviction_filter(pod):
            return False
        node = handle.node_of(pod)
        ok = self.pod_evictor.evict_pod(pod, node, EvictOptions(strategy=strategy, profile=self.profile,
                                                                reason=reason))
        if ok:
            handle.forget(pod, node)
        return ok


class Strategy:
    """A Deschedule or Balance plugin: `run(nodes)` evicts through `evictor`."""

    name = ""
    extension_point = ""  # "deschedule" | "balance"

    def __init__(self, args: Any, handle: Handle, evictor: Evictor) -> None:
        self.args = args
        self.handle = handle
        self.evictor = evictor

    def run(self, nodes: list[Any]) -> None:
        raise NotImplementedError

    def evict_or_stop(self, pod: Pod, reason: str = "") -> bool:
        """Evict through the evictor; False when a node limit says to leave this node. A total
        limit ends the strategy (StopStrategy, caught by the pass)."""
        try:
            self.evictor.evict(self.handle, pod, self.name, reason)
        except EvictionLimitError as error:
            if error.scope == "total":
                raise StopStrategy from None
            if error.scope == "node":
                return False
        return True


class StopStrategy(Exception):
    """The pass's total eviction limit was reached: the strategy ends."""
