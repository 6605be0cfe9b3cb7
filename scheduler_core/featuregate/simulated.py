"""Gate values a run may set (upstream's validation accepts them) but this engine does not
simulate: refused, saying so, instead of being accepted and changing nothing.

Why a refusal: a run's gates are kube-scheduler's `--feature-gates`. A gate the upstream
scheduler never reads changes nothing there either, so accepting it is faithful. But a gate the
scheduler does read (pkg/scheduler and its plugins' `feature.Features`) switches a code path; if
the engine keeps only one side of it, a run with the other value would silently show upstream's
default behaviour under a header claiming the gate. Each entry below is such a value; every
other scheduler-read gate is simulated both ways (docs/feature-gates.md lists them all).

Only a value that differs from the modelled version's default is refused (setting a gate to its
default changes nothing), and only once upstream's own checks passed (an unknown or locked gate
gets upstream's message first).
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["NOT_SIMULATED", "SAME_EITHER_WAY", "not_simulated"]

# Gates the upstream scheduler reads whose two values behave alike in every run here, and why.
SAME_EITHER_WAY: dict[str, str] = {
    "DRASchedulerFilterTimeout": "off, DynamicResources' Filter has no time limit; on, its limit is "
                                 "wall-clock time, which no allocation here takes (only the argument "
                                 "check of filterTimeout follows the gate)",
    "DRAResourceClaimDeviceStatus": "the scheduler reads it only together with DRADeviceBindingConditions, "
                                    "which is refused",
}

# gate -> (the value not simulated, why). Keep docs/feature-gates.md's table in step.
NOT_SIMULATED: dict[str, tuple[bool, str]] = {
    "MatchLabelKeysInPodTopologySpread": (
        False, "the loader always merges matchLabelKeys into the spread constraint's selector"),
    "SidecarContainers": (False, "restartable init containers always count in a pod's requests"),
    "InPlacePodVerticalScaling": (True, "pods are never resized in place here"),
    "InPlacePodLevelResourcesVerticalScaling": (True, "pods are never resized in place here"),
    "VolumeAttributesClass": (False, "VolumeBinding always matches a claim's volumeAttributesClassName"),
    "CSIMigrationPortworx": (True, "Portworx in-tree volumes are not counted as CSI volumes here"),
    "SchedulerAsyncAPICalls": (True, "API calls complete at once here, without a dispatcher"),
    "DRADeviceBindingConditions": (True, "device binding conditions (PreBind waiting for devices) "
                                         "are not implemented"),
    "NominatedNodeNameForExpectation": (
        False, "the binding cycle always runs PreBindPreFlight and nominates the pod's node"),
}


def not_simulated(gates: Mapping[str, bool], defaults: Mapping[str, bool]) -> list[str]:
    """The refusal of each setting in `gates` (name order) that is a value this engine does not
    simulate and differs from its default (`defaults`: the modelled version's)."""
    out = []
    for gate in sorted(gates):
        entry = NOT_SIMULATED.get(gate)
        if entry is None or gates[gate] != entry[0] or defaults.get(gate) == entry[0]:
            continue
        out.append(f"cannot set feature gate {gate} to {str(entry[0]).lower()}: "
                   f"not simulated by this engine ({entry[1]})")
    return out
