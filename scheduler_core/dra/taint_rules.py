"""DeviceTaintRules applied to ResourceSlices (upstream resourceslice/tracker, which the
scheduler lists slices through when DRADeviceTaintRules is on).

Each rule adds its taint to every device its selector matches (driver, pool, device name; an
absent field matches anything, a rule without a selector matches nothing), after the taints the
driver published, in the order the rules were created. Slices no rule touches are returned as
they are, so the allocator's caches keyed by device identity stay valid for them.
"""

from __future__ import annotations

import dataclasses

from scheduler_core.api.resource_types import DeviceTaintRule, ResourceSlice

__all__ = ["apply_taint_rules"]


def apply_taint_rules(slices: list[ResourceSlice], rules: list[DeviceTaintRule]) -> list[ResourceSlice]:
    if not rules:
        return slices
    out = []
    for s in slices:
        patched = None
        for i, d in enumerate(s.devices):
            extra = [r.taint for r in rules if r.matches(s.driver, s.pool_name, d.name)]
            if not extra:
                continue
            if patched is None:
                patched = list(s.devices)
            patched[i] = dataclasses.replace(d, taints=[*d.taints, *extra])
        out.append(s if patched is None else dataclasses.replace(s, devices=patched))
    return out
