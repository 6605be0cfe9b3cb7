"""The descheduler plugins a policy may name: each one's args parser and extension point
(what the loader needs; the strategies themselves are in `registry`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import defaultevictor
from .pluginargs import (
    highnodeutilization,
    lownodeutilization,
    removeduplicates,
    removepodsviolatinginterpodantiaffinity,
    removepodsviolatingnodeaffinity,
    removepodsviolatingnodetaints,
    removepodsviolatingtopologyspreadconstraint,
)


@dataclass(frozen=True)
class ArgsRegistration:
    parse_args: Callable[..., Any]
    extension_point: str  # balance | deschedule | evictor


ARGS: dict[str, ArgsRegistration] = {
    defaultevictor.PLUGIN_NAME: ArgsRegistration(defaultevictor.parse_args, "evictor"),
    lownodeutilization.NAME: ArgsRegistration(lownodeutilization.parse_args, "balance"),
    highnodeutilization.NAME: ArgsRegistration(highnodeutilization.parse_args, "balance"),
    removeduplicates.NAME: ArgsRegistration(removeduplicates.parse_args, "balance"),
    removepodsviolatingtopologyspreadconstraint.NAME: ArgsRegistration(
        removepodsviolatingtopologyspreadconstraint.parse_args, "balance"),
    removepodsviolatingnodetaints.NAME: ArgsRegistration(removepodsviolatingnodetaints.parse_args, "deschedule"),
    removepodsviolatingnodeaffinity.NAME: ArgsRegistration(removepodsviolatingnodeaffinity.parse_args, "deschedule"),
    removepodsviolatinginterpodantiaffinity.NAME: ArgsRegistration(
        removepodsviolatinginterpodantiaffinity.parse_args, "deschedule"),
}

# Upstream plugins the playground does not model, with why (a policy naming one is refused so).
NOT_MODELLED = {
    "RemovePodsHavingTooManyRestarts": "the playground's pods never restart (no container restarts are modelled)",
    "PodLifeTime": "not modelled by the playground",
    "RemoveFailedPods": "the playground's pods never fail",
}
