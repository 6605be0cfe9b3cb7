"""RemoveDuplicates (Balance): no more pods of one owner (same kind, name and images) on a node
than the owner's pods spread evenly over the nodes they fit would put there (upstream
removeduplicates: the "upper average", ceil(pods / feasible nodes)); the extras on a crowded
node are evicted. `excludeOwnerKinds` leaves owners of those kinds alone."""

from __future__ import annotations

import math
from typing import Any

from ..pluginargs.removeduplicates import NAME, RemoveDuplicatesArgs
from .base import Strategy


class RemoveDuplicates(Strategy):
    name = NAME
    extension_point = "balance"

    def run(self, nodes: list[Any]) -> None:
        a: RemoveDuplicatesArgs = self.args
        duplicates: dict[str, dict[tuple, list[Any]]] = {}
        occurrences: dict[tuple, int] = {}
        sample: dict[tuple, Any] = {}
        for node in nodes:
            seen: set[tuple] = set()
            for pod in self.handle.pods_on(node.name):
                if not a.selection.selects(pod) or not self.evictor.filter(pod):
                    continue
                owners = [o for o in pod.owner_references]
                if not owners or any(o.kind in a.exclude_owner_kinds for o in owners):
                    continue
                images = tuple(sorted(c.image for c in pod.containers))
                key = (pod.namespace, tuple(sorted((o.kind, o.name) for o in owners)), images)
                occurrences[key] = occurrences.get(key, 0) + 1
                sample.setdefault(key, pod)
                if key in seen:
                    duplicates.setdefault(node.name, {}).setdefault(key, []).append(pod)
                else:
                    seen.add(key)
        feasible: dict[tuple, int] = {}  # owner key -> nodes its pods could run on
        for node in nodes:
            for key, pods in duplicates.get(node.name, {}).items():
                if key not in feasible:
                    feasible[key] = sum(1 for n in nodes if not self.handle.placement_errors(sample[key], n))
                if not feasible[key]:
                    continue
                upper = math.ceil(occurrences[key] / feasible[key])
                extra = len(pods) + 1 - upper
                for pod in pods[len(pods) - extra:] if extra > 0 else []:
                    if not self.evict_or_stop(pod):
                        break
