"""RemovePodsViolatingNodeTaints (Deschedule): evicts pods that do not tolerate a NoSchedule
taint of the node they run on (a taint added after they were placed); PreferNoSchedule too
with `includePreferNoSchedule`. `excludedTaints` / `includedTaints` name taints as `key` or
`key=value` (upstream removepodsviolatingnodetaints)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scheduler_core.api.types import Taint

from .. import argsreader as ar
from .base import Strategy
from .common_args import PodSelection, parse_selection

NAME = "RemovePodsViolatingNodeTaints"
ARG_FIELDS = ("namespaces", "labelSelector", "includePreferNoSchedule", "excludedTaints", "includedTaints")


@dataclass(frozen=True)
class RemovePodsViolatingNodeTaintsArgs:
    selection: PodSelection
    include_prefer_no_schedule: bool = False
    excluded_taints: tuple[str, ...] = ()
    included_taints: tuple[str, ...] = ()


def parse_args(value: Any, path: str, err: ar.Err) -> RemovePodsViolatingNodeTaintsArgs:
    m = ar.mapping(value, path, err, ARG_FIELDS)
    args = RemovePodsViolatingNodeTaintsArgs(
        selection=parse_selection(m, path, err),
        include_prefer_no_schedule=ar.boolean(m.get("includePreferNoSchedule"), f"{path}.includePreferNoSchedule", err),
        excluded_taints=ar.names(m.get("excludedTaints"), f"{path}.excludedTaints", err),
        included_taints=ar.names(m.get("includedTaints"), f"{path}.includedTaints", err))
    if args.excluded_taints and args.included_taints:
        raise err(path, "either includedTaints or excludedTaints can be set, but not both")
    return args


def _named(taint: Taint, names: tuple[str, ...]) -> bool:
    return any(n == taint.key or n == f"{taint.key}={taint.value}" for n in names)


class RemovePodsViolatingNodeTaints(Strategy):
    name = NAME
    extension_point = "deschedule"

    def _considered(self, taint: Taint) -> bool:
        a: RemovePodsViolatingNodeTaintsArgs = self.args
        effects = ("NoSchedule", "PreferNoSchedule") if a.include_prefer_no_schedule else ("NoSchedule",)
        if taint.effect not in effects:
            return False
        if a.excluded_taints and _named(taint, a.excluded_taints):
            return False
        return not a.included_taints or _named(taint, a.included_taints)

    def run(self, nodes: list[Any]) -> None:
        a: RemovePodsViolatingNodeTaintsArgs = self.args
        for node in nodes:
            taints = [t for t in node.taints if self._considered(t)]
            if not taints:
                continue
            for pod in self.handle.pods_on(node.name):
                if not a.selection.selects(pod) or not self.evictor.filter(pod):
                    continue
                if all(any(tol.tolerates_taint(t) for tol in pod.tolerations) for t in taints):
                    continue
                if not self.evict_or_stop(pod):
                    break
