"""The devices part of `Simulation.view()`: what each node's ResourceSlices offer and which
claim holds which device.

Only nodes that some slice targets get a `devices` entry in their node entry (a cluster without
DRA objects has none, so its views are unchanged). A device is listed as
`[name, attributes and capacity in one line, holding claim or ""]`, with the node's slices and
free/total counts, so a frame stores a node's devices only when that node changed.

The alpha fields show where a scenario has them: a device's taints (`taint key=value:Effect`),
the counters it consumes (`uses set/counter=amount`), `shared` for a device that allows multiple
allocations (its holders are every claim with a share, each with the capacity it consumed), and
a slice's shared counter sets next to the slice's name.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.quantity import format_quantity
from scheduler_core.dra.structured.pools import SliceIndex, node_matches
from scheduler_core.dra.taint_rules import apply_taint_rules

__all__ = ["DeviceView"]

MAX_DEVICES_LISTED = 64  # per node; the counts always cover every device


def _summary(device: Any) -> str:
    parts = [f"{k}={a.value}" for k, a in device.attributes.items()]
    parts += [f"{k}={device.capacity_text.get(k) or format_quantity(v)}" for k, v in device.capacity.items()]
    if device.allow_multiple_allocations:
        parts.append("shared")
    for use in device.consumes_counters:
        parts += [f"uses {use.counter_set}/{k}={use.counters_text.get(k) or format_quantity(v)}"
                  for k, v in use.counters.items()]
    parts += [f"taint {t.key}{'=' + t.value if t.value else ''}:{t.effect}" for t in device.taints]
    return ", ".join(parts)


def _counter_set(cs: Any) -> str:
    values = ", ".join(f"{k}={cs.counters_text.get(k) or format_quantity(v)}" for k, v in cs.counters.items())
    return f"counters {cs.name}: {values}"


class DeviceView:
    """Describes the devices of nodes for one view (built once per view)."""

    def __init__(self, cluster: Any, nodes: dict[str, Any]) -> None:
        slices = apply_taint_rules(list(cluster.resource_slices), cluster.device_taint_rules)
        # Counter sets and per-device node selection are shown whatever the run's gates.
        self.index = SliceIndex(slices, any(s.shared_counters or s.per_device_node_selection for s in slices))
        self.holders: dict[tuple[str, str, str], str] = {}
        for claim in cluster.resource_claims.values():
            if claim.allocation is None:
                continue
            for r in claim.allocation.results:
                key = (r.driver, r.pool, r.device)
                if r.share_id is None:
                    self.holders.setdefault(key, claim.key)
                    continue
                used = ", ".join(f"{k}={format_quantity(v)}" for k, v in r.consumed_capacity.items())
                share = f"{claim.key} ({used})" if used else claim.key
                self.holders[key] = f"{self.holders[key]}; {share}" if key in self.holders else share
        # Nodes some slice may target: by name, plus every node when a slice uses a selector.
        self.nodes = set(self.index.by_node) if not self.index.other else set(nodes)
        self.revision = cluster.dra_revision

    def describe(self, node: Any) -> dict[str, Any] | None:
        if node.name not in self.nodes:
            return None
        pools = self.index.gather_pools(node)
        if not pools:
            return None
        items: list[list[str]] = []
        total = free = 0
        slices: list[str] = []
        for pool in pools:
            slices += [_counter_set(cs) for cs in pool.counter_sets.values()]
            for s in pool.slices:
                slices.append(s.name)
                for d in s.devices:
                    if s.per_device_node_selection and \
                            not node_matches(node, d.node_name, d.all_nodes, d.node_selector):
                        continue
                    total += 1
                    holder = self.holders.get((s.driver, s.pool_name, d.name), "")
                    if not holder:
                        free += 1
                    if len(items) < MAX_DEVICES_LISTED:
                        items.append([d.name, s.driver, _summary(d), holder])
            if pool.is_incomplete:
                slices.append(f"{pool.pool_id} (incomplete)")
        return {"slices": slices, "total": total, "free": free, "items": items}
