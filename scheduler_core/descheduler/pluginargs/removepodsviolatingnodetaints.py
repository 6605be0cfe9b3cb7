"""RemovePodsViolatingNodeTaints's args: their types and upstream's validation (what they do: plugins/ of the same name)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import argsreader as ar
from ..plugins.common_args import PodSelection, parse_selection

NAME = "RemovePodsViolatingNodeTaints"
ARG_FIELDS = ("namespaces", "labelSelector", "includePreferNoSchedule", "excludedTaints", "includedTaints")


@dataclass(frozen=True)
class RemovePodsViolatingNodeTaintsArgs:
    selection: PodSelection
    include_prefer_no_schedule: bool = False
    excluded_taints: tuple[str, ...] = ()
    included_taints: tuple[str, ...] = ()


def parse_args(value: Any, path: str, err: ar.Err) -> RemovePodsViolatingNodeTaintsArgs:
    m = ar.mapping(value, path, err, ARG_FIELDS)
    args = RemovePodsViolatingNodeTaintsArgs(
        selection=parse_selection(m, path, err),
        include_prefer_no_schedule=ar.boolean(m.get("includePreferNoSchedule"), f"{path}.includePreferNoSchedule", err),
        excluded_taints=ar.names(m.get("excludedTaints"), f"{path}.excludedTaints", err),
        included_taints=ar.names(m.get("includedTaints"), f"{path}.includedTaints", err))
    if args.excluded_taints and args.included_taints:
        raise err(path, "either includedTaints or excludedTaints can be set, but not both")
    return args
