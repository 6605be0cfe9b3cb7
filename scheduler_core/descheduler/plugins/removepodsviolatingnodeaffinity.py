"""RemovePodsViolatingNodeAffinity (Deschedule): with `requiredDuringSchedulingIgnoredDuringExecution`,
evicts pods whose node no longer satisfies their nodeSelector / required node affinity (labels
changed after placement) when another node would take them; with
`preferredDuringSchedulingIgnoredDuringExecution`, pods for which a node they fit scores higher
on their preferred terms than their own (upstream removepodsviolatingnodeaffinity)."""

from __future__ import annotations

from typing import Any

from scheduler_core.framework.plugins.helper.nodeaffinity import (
    PreferredSchedulingTerms,
    get_required_node_affinity,
)

from ..pluginargs.removepodsviolatingnodeaffinity import NAME, REQUIRED, RemovePodsViolatingNodeAffinityArgs
from .base import Strategy


def _preferred_score(pod: Any, node: Any) -> int:
    na = pod.affinity.node_affinity if pod.affinity is not None else None
    if na is None or not na.preferred:
        return 0
    try:
        return PreferredSchedulingTerms(na.preferred).score(node)
    except Exception:  # an unparsable term scores nothing, as PreScore's error would
        return 0


class RemovePodsViolatingNodeAffinity(Strategy):
    name = NAME
    extension_point = "deschedule"

    def run(self, nodes: list[Any]) -> None:
        a: RemovePodsViolatingNodeAffinityArgs = self.args
        for kind in a.node_affinity_type:
            for node in nodes:
                for pod in self.handle.pods_on(node.name):
                    if not a.selection.selects(pod) or not self.evictor.filter(pod):
                        continue
                    if kind == REQUIRED:
                        violates = not get_required_node_affinity(pod).match(node) and \
                            self.handle.pod_fits_any_other_node(pod)
                    else:
                        here = _preferred_score(pod, node)
                        violates = any(_preferred_score(pod, n) > here and not self.handle.fit_errors(pod, n)
                                       for n in nodes if n.name != node.name)
                    if violates and not self.evict_or_stop(pod):
                        break
