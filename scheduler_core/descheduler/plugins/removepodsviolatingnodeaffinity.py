"""RemovePodsViolatingNodeAffinity (Deschedule): with `requiredDuringSchedulingIgnoredDuringExecution`,
evicts pods whose node no longer satisfies their nodeSelector / required node affinity (labels
changed after placement) when another node would take them; with
`preferredDuringSchedulingIgnoredDuringExecution`, pods for which a node they fit scores higher
on their preferred terms than their own (upstream removepodsviolatingnodeaffinity)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scheduler_core.framework.plugins.helper.nodeaffinity import (
    PreferredSchedulingTerms,
    get_required_node_affinity,
)

from .. import argsreader as ar
from .base import Strategy
from .common_args import PodSelection, parse_selection

NAME = "RemovePodsViolatingNodeAffinity"
ARG_FIELDS = ("namespaces", "labelSelector", "nodeAffinityType")
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


@dataclass(frozen=True)
class RemovePodsViolatingNodeAffinityArgs:
    selection: PodSelection
    node_affinity_type: tuple[str, ...]


def parse_args(value: Any, path: str, err: ar.Err) -> RemovePodsViolatingNodeAffinityArgs:
    m = ar.mapping(value, path, err, ARG_FIELDS)
    types = ar.names(m.get("nodeAffinityType"), f"{path}.nodeAffinityType", err)
    if not types:
        raise err(f"{path}.nodeAffinityType", "nodeAffinityType needs to be set")
    for i, t in enumerate(types):
        if t not in (REQUIRED, PREFERRED):
            raise err(f"{path}.nodeAffinityType[{i}]", f'Unsupported value: "{t}": supported values: '
                                                      f'"{REQUIRED}", "{PREFERRED}"')
    return RemovePodsViolatingNodeAffinityArgs(selection=parse_selection(m, path, err), node_affinity_type=types)


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
