"""The strategies by upstream plugin name (upstream pkg/framework/plugins/pluginregistry); their
args parsers are in `argsregistry`."""

from __future__ import annotations

from typing import Any

from .plugins import (
    removeduplicates,
    removepodsviolatinginterpodantiaffinity,
    removepodsviolatingnodeaffinity,
    removepodsviolatingnodetaints,
    removepodsviolatingtopologyspreadconstraint,
)
from .plugins.nodeutilization import highnodeutilization, lownodeutilization

STRATEGIES: dict[str, Any] = {
    cls.name: cls for cls in (
        lownodeutilization.LowNodeUtilization,
        highnodeutilization.HighNodeUtilization,
        removeduplicates.RemoveDuplicates,
        removepodsviolatingtopologyspreadconstraint.RemovePodsViolatingTopologySpreadConstraint,
        removepodsviolatingnodetaints.RemovePodsViolatingNodeTaints,
        removepodsviolatingnodeaffinity.RemovePodsViolatingNodeAffinity,
        removepodsviolatinginterpodantiaffinity.RemovePodsViolatingInterPodAntiAffinity,
    )
}
