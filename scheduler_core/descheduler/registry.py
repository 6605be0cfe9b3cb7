"""The descheduler plugins the playground has, by upstream name: each one's args parser, class
and extension point (upstream pkg/framework/plugins/pluginregistry)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import defaultevictor
from .plugins import (
    removeduplicates,
    removepodsviolatinginterpodantiaffinity,
    removepodsviolatingnodeaffinity,
    removepodsviolatingnodetaints,
    removepodsviolatingtopologyspreadconstraint,
)
from .plugins.nodeutilization import highnodeutilization, lownodeutilization


@dataclass(frozen=True)
class Registration:
    parse_args: Callable[..., Any]
    strategy: Any  # the Strategy class (None for the evictor)
    extension_point: str  # balance | deschedule | evictor


REGISTRY: dict[str, Registration] = {
    defaultevictor.PLUGIN_NAME: Registration(defaultevictor.parse_args, None, "evictor"),
    lownodeutilization.NAME: Registration(lownodeutilization.parse_args, lownodeutilization.LowNodeUtilization,
                                          "balance"),
    highnodeutilization.NAME: Registration(highnodeutilization.parse_args,
                                           highnodeutilization.HighNodeUtilization, "balance"),
    removeduplicates.NAME: Registration(removeduplicates.parse_args, removeduplicates.RemoveDuplicates, "balance"),
    removepodsviolatingtopologyspreadconstraint.NAME: Registration(
        removepodsviolatingtopologyspreadconstraint.parse_args,
        removepodsviolatingtopologyspreadconstraint.RemovePodsViolatingTopologySpreadConstraint, "balance"),
    removepodsviolatingnodetaints.NAME: Registration(
        removepodsviolatingnodetaints.parse_args, removepodsviolatingnodetaints.RemovePodsViolatingNodeTaints,
        "deschedule"),
    removepodsviolatingnodeaffinity.NAME: Registration(
        removepodsviolatingnodeaffinity.parse_args,
        removepodsviolatingnodeaffinity.RemovePodsViolatingNodeAffinity, "deschedule"),
    removepodsviolatinginterpodantiaffinity.NAME: Registration(
        removepodsviolatinginterpodantiaffinity.parse_args,
        removepodsviolatinginterpodantiaffinity.RemovePodsViolatingInterPodAntiAffinity, "deschedule"),
}

# Upstream plugins the playground does not model, with why (a policy naming one is refused so).
NOT_MODELLED = {
    "RemovePodsHavingTooManyRestarts": "the playground's pods never restart (no container restarts are modelled)",
    "PodLifeTime": "not modelled by the playground",
    "RemoveFailedPods": "the playground's pods never fail",
}
