"""RemovePodsViolatingTopologySpreadConstraint's args: their types and upstream's validation (what they do: plugins/ of the same name)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import argsreader as ar
from ..plugins.common_args import PodSelection, parse_selection

NAME = "RemovePodsViolatingTopologySpreadConstraint"
ARG_FIELDS = ("namespaces", "labelSelector", "constraints", "topologyBalanceNodeFit")
KINDS = ("DoNotSchedule", "ScheduleAnyway")


@dataclass(frozen=True)
class RemovePodsViolatingTopologySpreadConstraintArgs:
    selection: PodSelection
    constraints: tuple[str, ...] = ("DoNotSchedule",)
    topology_balance_node_fit: bool = True


def parse_args(value: Any, path: str, err: ar.Err) -> RemovePodsViolatingTopologySpreadConstraintArgs:
    m = ar.mapping(value, path, err, ARG_FIELDS)
    kinds = ar.names(m.get("constraints"), f"{path}.constraints", err) or ("DoNotSchedule",)
    for i, k in enumerate(kinds):
        if k not in KINDS:
            raise err(f"{path}.constraints[{i}]", f'Unsupported value: "{k}": supported values: '
                                                 '"DoNotSchedule", "ScheduleAnyway"')
    return RemovePodsViolatingTopologySpreadConstraintArgs(
        selection=parse_selection(m, path, err), constraints=kinds,
        topology_balance_node_fit=ar.boolean(m.get("topologyBalanceNodeFit"), f"{path}.topologyBalanceNodeFit",
                                             err, default=True))
