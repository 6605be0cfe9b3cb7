"""The resourceclaim controller (upstream pkg/controller/resourceclaim), on the virtual clock.

* A pod whose `spec.resourceClaims` entry names a ResourceClaimTemplate gets a claim made from
  it, named `<pod>-<claim>`, owned (controller reference) by the pod, and recorded in the pod's
  `status.resourceClaimStatuses`, before the scheduler sees the pod (as the recordings' API
  server does). A missing template creates nothing: the pod waits at DynamicResources' PreEnqueue.
* When a pod is deleted, its reservations (`status.reservedFor`) are dropped, a claim that loses its
  last reservation is deallocated (its devices are free again), and a claim the pod owns
  is deleted. That includes the claim the scheduler created for the pod's extended resources
  (DRAExtendedResource, named in the pod's `status.extendedResourceClaimStatus`), which the
  garbage collector removes upstream.

Each step is an API write (`ResourceAPIServer`), so it is an event in the run's stream and a
ResourceClaim cluster event for the scheduling queue.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from scheduler_core.api.resource_types import PodClaims, ResourceClaim
from scheduler_core.api.types import OwnerReference, Pod

__all__ = ["CONTROLLER", "claims_for_new_pod", "claims_after_pod_deleted", "generated_claim_name"]

CONTROLLER = "ResourceClaimController"


def generated_claim_name(pod: Pod, claim_name: str) -> str:
    """`<pod>-<claim>` (upstream adds a random suffix; the recordings' controller does not),
    cut to the 253 characters an object name may have."""
    return f"{pod.name}-{claim_name}"[:253]


def _owned_by(claim: ResourceClaim, pod: Pod) -> bool:
    return any(o.kind == "Pod" and o.controller and o.name == pod.name and (not o.uid or o.uid == pod.uid)
               for o in claim.owner_references)


def claims_for_new_pod(api: Any, pod: Pod) -> Pod:
    """Create the pod's template claims; return the pod with its resourceClaimStatuses."""
    statuses = dict(pod.resource_claim_statuses)
    for pc in pod.resource_claims:
        if pc.resource_claim_template_name is None or pc.name in statuses:
            continue
        template = api.cluster.resource_claim_templates.get(f"{pod.namespace}/{pc.resource_claim_template_name}")
        if template is None:
            continue
        name = generated_claim_name(pod, pc.name)
        key = f"{pod.namespace}/{name}"
        existing = api.cluster.resource_claims.get(key)
        if existing is None:
            from scheduler_core.api.uid import stable_uid

            claim = ResourceClaim(
                name=name, namespace=pod.namespace, uid=stable_uid("ResourceClaim", pod.namespace, name, pod.uid),
                spec=dataclasses.replace(template.spec),
                owner_references=[OwnerReference(kind="Pod", name=pod.name, uid=pod.uid, controller=True)],
                annotations={"resource.kubernetes.io/pod-claim-name": pc.name},
                labels=dict(template.labels))
            api.create_resource_claim(claim, by=CONTROLLER, pod=pod.key)
        elif not _owned_by(existing, pod):
            continue  # a claim of that name that is not the pod's: the pod waits (PreEnqueue)
        statuses[pc.name] = name
    if statuses == pod.resource_claim_statuses:
        return pod
    return dataclasses.replace(pod, claims=PodClaims(list(pod.resource_claims), statuses))


def claims_after_pod_deleted(api: Any, pod: Pod, extended_claim: str | None = None) -> None:
    """Drop the pod's reservations, deallocate what nobody reserves, delete what it owns.
    `extended_claim`: the name of the claim made for the pod's extended resources, if any."""
    names = []
    for pc in pod.resource_claims:
        name = pc.resource_claim_name or pod.resource_claim_statuses.get(pc.name)
        if name and name not in names:
            names.append(name)
    if extended_claim and extended_claim not in names:
        names.append(extended_claim)
    for name in names:
        key = f"{pod.namespace}/{name}"
        claim = api.cluster.resource_claims.get(key)
        if claim is None:
            continue
        reserved = [r for r in claim.reserved_for if not (r.resource == "pods" and r.uid == pod.uid)]
        if len(reserved) != len(claim.reserved_for):
            # Deallocation follows the transition "was used" -> "is not used any more" only: a
            # claim allocated but never reserved stays allocated.
            deallocate = not reserved and claim.allocation is not None
            new = dataclasses.replace(claim, reserved_for=reserved,
                                      allocation=None if deallocate else claim.allocation)
            api.update_resource_claim(new, action="deallocated" if deallocate else "unreserved",
                                      by=CONTROLLER, pod=pod.key)
        if _owned_by(claim, pod):
            api.delete_resource_claim(key, by=CONTROLLER, pod=pod.key)
