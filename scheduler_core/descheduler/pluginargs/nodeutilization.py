"""What the node-utilization strategies' args share: threshold ranges and evictableNamespaces."""

from __future__ import annotations

from typing import Any

from .. import argsreader as ar

MIN_RESOURCE_PERCENTAGE = 0
MAX_RESOURCE_PERCENTAGE = 100


def validate_thresholds(thresholds: dict[str, float], path: str, err: ar.Err, what: str = "") -> None:
    prefix = f"{what} config is not valid: " if what else ""
    if not thresholds:
        raise err(path, f"{prefix}no resource threshold is configured")
    for name, pct in thresholds.items():
        if pct < MIN_RESOURCE_PERCENTAGE or pct > MAX_RESOURCE_PERCENTAGE:
            raise err(f"{path}.{name}", f"{prefix}{name} threshold not in [{MIN_RESOURCE_PERCENTAGE}, "
                                        f"{MAX_RESOURCE_PERCENTAGE}] range")


def parse_evictable_namespaces(value: Any, path: str, err: ar.Err) -> tuple[str, ...]:
    ns = ar.namespaces(value, path, err)
    if ns is None:
        return ()
    include, exclude = ns
    if include:
        raise err(path, "only Exclude namespaces can be set, inclusion is not supported")
    return exclude
