"""A pod's spec.resources (pod-level requests and limits, PodLevelResources) as the apiserver
stores it with the feature on (on by default since v1.34): SetDefaults_Pod's defaults, then
core/validation's validatePodResources, one located error at a time.

Defaults (only when the pod sets pod-level limits): a missing pod-level request for cpu or
memory becomes the containers' aggregate request, else the pod-level limit; a hugepages limit
the containers set but the pod does not becomes theirs (unless the pod requests hugepages).
Validation: only cpu, memory and hugepages-* (no claims); requests within limits (hugepages
equal); pod-level requests at least the containers' aggregate; each container's limit within
the pod's.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from scheduler_core.api.quantity import format_quantity
from scheduler_core.api.types import Container, PodResources
from scheduler_core.loader.reader import FieldReader
from scheduler_core.loader.resources import resource_list

__all__ = ["parse_pod_resources", "aggregate_container"]

_SUPPORTED = ("cpu", "hugepages-", "memory")


def _supported(name: str) -> bool:
    return name in ("cpu", "memory") or name.startswith("hugepages-")


def _hugepages(name: str) -> bool:
    return name.startswith("hugepages-")


def aggregate_container(containers: list[Container], init_containers: list[Container],
                        values: Callable[[Container], dict[str, Fraction]]) -> dict[str, Fraction]:
    """resourcehelper.AggregateContainerRequests/Limits (no overhead): the containers' sum plus
    restartable init containers, at least each init container on top of the sidecars before it."""
    out: dict[str, Fraction] = {}
    for c in containers:
        for k, v in values(c).items():
            out[k] = out.get(k, 0) + v
    restartable: dict[str, Fraction] = {}
    init_max: dict[str, Fraction] = {}
    for c in init_containers:
        cur = values(c)
        if c.restart_policy == "Always":
            for k, v in cur.items():
                out[k] = out.get(k, 0) + v
                restartable[k] = restartable.get(k, 0) + v
            cur = restartable
        else:
            tmp = dict(cur)
            for k, v in restartable.items():
                tmp[k] = tmp.get(k, 0) + v
            cur = tmp
        for k, v in cur.items():
            if k not in init_max or v > init_max[k]:
                init_max[k] = v
    for k, v in init_max.items():
        if k not in out or v > out[k]:
            out[k] = v
    return out


def parse_pod_resources(r: FieldReader, obj: Any, containers: list[Container],
                        init_containers: list[Container]) -> PodResources | None:
    """spec.resources, defaulted and validated; None when absent."""
    if obj is None:
        return None
    path = "spec.resources"
    m = r.mapping(obj, path)
    if m.get("claims") is not None:
        raise r.err(f"{path}.claims", "Forbidden: claims may not be set for Resources at pod-level")
    limits = resource_list(r, m.get("limits"), f"{path}.limits", container=True)
    requests = resource_list(r, m.get("requests"), f"{path}.requests", container=True)
    for group, values in (("limits", limits), ("requests", requests)):
        for name in values:
            if not _supported(name):
                raise r.err(f"{path}.{group}.{name}", f'Unsupported value: "{name}": supported values: '
                                                      + ", ".join(f'"{s}"' for s in _SUPPORTED))
    # SetDefaults_Pod (after the containers' own defaults).
    if limits or requests:
        ctr_limits = aggregate_container(containers, init_containers, lambda c: c.limits)
        for name, q in ctr_limits.items():
            if _hugepages(name) and name not in requests and name not in limits:
                limits[name] = q
    if limits:
        ctr_requests = aggregate_container(containers, init_containers, lambda c: c.requests)
        for name, q in ctr_requests.items():
            if name not in requests and name in ("cpu", "memory"):
                requests[name] = q
        for name, q in limits.items():
            requests.setdefault(name, q)
    # validateResourceRequirements
    for name, q in requests.items():
        lim = limits.get(name)
        if _hugepages(name):
            if lim is None:
                raise r.err(f"{path}.limits", "Required value: Limit must be set for non overcommitable resources")
            if q != lim:
                raise r.err(f"{path}.requests[{name}]", f'Invalid value: "{format_quantity(q)}": must be equal '
                                                        f"to {name} limit of {format_quantity(lim)}")
        elif lim is not None and q > lim:
            raise r.err(f"{path}.requests[{name}]", f'Invalid value: "{format_quantity(q)}": must be less '
                                                    f"than or equal to {name} limit of {format_quantity(lim)}")
    # validatePodResourceConsistency
    agg = aggregate_container(containers, init_containers, lambda c: c.requests)
    for name in sorted(agg):
        if name in requests and agg[name] > requests[name]:
            raise r.err(f"{path}.requests[{name}]", f'Invalid value: "{format_quantity(requests[name])}": must be '
                                                    f"greater than or equal to aggregate container requests of "
                                                    f"{format_quantity(agg[name])}")
    agg_lim = aggregate_container(containers, init_containers, lambda c: c.limits)
    for name in sorted(agg_lim):
        if _hugepages(name) and name in limits and agg_lim[name] > limits[name]:
            raise r.err(f"{path}.limits[{name}]", f'Invalid value: "{format_quantity(limits[name])}": must be '
                                                  f"greater than or equal to aggregate container limits of "
                                                  f"{format_quantity(agg_lim[name])}")
    for i, c in enumerate(containers):
        for name in sorted(c.limits):
            if name in limits and c.limits[name] > limits[name]:
                raise r.err(f"{path}.containers[{i}][{name}].limits",
                            f'Invalid value: "{format_quantity(c.limits[name])}": must be less than or equal to '
                            f"pod limits of {format_quantity(limits[name])}")
    return PodResources(requests=requests, limits=limits)
