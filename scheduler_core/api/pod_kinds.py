"""Which Pod class a manifest becomes: plain, with volumes, with device claims, or both.

A plain `Pod` carries neither spec.volumes nor spec.resourceClaims as attributes (they read as
empty), so that a scenario of pods without them keeps CPython's shared key table for every pod;
the subclasses add them as one extra field each. Whoever builds a pod from a manifest asks here.
"""

from __future__ import annotations

from dataclasses import dataclass

from scheduler_core.api.resource_types import ClaimingPod
from scheduler_core.api.storage_types import VolumePod
from scheduler_core.api.types import Pod


@dataclass
class VolumeClaimingPod(ClaimingPod, VolumePod):
    """A Pod with both spec.volumes and spec.resourceClaims."""


def pod_class_for(has_volumes: bool, has_claims: bool) -> type[Pod]:
    """The class for a pod with (or without) volumes and device claims."""
    if has_volumes and has_claims:
        return VolumeClaimingPod
    if has_claims:
        return ClaimingPod
    if has_volumes:
        return VolumePod
    return Pod
