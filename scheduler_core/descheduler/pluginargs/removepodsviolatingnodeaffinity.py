"""RemovePodsViolatingNodeAffinity's args: their types and upstream's validation (what they do: plugins/ of the same name)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import argsreader as ar
from ..plugins.common_args import PodSelection, parse_selection

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
