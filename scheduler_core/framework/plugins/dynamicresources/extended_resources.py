"""Extended resources backed by DRA (DRAExtendedResource, alpha): DynamicResources' special claim
(upstream framework/plugins/dynamicresources/extendeddynamicresources.go).

A pod may ask for devices without any ResourceClaim, as an extended resource in its containers'
requests (`example.com/gpu: 1`), when a DeviceClass serves that name (its
`spec.extendedResourceName`, or the implicit `deviceclass.resource.kubernetes.io/<class>`). The
plugin then handles one extra claim for the pod, kept after the pod's own claims:

* PreFilter: the claim the scheduler created for the pod in an earlier cycle (annotated
  `resource.kubernetes.io/extended-resource-claim: "true"`, controlled by the pod), else an
  in-memory claim named `<extended-resources>` with no requests yet.
* Filter: on a node whose allocatable lacks such a resource, the claim gets one ExactCount
  request per container (`container-<i>-request-<j>`) for the node, and the allocator must find
  the devices with the pod's other claims; a node that advertises the resource leaves it to
  NodeResourcesFit (a device plugin). A claim left over from an earlier cycle with requests is
  refused here ("cannot schedule extended resource claim"), so PostFilter can delete it.
* Reserve/PreBind: the node's variant of the claim is the one allocated; PreBind creates it in
  the API (`<pod>-extended-resources-<5 chars>`), writes the allocation and the pod's
  reservation, and records `status.extendedResourceClaimStatus` (claim name and request
  mappings) on the pod. Unreserve forgets the allocation and deletes a claim already created.

Where upstream draws random values (the in-memory claim's UID, the generated name's suffix),
they are derived from the pod, so runs are reproducible.
"""

from __future__ import annotations

import hashlib
from fractions import Fraction
from typing import Any

from scheduler_core.api.resource_types import (
    ALLOCATION_MODE_EXACT_COUNT,
    EXTENDED_RESOURCE_CLAIM_ANNOTATION,
    ContainerExtendedResourceRequest,
    DeviceClaimSpec,
    DeviceRequest,
    ExactDeviceRequest,
    ResourceClaim,
)
from scheduler_core.api.types import Container, OwnerReference, Pod
from scheduler_core.api.uid import stable_uid
from scheduler_core.dra.extended_resource_cache import DeviceClassResolver, is_dra_extended_resource_name
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import NodeInfo, is_scalar_resource_name, pod_requests, value

__all__ = [
    "SPECIAL_CLAIM_IN_MEM_NAME", "is_special_claim_name", "pod_scalar_resources",
    "has_device_class_mapped_extended_resource", "find_extended_resource_claim", "new_special_claim",
    "node_extended_resources", "create_requests_and_mappings", "generated_claim_name",
]

# Not a valid object name on purpose: it can never collide with a claim in the API.
SPECIAL_CLAIM_IN_MEM_NAME = "<extended-resources>"
_MAX_GENERATED_NAME_LENGTH = 58  # names.SimpleNameGenerator: 63 minus the 5 random characters
_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # utilrand.String's characters


def is_special_claim_name(name: str) -> bool:
    return name == SPECIAL_CLAIM_IN_MEM_NAME


def pod_scalar_resources(pod: Pod) -> dict[str, int]:
    """framework.NewResource(PodRequests(pod)).ScalarResources: whole units, rounded up."""
    return {name: value(q) for name, q in pod_requests(pod).items() if is_scalar_resource_name(name)}


def has_device_class_mapped_extended_resource(reqs: dict[str, Fraction], resolver: DeviceClassResolver) -> bool:
    """Whether a non-zero request names an extended resource some DeviceClass serves."""
    return any(q != 0 and is_dra_extended_resource_name(name) and resolver.get_device_class(name) is not None
               for name, q in reqs.items())


def find_extended_resource_claim(pod: Pod, claims: Any) -> ResourceClaim | None:
    """The claim an earlier cycle created for the pod's extended resources, if it still exists."""
    for claim in claims:
        if claim.annotations.get(EXTENDED_RESOURCE_CLAIM_ANNOTATION) != "true":
            continue
        for o in claim.owner_references:
            if o.name == pod.name and o.controller and o.uid == pod.uid:
                return claim
    return None


def new_special_claim(pod: Pod) -> ResourceClaim:
    """The in-memory claim, owned by the pod, without requests (Filter adds them per node)."""
    return ResourceClaim(
        name=SPECIAL_CLAIM_IN_MEM_NAME, namespace=pod.namespace,
        uid=stable_uid("ResourceClaim", pod.namespace, SPECIAL_CLAIM_IN_MEM_NAME, pod.uid),
        spec=DeviceClaimSpec(),
        owner_references=[OwnerReference(kind="Pod", name=pod.name, uid=pod.uid, controller=True)],
        annotations={EXTENDED_RESOURCE_CLAIM_ANNOTATION: "true"})


