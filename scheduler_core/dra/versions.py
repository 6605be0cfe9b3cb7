"""What a modelled release leaves out of a scenario's Dynamic Resource Allocation.

DRA was alpha and off by default in v1.30 (the DynamicResourceAllocation gate; resource.k8s.io
had no v1 API yet): the DynamicResources plugin is not in the default profile and no
resourceclaim controller runs, so a pod's device claims neither constrain nor delay it. A run of
such a scenario at that version says so instead of silently placing GPU pods anywhere.
"""

from __future__ import annotations

from typing import Any

__all__ = ["dra_version_notes"]


def dra_version_notes(scenario: Any, gates: Any) -> list[str]:
    """One sentence per thing the version does not simulate (empty when DRA is on or unused)."""
    if gates.dynamic_resource_allocation:
        return []
    pods = sum(1 for p in scenario.pods if p.resource_claims)
    objects = (len(scenario.device_classes) + len(scenario.resource_slices)
               + len(scenario.resource_claims) + len(scenario.resource_claim_templates))
    if not pods and not objects:
        return []
    return [f"Kubernetes {gates.version}: Dynamic Resource Allocation is alpha and off by default "
            f"in this release, so the scenario's device claims are not simulated ({pods} pod(s) "
            f"with resourceClaims, {objects} resource.k8s.io object(s) ignored; the pods are "
            "scheduled as if they claimed no devices)"]
