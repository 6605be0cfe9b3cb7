"""RemovePodsViolatingNodeTaints (Deschedule): evicts pods that do not tolerate a NoSchedule
taint of the node they run on (a taint added after they were placed); PreferNoSchedule too
with `includePreferNoSchedule`. `excludedTaints` / `includedTaints` name taints as `key` or
`key=value` (upstream removepodsviolatingnodetaints)."""

from __future__ import annotations

from typing import Any

from scheduler_core.api.types import Taint

from ..pluginargs.removepodsviolatingnodetaints import NAME, RemovePodsViolatingNodeTaintsArgs
from .base import Strategy


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