def generated_claim_name(pod: Pod) -> str:
    """The name the API server gives the claim (generateName `<pod>-extended-resources-`, cut to
    58 characters, plus five characters drawn here from the pod's UID instead of at random)."""
    base = f"{pod.name}-extended-resources-"[:_MAX_GENERATED_NAME_LENGTH]
    digest = hashlib.sha256(f"{pod.namespace}/{pod.name}/{pod.uid}".encode()).digest()
    return base + "".join(_NAME_ALPHABET[b % len(_NAME_ALPHABET)] for b in digest[:5])


def node_extended_resources(scalars: dict[str, int], node_info: NodeInfo,
                            resolver: DeviceClassResolver) -> tuple[dict[str, int] | None, Status | None]:
    """The first half of filterExtendedResources: which of the pod's extended resources DRA must
    allocate on this node (a class serves them and the node's allocatable has none), or a
    rejection for a resource neither the node nor any class provides."""
    out: dict[str, int] = {}
    allocatable = node_info.allocatable.scalar_resources
    for name, q in scalars.items():
        if not is_dra_extended_resource_name(name) or q == 0:
            continue
        backed = resolver.get_device_class(name) is not None
        have = allocatable.get(name)
        if backed and not have:
            out[name] = q
        elif have is None:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "cannot fit resource")
    return out, None


def _as_int(q: Fraction | int) -> int | None:
    """Quantity.AsInt64: the whole number, or None when it is not one."""
    if isinstance(q, int):
        return q
    return q.numerator if q.denominator == 1 else None


def _container_request(index: int, container: Container, resource: str, class_name: str,
                       reusable: list[DeviceRequest | None]) -> tuple[DeviceRequest | None,
                                                                      list[ContainerExtendedResourceRequest]]:
    """createResourceRequestAndMappings: the container's request for `resource` (None when it
    asks for none, or when requests of later long-lived containers already cover it) and the
    mappings naming the requests it uses."""
    mappings: list[ContainerExtendedResourceRequest] = []
    if resource not in container.requests:
        return None, mappings
    wanted = _as_int(container.requests[resource])
    if not wanted:
        return None, mappings
    covered = 0
    for r in reusable:
        if r is None:
            continue
        assert r.exactly is not None
        covered += r.exactly.count
        mappings.append(ContainerExtendedResourceRequest(container.name, resource, r.name))
        if covered >= wanted:
            return None, mappings
    # The request is named after the container's position (init containers first) and the
    # resource's position among the container's requests, sorted by name.
    position = sorted(container.requests).index(resource)
    name = f"container-{index}-request-{position}"
    request = DeviceRequest(name=name, exactly=ExactDeviceRequest(
        name=name, device_class_name=class_name, allocation_mode=ALLOCATION_MODE_EXACT_COUNT,
        count=wanted - covered))
    mappings.append(ContainerExtendedResourceRequest(container.name, resource, name))
    return request, mappings


def create_requests_and_mappings(pod: Pod, resources: dict[str, int], resolver: DeviceClassResolver,
                                 ) -> tuple[list[DeviceRequest], list[ContainerExtendedResourceRequest]]:
    """createRequestsAndMappings: the claim's requests for `resources` on one node, sorted by
    name, and the pod's request mappings.

    Long-lived containers (regular and sidecar init containers) each get their own request.
    A short-lived init container first reuses the requests of the long-lived containers after
    it (they are not running yet); what it still needs becomes its request, and all short-lived
    containers share the largest such request, as they run one at a time."""
    containers = [*pod.init_containers, *pod.containers]
    n_init = len(pod.init_containers)
    long_lived = [i for i, c in enumerate(containers) if i >= n_init or c.restart_policy == "Always"]
    short_lived = [i for i, c in enumerate(containers) if i < n_init and c.restart_policy != "Always"]
    requests: list[DeviceRequest] = []
    mappings: list[ContainerExtendedResourceRequest] = []
    for resource in sorted(resources):
        cls = resolver.get_device_class(resource)
        if cls is None:
            continue
        long_requests: list[DeviceRequest | None] = [None] * len(containers)
        long_mappings: list[ContainerExtendedResourceRequest] = []
        for i in long_lived:
            req, maps = _container_request(i, containers[i], resource, cls.name, [])
            long_requests[i] = req
            long_mappings += maps
        largest: DeviceRequest | None = None
        short_names: set[str] = set()
        short_mappings: list[ContainerExtendedResourceRequest] = []
        for i in short_lived:
            req, maps = _container_request(i, containers[i], resource, cls.name, long_requests[i:])
            if req is not None:
                short_names.add(req.name)
                assert req.exactly is not None
                if largest is None or largest.exactly.count < req.exactly.count:  # type: ignore[union-attr]
                    largest = req
            short_mappings += maps
        if largest is not None and len(short_names) > 1:
            short_names.discard(largest.name)
            short_mappings = [ContainerExtendedResourceRequest(m.container_name, m.resource_name, largest.name)
                              if m.request_name in short_names else m for m in short_mappings]
        if largest is not None:
            requests.append(largest)
        requests += [r for r in long_requests if r is not None]
        mappings += long_mappings + short_mappings
    requests.sort(key=lambda r: r.name)
    return requests, mappings
