"""HighNodeUtilization's args: their types and upstream's validation (what they do: plugins/ of the same name)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import argsreader as ar
from . import nodeutilization as nu

NAME = "HighNodeUtilization"
ARG_FIELDS = ("thresholds", "numberOfNodes", "evictableNamespaces")


@dataclass(frozen=True)
class HighNodeUtilizationArgs:
    thresholds: dict[str, float]
    number_of_nodes: int = 0
    evictable_namespaces_exclude: tuple[str, ...] = ()


def parse_args(value: Any, path: str, err: ar.Err) -> HighNodeUtilizationArgs:
    m = ar.mapping(value, path, err, ARG_FIELDS)
    args = HighNodeUtilizationArgs(
        thresholds=ar.thresholds(m.get("thresholds"), f"{path}.thresholds", err),
        number_of_nodes=ar.count(m.get("numberOfNodes"), f"{path}.numberOfNodes", err) or 0,
        evictable_namespaces_exclude=nu.parse_evictable_namespaces(m.get("evictableNamespaces"),
                                                                   f"{path}.evictableNamespaces", err),
    )
    nu.validate_thresholds(args.thresholds, f"{path}.thresholds", err)
    return args
