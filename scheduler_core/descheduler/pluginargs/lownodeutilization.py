"""LowNodeUtilization's args: their types and upstream's validation (what they do: plugins/ of the same name)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import argsreader as ar
from . import nodeutilization as nu

NAME = "LowNodeUtilization"
ARG_FIELDS = ("thresholds", "targetThresholds", "useDeviationThresholds", "numberOfNodes",
              "evictableNamespaces", "evictionLimits")


@dataclass(frozen=True)
class LowNodeUtilizationArgs:
    thresholds: dict[str, float]
    target_thresholds: dict[str, float]
    use_deviation_thresholds: bool = False
    number_of_nodes: int = 0
    evictable_namespaces_exclude: tuple[str, ...] = ()
    eviction_limits_node: int | None = None


def parse_args(value: Any, path: str, err: ar.Err) -> LowNodeUtilizationArgs:
    m = ar.mapping(value, path, err, ARG_FIELDS)
    limits = ar.mapping(m.get("evictionLimits"), f"{path}.evictionLimits", err, ("node",))
    args = LowNodeUtilizationArgs(
        thresholds=ar.thresholds(m.get("thresholds"), f"{path}.thresholds", err),
        target_thresholds=ar.thresholds(m.get("targetThresholds"), f"{path}.targetThresholds", err),
        use_deviation_thresholds=ar.boolean(m.get("useDeviationThresholds"), f"{path}.useDeviationThresholds", err),
        number_of_nodes=ar.count(m.get("numberOfNodes"), f"{path}.numberOfNodes", err) or 0,
        evictable_namespaces_exclude=nu.parse_evictable_namespaces(m.get("evictableNamespaces"),
                                                                   f"{path}.evictableNamespaces", err),
        eviction_limits_node=ar.count(limits.get("node"), f"{path}.evictionLimits.node", err),
    )
    # ValidateLowNodeUtilizationArgs, in its words.
    nu.validate_thresholds(args.thresholds, f"{path}.thresholds", err, "thresholds")
    nu.validate_thresholds(args.target_thresholds, f"{path}.targetThresholds", err, "targetThresholds")
    if set(args.thresholds) != set(args.target_thresholds):
        raise err(path, "thresholds and targetThresholds configured different resources")
    for name, value_ in args.thresholds.items():
        if value_ > args.target_thresholds[name] and not args.use_deviation_thresholds:
            raise err(f"{path}.thresholds.{name}", f"thresholds' {name} percentage is greater than targetThresholds'")
    return args
