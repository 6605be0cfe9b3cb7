"""DynamicResources (DRA): allocates a pod's ResourceClaims to devices on the chosen node
(upstream framework/plugins/dynamicresources/dynamicresources.go).

DRA is GA and enabled by default in v1.35, so the plugin is in the default profile (weight 2,
just before DefaultPreemption). The extension points:

* PreEnqueue: every claim the pod references exists (a template's claim has been generated and
  recorded in the pod's status) and is the pod's own; otherwise the pod waits, gated, with no
  FailedScheduling.
* PreFilter: the pod's claims; Skip without any. An allocated claim with a node selector limits
  the nodes; an unallocated one needs its DeviceClasses, and the structured allocator is set up
  over the ResourceSlices with every device that allocated claims (or allocations in flight)
  hold.
* Filter: the allocator finds devices for the unallocated claims on the node ("cannot allocate
  all claims"), and an allocated claim must be available there ("resourceclaim not available on
  the node"); both UnschedulableAndUnresolvable, so preemption does not help.
* Score: firstAvailable subrequests earlier in the list score higher.
* Reserve: the node's allocation is remembered as in flight; Unreserve forgets it and removes the
  pod from claims reserved for it.
* PreBind: the allocation and the pod's reservation are written to each claim (API updates).
* PostFilter: an allocated claim that was unavailable and is reserved by nobody else is
  deallocated ("deallocation of ResourceClaim completed"); otherwise "still not schedulable".
  Pods without claims answer "no new claims to deallocate" — the fragment every default-profile
  FailedScheduling message carries before the preemption summary. If PreFilter never ran (an
  earlier PreFilter plugin rejected the pod), PostFilter cannot read its state and returns an
  Error "not found", exactly as upstream does.

Pods without claims take upstream's fast paths (an empty state, Skip) at every point.

The run's alpha gates reach the allocator as its features (upstream AllocatorFeatures):
DRADeviceTaints, DRAPartitionableDevices and DRAConsumableCapacity (which also changes the
allocated state: shares of shared devices hold only their consumed capacity); with
DRADeviceTaintRules the slices are listed with the DeviceTaintRules' taints added.

DRAExtendedResource adds the special claim for extended resources a DeviceClass serves, kept
after the pod's own claims (`extended_resources.py` explains its life): a pod without claims
that asks for such a resource is no longer skipped.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from scheduler_core.api.resource_types import (
    FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE,
    AllocationResult,
    ContainerExtendedResourceRequest,
    DeviceClaimSpec,
    PodExtendedResourceClaimStatus,
    ResourceClaim,
    ResourceClaimConsumerReference,
)
from scheduler_core.api.types import Pod
from scheduler_core.api.uid import stable_uid
from scheduler_core.dra.extended_resource_cache import DeviceClassResolver
from scheduler_core.dra.structured.allocator import (
    MISS,
    AllocationError,
    Allocator,
    DeviceCelCache,
    DeviceID,
    FailedAllocationOnNode,
    Features,
    NodeAnswers,
)
from scheduler_core.dra.structured.pools import SliceIndex
from scheduler_core.dra.taint_rules import apply_taint_rules
from scheduler_core.featuregate import spec_at
from scheduler_core.featuregate.features import gates_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import (
    MAX_NODE_SCORE,
    ClusterEventWithHint,
    EnqueueExtensions,
    FilterPlugin,
    PluginArgsError,
    PostFilterPlugin,
    PostFilterResult,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    ReservePlugin,
    ScorePlugin,
)
from scheduler_core.framework.plugins import names
from scheduler_core.framework.plugins.dynamicresources.extended_resources import (
    create_requests_and_mappings,
    find_extended_resource_claim,
    generated_claim_name,
    has_device_class_mapped_extended_resource,
    is_special_claim_name,
    new_special_claim,
    node_extended_resources,
    pod_scalar_resources,
)
from scheduler_core.framework.plugins.helper.nodeaffinity import new_node_selector
from scheduler_core.framework.plugins.helper.normalize_score import (
    default_normalize_score,
    default_normalize_score_values,
)
from scheduler_core.framework.plugins.helper.signing import Unsignable
from scheduler_core.framework.status import SKIP, Code, Status
from scheduler_core.framework.types import (
    ActionType,
    ClusterEvent,
    EventResource,
    NodeInfo,
    NodeScore,
    PreFilterResult,
    QueueingHint,
    pod_requests,
)

NAME = names.DYNAMIC_RESOURCES
_NO_RULES: list[Any] = []  # one object, so the slice index is not rebuilt for every pod
STATE_KEY = NAME
NOT_FOUND = "not found"  # fwk.ErrNotFound, what CycleState.Read returns for a missing key
WRITER = NAME  # who the claim writes of this plugin are attributed to in the event stream


class _NotSchedulable(Exception):
    """foreachPodResourceClaim's errors: each means "not schedulable (yet)"."""


class _NodeAllocation:
    """nodeAllocation: Filter's results for one node, and (DRAExtendedResource) the node's
    variant of the special claim with the pod's request mappings."""

    __slots__ = ("results", "extended_claim", "mappings")

    def __init__(self, results: list[AllocationResult], extended_claim: ResourceClaim | None = None,
                 mappings: list[ContainerExtendedResourceRequest] | None = None) -> None:
        self.results = results
        self.extended_claim = extended_claim
        self.mappings = mappings or []


class _Info:
    """informationForClaim: where an allocated claim is available; Reserve's allocation."""

    __slots__ = ("available_on_nodes", "allocation")

    def __init__(self) -> None:
        self.available_on_nodes: Any = None
        self.allocation: AllocationResult | None = None


class _StateData:
    """The pod's claims (empty: nothing to do) and what Filter found per node.

    `claims` holds the pod's own claims, then the special claim for extended resources when
    there is one (upstream's claimStore): `num_user` counts the former."""

    __slots__ = ("claims", "allocator", "unavailable_claims", "informations", "node_allocations",
                 "claims_to_allocate", "num_user", "initial_extended_uid", "scalars", "node_claims")

    def __init__(self) -> None:
        self.claims: list[ResourceClaim] = []
        self.num_user = 0
        self.claims_to_allocate: list[ResourceClaim] = []  # the unallocated ones, for Filter
        self.allocator: Allocator | None = None
        self.unavailable_claims: set[int] = set()
        self.informations: list[_Info] = []
        self.node_allocations: dict[str, _NodeAllocation] = {}
        # DRAExtendedResource: the special claim's UID before PreBind creates it, the pod's
        # scalar requests, and the special claim's variants per set of resources DRA allocates
        # (one object per variant, so the allocator's per-claim memo stays valid).
        self.initial_extended_uid = ""
        self.scalars: dict[str, int] = {}
        self.node_claims: dict[tuple[tuple[str, int], ...],
                               tuple[ResourceClaim, list[ContainerExtendedResourceRequest]]] = {}

    def clone(self) -> _StateData:
        return self

    def to_allocate(self) -> list[tuple[int, ResourceClaim]]:
        return [(i, c) for i, c in enumerate(self.claims) if c.allocation is None]

    def extended_claim(self) -> ResourceClaim | None:
        """The special claim, or None (extendedResourceClaim)."""
        return self.claims[self.num_user] if len(self.claims) > self.num_user else None


def is_reserved_for_pod(pod: Pod, claim: ResourceClaim) -> bool:
    return any(r.uid == pod.uid for r in claim.reserved_for)


def _status_unschedulable(reason: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reason)


class DynamicResources(PreEnqueuePlugin, PreFilterPlugin, FilterPlugin, PostFilterPlugin, ScorePlugin,
                       ReservePlugin, PreBindPlugin, EnqueueExtensions):
    name = NAME

    def __init__(self, args: dict[str, Any] | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        a = args or {}
        # DRASchedulerFilterTimeout is beta (on) in v1.35, DRADeviceBindingConditions and
        # DRAResourceClaimDeviceStatus are not both on: a bindingTimeout is refused.
        errs = []
        ft = a.get("filterTimeout")
        gates = gates_of(handle)

        def beta(g: str) -> bool:
            """A beta gate (on by default), which a run may turn off; on where the modelled
            version has no such gate (the code there never checked it)."""
            return gates.enabled(g) if spec_at(g, gates.version) is not None else True

        # Upstream checks filterTimeout only while DRASchedulerFilterTimeout is on.
        if isinstance(ft, str) and ft.startswith("-") and beta("DRASchedulerFilterTimeout"):
            errs.append(f'filterTimeout: Invalid value: "{ft}": must be zero or positive')
        if a.get("bindingTimeout") is not None:
            errs.append("bindingTimeout: Forbidden: DRADeviceBindingConditions or DRAResourceClaimDeviceStatus "
                        "feature gate is disabled")
        if errs:
            raise PluginArgsError(f"{NAME}: " + (errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"))
        # The alpha gates of the allocator (AllocatorFeatures): each only when the run sets it.
        on = (lambda g: gates.enabled(g)) if gates.overrides else (lambda g: False)
        self.features = Features(admin_access=beta("DRAAdminAccess"),
                                 prioritized_list=beta("DRAPrioritizedList"),
                                 device_taints=on("DRADeviceTaints"),
                                 partitionable_devices=on("DRAPartitionableDevices"),
                                 consumable_capacity=on("DRAConsumableCapacity"))
        # DRADeviceTaintRules: slices are listed with the DeviceTaintRules' taints added.
        self.taint_rules = on("DRADeviceTaintRules")
        # DRAExtendedResource: the DeviceClass resolver (None: the gate is off).
        self.device_classes: DeviceClassResolver | None = (
            DeviceClassResolver() if on("DRAExtendedResource") else None)
        # The slice index and CEL verdicts are rebuilt when the cluster's slice list changes.
        self._index_for: tuple[int, ...] | None = None
        self._index: SliceIndex | None = None
        self._cel = DeviceCelCache(self.features.consumable_capacity)
        # The allocator's answers per node, kept from cycle to cycle (see NodeAnswers).
        self._answers = NodeAnswers()

    # ---- the cluster (upstream's SharedDRAManager) -----------------------------------------------
    def _cluster(self) -> Any:
        return getattr(self.handle, "cluster", None)

    def _api(self) -> Any:
        return self.handle.options.client  # type: ignore[union-attr]

    def _claim(self, namespace: str, name: str) -> ResourceClaim | None:
        cluster = self._cluster()
        if cluster is None:
            return None
        return cluster.resource_claims.get(f"{namespace}/{name}")

    def _in_flight(self) -> dict[str, ResourceClaim]:
        """Allocations Reserve made that PreBind has not written yet (claim uid -> claim)."""
        return self._cluster().dra_in_flight

    def _slice_index(self) -> SliceIndex:
        cluster = self._cluster()
        slices = cluster.resource_slices
        rules = cluster.device_taint_rules if self.taint_rules else _NO_RULES
        ident = (id(slices), len(slices), id(rules), len(rules))
        if self._index is None or self._index_for != ident:
            self._index = SliceIndex(apply_taint_rules(list(slices), list(rules)),
                                     self.features.partitionable_devices)
            self._index_for = ident
            self._cel = DeviceCelCache(self.features.consumable_capacity)
        return self._index

    def _allocated_devices(self) -> tuple[set[DeviceID], dict[DeviceID, dict[str, Any]]]:
        """ListAllAllocatedDevices / GatherAllocatedState: devices of allocated claims and of
        allocations in flight (adminAccess results hold nothing); with DRAConsumableCapacity, a
        result with a shareID holds only its consumed capacity, summed per device."""
        out: set[DeviceID] = set()
        shared: dict[DeviceID, dict[str, Any]] = {}
        consumable = self.features.consumable_capacity
        flight = self._in_flight()
        claims = self._cluster().resource_claims
        allocations = []
        for claim in claims.values():
            pending = flight.get(claim.uid)
            allocations.append(pending.allocation if pending is not None else claim.allocation)
        if len(flight) and self.device_classes is not None:
            # The special claim is in flight before the API has it (DRAExtendedResource).
            known = {c.uid for c in claims.values()}
            allocations += [c.allocation for uid, c in flight.items() if uid not in known]
        for alloc in allocations:
            if alloc is None:
                continue
            for r in alloc.results:
                if r.admin_access:
                    continue
                did = (r.driver, r.pool, r.device)
                if consumable and r.share_id is not None:
                    if r.consumed_capacity:
                        total = shared.setdefault(did, {})
                        for name, value in r.consumed_capacity.items():
                            total[name] = total.get(name, 0) + value
                    continue
                out.add(did)
        return out, shared

    def _foreach_pod_claim(self, pod: Pod) -> list[ResourceClaim]:
        """foreachPodResourceClaim: the pod's claims, or _NotSchedulable."""
        out = []
        for pc in pod.resource_claims:
            must_check_owner = False
            if pc.resource_claim_name is not None:
                claim_name: str | None = pc.resource_claim_name
            elif pc.resource_claim_template_name is not None:
                if pc.name not in pod.resource_claim_statuses:
                    raise _NotSchedulable(f'pod "{pod.namespace}/{pod.name}": ResourceClaim not created yet')
                claim_name = pod.resource_claim_statuses[pc.name]
                must_check_owner = True
            else:
                raise _NotSchedulable(f'pod "{pod.namespace}/{pod.name}", spec.resourceClaim '
                                      f'"{pc.name}": none of the supported fields are set')
            if claim_name is None:
                continue
            claim = self._claim(pod.namespace, claim_name)
            if claim is None:
                raise _NotSchedulable(f'resourceclaim.resource.k8s.io "{claim_name}" not found')
            if claim.deletion_timestamp is not None:
                raise _NotSchedulable(f'resourceclaim "{claim.name}" is being deleted')
            if must_check_owner and not (claim.namespace == pod.namespace and any(
                    o.controller and o.kind == "Pod" and o.uid == pod.uid for o in claim.owner_references)):
                raise _NotSchedulable(f"ResourceClaim {claim.namespace}/{claim.name} was not created "
                                      f"for pod {pod.namespace}/{pod.name} (pod is not owner)")
            out.append(claim)
        return out

    # ---- PreEnqueue ----------------------------------------------------------------------------
    def pre_enqueue(self, pod: Pod) -> Status | None:
        if not pod.resource_claims:
            return None
        try:
            self._foreach_pod_claim(pod)
        except _NotSchedulable as exc:
            return _status_unschedulable(str(exc))
        return None

    # ---- PreFilter -----------------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        s = _StateData()
        state.write(STATE_KEY, s)
        if not pod.resource_claims and self.device_classes is None:
            return None, SKIP
        try:
            claims = self._foreach_pod_claim(pod) if pod.resource_claims else []
        except _NotSchedulable as exc:
            return None, _status_unschedulable(str(exc))
        extended = self._pre_filter_extended_resources(pod, s)
        s.num_user = len(claims)
        if extended is not None:
            claims = [*claims, extended]
            s.initial_extended_uid = extended.uid
        if not claims:
            return None, SKIP
        num_to_allocate = 0
        infos = [_Info() for _ in claims]
        flight = self._in_flight()
        classes = self._cluster().device_classes
        for i, claim in enumerate(claims):
            if claim.allocation is not None:
                if claim.allocation.node_selector is not None:
                    sel = new_node_selector(claim.allocation.node_selector)
                    if sel.errors():
                        return None, Status.error("; ".join(sel.errors()))
                    infos[i].available_on_nodes = sel
                continue
            num_to_allocate += 1
            if claim.uid in flight:
                return None, _status_unschedulable(
                    f"resource claim {claim.namespace}/{claim.name} is in the process of being allocated")
            if claim is extended:
                continue  # Filter builds its requests per node (or refuses an old one)
            for request in claim.spec.requests:
                if request.exactly is not None:
                    st = self._validate_device_class(classes, request.exactly.device_class_name, request.name)
                elif request.first_available:
                    st = None
                    if not self.features.prioritized_list:
                        st = _status_unschedulable(
                            f"resource claim {claim.namespace}/{claim.name}, request {request.name}: "
                            "has subrequests, but the DRAPrioritizedList feature is disabled")
                    for sub in request.first_available if st is None else ():
                        st = self._validate_device_class(classes, sub.device_class_name,
                                                         f"{request.name}/{sub.name}")
                        if st is not None:
                            break
                else:
                    st = _status_unschedulable(f"resource claim {claim.namespace}/{claim.name}, request "
                                               f"{request.name}: unknown request type")
                if st is not None:
                    return None, st
        s.informations = infos
        if num_to_allocate > 0:
            s.claims_to_allocate = [c for c in claims if c.allocation is None]
            dedicated, shared = self._allocated_devices()
            s.allocator = Allocator(self.features, dedicated, dict(classes),
                                    self._slice_index(), self._cel, shared,
                                    None if extended is not None else self._answers)
            s.node_allocations = {}
        s.claims = claims
        return None, None

    def _pre_filter_extended_resources(self, pod: Pod, s: _StateData) -> ResourceClaim | None:
        """preFilterExtendedResources: the special claim when the pod asks for an extended
        resource a DeviceClass serves (the one an earlier cycle created, else a new in-memory
        one); None with the gate off or without such requests."""
        resolver = self._resolver()
        if resolver is None:
            return None
        reqs = pod_requests(pod)
        if not has_device_class_mapped_extended_resource(reqs, resolver):
            return None
        s.scalars = pod_scalar_resources(pod)
        found = find_extended_resource_claim(pod, self._cluster().resource_claims.values())
        return found if found is not None else new_special_claim(pod)

    def _resolver(self) -> DeviceClassResolver | None:
        if self.device_classes is None:
            return None
        return self.device_classes.refresh(self._cluster().device_classes)

    @staticmethod
    def _validate_device_class(classes: dict[str, Any], name: str, request_name: str) -> Status | None:
        if not name:
            return Status.error(f"request {request_name}: unsupported request type")
        if name not in classes:
            return _status_unschedulable(f"request {request_name}: device class {name} does not exist")
        return None

    def pre_filter_extensions(self) -> None:
        return None

    # ---- Filter ----------------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        s = state.get(STATE_KEY)
        if s is None:
            return Status.error(NOT_FOUND)
        if not s.claims:
            return None
        node = node_info.node
        node_claim = mappings = None
        if s.num_user < len(s.claims):
            node_claim, mappings, st = self._filter_extended_resources(s, pod, node_info)
            if st is not None:
                return st
            if node_claim is None and s.num_user == 0:
                return None  # a device plugin serves everything here: NodeResourcesFit's part
        unavailable = []
        for i, _claim in enumerate(s.claims):
            sel = s.informations[i].available_on_nodes
            if sel is not None and not sel.match(node):
                unavailable.append(i)
        allocations = None
        if s.allocator is not None:
            to_allocate = s.claims_to_allocate
            if node_claim is not None:
                extended = s.extended_claim()
                to_allocate = [node_claim if c is extended else c for c in to_allocate]
            try:
                allocations = s.allocator.allocate(node, to_allocate)
            except FailedAllocationOnNode as exc:
                return _status_unschedulable(str(exc))
            except AllocationError as exc:
                return Status.error(str(exc))
            if allocations is None or len(allocations) != len(to_allocate):
                return _status_unschedulable("cannot allocate all claims")
        if unavailable:
            s.unavailable_claims.update(unavailable)
            return _status_unschedulable("resourceclaim not available on the node")
        if s.allocator is not None:
            s.node_allocations[node.name] = _NodeAllocation(allocations, node_claim, mappings)
        return None

    def _filter_extended_resources(self, s: _StateData, pod: Pod, node_info: NodeInfo) -> tuple[
            ResourceClaim | None, list[ContainerExtendedResourceRequest] | None, Status | None]:
        """filterExtendedResources: the special claim as this node needs it (None: nothing to
        allocate here), its request mappings, or a rejection."""
        extended = s.extended_claim()
        assert extended is not None
        if extended.spec.requests:
            # Created in an earlier cycle: refused, so that PostFilter deletes it.
            return None, None, _status_unschedulable("cannot schedule extended resource claim")
        resolver = self._resolver()
        assert resolver is not None
        resources, st = node_extended_resources(s.scalars, node_info, resolver)
        if st is not None:
            return None, None, st
        assert resources is not None
        if (s.num_user == 0 and not resources) or extended.allocation is not None:
            return None, None, None
        key = tuple(sorted(resources.items()))
        variant = s.node_claims.get(key)
        if variant is None:
            requests, maps = create_requests_and_mappings(pod, resources, resolver)
            variant = (dataclasses.replace(extended, spec=DeviceClaimSpec(requests=requests)), maps)
            s.node_claims[key] = variant
        return variant[0], variant[1], None

    def filter_nodes(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> list[Status | None]:
        """`filter` on every node. Nodes no ResourceSlice can target all get the same verdict
        when no allocated claim limits the nodes (the allocator then has nothing node-specific
        to look at): the first such node's rejection is given to the others (one Status, as the
        batched filter walk allows)."""
        s = state.get(STATE_KEY)
        f = self.filter
        if s is None or not s.claims or s.allocator is None or s.num_user < len(s.claims) or \
                any(info.available_on_nodes is not None for info in s.informations):
            return [f(state, pod, ni) for ni in nodes]
        index = s.allocator.index
        if index.other:  # some slice uses a node selector or allNodes: every node may have devices
            return [f(state, pod, ni) for ni in nodes]
        targeted = index.by_node
        # The shared rejection first (which node's `filter` runs first changes nothing: each
        # node's verdict and what it records are its own), then one pass.
        first = next((ni for ni in nodes if ni.name not in targeted), None)
        if first is not None:
            shared = f(state, pod, first)
            if shared is not None:
                return self._filter_targeted(state, pod, s, nodes, targeted, shared)
        template: Status | None = None
        out: list[Status | None] = []
        for ni in nodes:
            if ni.node.name in targeted:
                out.append(f(state, pod, ni))
            elif template is not None:
                out.append(template)
            else:
                st = f(state, pod, ni)
                template = st
                out.append(st)
        return out

    def _filter_targeted(self, state: CycleState, pod: Pod, s: _StateData, nodes: list[NodeInfo],
                         targeted: dict[str, Any], shared: Status) -> list[Status | None]:
        """filter_nodes' pass when the nodes no slice targets share `shared`: a targeted node
        whose answer the allocator kept (see NodeAnswers) gets what `filter` would give, without
        the call; the others go through `filter`."""
        f = self.filter
        allocator = s.allocator
        assert allocator is not None
        remembered = allocator.remembered
        to_allocate = s.claims_to_allocate
        n = len(to_allocate)
        by_node = s.node_allocations
        cannot: Status | None = None
        out: list[Status | None] = []
        for ni in nodes:
            if ni.name not in targeted:
                out.append(shared)
                continue
            answer = remembered(ni.node, to_allocate)
            if answer is MISS:
                out.append(f(state, pod, ni))
            elif answer is None or len(answer) != n:
                if cannot is None:
                    cannot = _status_unschedulable("cannot allocate all claims")
                out.append(cannot)
            else:
                by_node[ni.name] = _NodeAllocation(answer)
                out.append(None)
        return out

    # ---- PostFilter ------------------------------------------------------------------------------
    def post_filter(self, state: CycleState, pod: Pod,
                    filtered_node_status_map: Any) -> tuple[PostFilterResult | None, Status | None]:
        s = state.get(STATE_KEY)
        if s is None:
            return None, Status.error(NOT_FOUND)
        if not s.claims:
            return None, Status(Code.UNSCHEDULABLE, "no new claims to deallocate")
        extended = s.extended_claim()
        # Upstream picks one of the unavailable claims at random (map order); the lowest index
        # keeps runs reproducible.
        for index in sorted(s.unavailable_claims):
            claim = s.claims[index]
            if claim is extended:
                continue  # a special claim created earlier is deleted below
            if not claim.reserved_for or (len(claim.reserved_for) == 1 and claim.reserved_for[0].uid == pod.uid):
                current = self._claim(claim.namespace, claim.name) or claim
                new = dataclasses.replace(current, reserved_for=[], allocation=None)
                self._api().update_resource_claim(new, action="deallocated", by=WRITER, pod=pod.key)
                return None, Status(Code.UNSCHEDULABLE, "deallocation of ResourceClaim completed")
        if extended is not None and not is_special_claim_name(extended.name):
            # The special claim of an earlier cycle (its binding failed): start anew.
            self._api().delete_resource_claim(extended.key, by=WRITER, pod=pod.key)
            return None, Status(Code.UNSCHEDULABLE, "deletion of ResourceClaim completed")
        return None, Status(Code.UNSCHEDULABLE, "still not schedulable")

    # ---- Score -----------------------------------------------------------------------------------
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        s = state.get(STATE_KEY)
        if s is None:
            return 0, Status.error(NOT_FOUND)
        if not s.claims:
            return 0, None
        allocations = s.node_allocations.get(node_info.node.name)
        if allocations is None:
            return 0, None
        return self._compute_score(s.claims, allocations.results)

    @staticmethod
    def _compute_score(claims: list[ResourceClaim], allocations: list[AllocationResult]) -> tuple[int, Status | None]:
        """Subrequests chosen earlier in a firstAvailable list score more. Upstream pairs the
        i-th claim with the i-th allocation result (results exist only for claims it allocated)."""
        score = 0
        for i, claim in enumerate(claims):
            if i >= len(allocations):
                return 0, Status.error(f"number of allocations {len(allocations)} is smaller than "
                                       "number of claims")
            chosen = {r.request for r in allocations[i].results if r.request.count("/") == 1}
            for req in claim.spec.requests:
                if req.exactly is not None:
                    continue
                for j, sub in enumerate(req.first_available):
                    if f"{req.name}/{sub.name}" in chosen:
                        score += FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE - j
        return score, None

    def score_nodes(self, state: CycleState, pod: Pod,
                    nodes: list[NodeInfo]) -> tuple[list[int] | None, Status | None]:
        s = state.get(STATE_KEY)
        if s is None:
            return None, Status.error(NOT_FOUND)
        if not s.claims:
            return [0] * len(nodes), None
        if not any(req.first_available for c in s.claims for req in c.spec.requests):
            # Only firstAvailable subrequests score; without them a node scores 0, unless it has
            # fewer allocations than claims (an error, which the loop below reports).
            n = len(s.claims)
            allocations = s.node_allocations
            if all(a is None or len(a.results) >= n for a in map(allocations.get, [ni.name for ni in nodes])):
                return [0] * len(nodes), None
        out = []
        for ni in nodes:
            v, st = self.score(state, pod, ni)
            if st is not None:
                return None, st
            out.append(v)
        return out, None

    def score_extensions(self) -> DynamicResources:
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        return default_normalize_score(MAX_NODE_SCORE, False, scores)

    def normalize_score_values(self, state: CycleState, pod: Pod, scores: list[int]) -> Status | None:
        return default_normalize_score_values(MAX_NODE_SCORE, False, scores)

    # ---- Reserve / Unreserve ---------------------------------------------------------------------
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        s = state.get(STATE_KEY)
        if s is None:
            return Status.error(NOT_FOUND)
        if not s.claims:
            return None
        to_allocate = s.to_allocate()
        if not to_allocate:
            return None
        if s.allocator is not None:
            extended = s.extended_claim()
            node_allocation = s.node_allocations.get(node_name)
            allocations = node_allocation.results if node_allocation is not None else None
            if not allocations:
                if all(c is extended for _, c in to_allocate):
                    return None  # only the special claim, and a device plugin serves it here
                return Status.error("claim allocation not found for node")
            if len(allocations) != len(to_allocate):
                return Status.error(f"internal error, have {len(allocations)} allocations, "
                                    f"{len(to_allocate)} claims to allocate, want {len(to_allocate)} claims")
            flight = self._in_flight()
            for k, (index, claim) in enumerate(to_allocate):
                s.informations[index].allocation = allocations[k]
                if claim is extended and node_allocation is not None and node_allocation.extended_claim is not None:
                    claim = node_allocation.extended_claim  # the node's variant is the one allocated
                flight[claim.uid] = dataclasses.replace(claim, allocation=allocations[k])
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        s = state.get(STATE_KEY)
        if s is None or not s.claims:
            return None
        flight = self._in_flight()
        for claim in s.claims[:s.num_user]:
            flight.pop(claim.uid, None)
            if claim.allocation is not None and is_reserved_for_pod(pod, claim):
                current = self._claim(claim.namespace, claim.name)
                if current is None:
                    continue
                new = dataclasses.replace(current, reserved_for=[r for r in current.reserved_for
                                                                 if r.uid != pod.uid])
                self._api().update_resource_claim(new, action="unreserved", by=WRITER, pod=pod.key,
                                                  node=node_name)
        self._unreserve_extended_resource_claim(s, pod)
        return None

    def _unreserve_extended_resource_claim(self, s: _StateData, pod: Pod) -> None:
        """Forget the special claim's allocation in flight; delete it if PreBind created it."""
        extended = s.extended_claim()
        if extended is None:
            return
        self._in_flight().pop(s.initial_extended_uid, None)
        if is_special_claim_name(extended.name):
            return
        self._api().delete_resource_claim(extended.key, by=WRITER, pod=pod.key)

    # ---- PreBind ---------------------------------------------------------------------------------
    def pre_bind_pre_flight(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        s = state.get(STATE_KEY)
        if s is None:
            return Status.error(NOT_FOUND)
        if not s.claims:
            return SKIP
        return None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        s = state.get(STATE_KEY)
        if s is None:
            return Status.error(NOT_FOUND)
        if not s.claims:
            return None
        for index, claim in enumerate(s.claims):
            if is_reserved_for_pod(pod, claim):
                continue
            new, err = self._bind_claim(s, index, pod, node_name)
            if err is not None:
                return Status.error(err)
            s.claims[index] = new
        return None

    def _bind_claim(self, s: _StateData, index: int, pod: Pod, node_name: str) -> tuple[Any, str | None]:
        """Write Reserve's allocation (if any) and the pod's reservation to the claim; the special
        claim is created first, and the pod's extendedResourceClaimStatus recorded after."""
        claim = s.claims[index]
        allocation = s.informations[index].allocation
        flight = self._in_flight()
        in_flight_uid = claim.uid
        is_extended = False
        if index == s.num_user:
            if allocation is None and not claim.spec.requests:
                return claim, None  # a device plugin serves the pod's extended resources
            is_extended = True
        try:
            if is_extended and is_special_claim_name(claim.name):
                created, err = self._create_extended_resource_claim(s, pod, node_name)
                if err is not None:
                    return None, err
                claim = s.claims[index] = created
            current = self._claim(claim.namespace, claim.name)
            if current is None:
                return None, f'resourceclaims.resource.k8s.io "{claim.name}" not found'
            if current.deletion_timestamp is not None:
                return None, f"claim {claim.namespace}/{claim.name} got deleted in the meantime"
            if allocation is not None and current.allocation is not None:
                return None, f"claim {claim.namespace}/{claim.name} got allocated elsewhere in the meantime"
            ref = ResourceClaimConsumerReference(resource="pods", name=pod.name, uid=pod.uid)
            new = dataclasses.replace(current, allocation=allocation or current.allocation,
                                      reserved_for=[*current.reserved_for, ref])
            self._api().update_resource_claim(new, action="allocated" if allocation is not None else "reserved",
                                              by=WRITER, pod=pod.key, node=node_name)
            if is_extended:
                err = self._record_extended_resource_claim_status(s, pod, new, node_name)
                if err is not None:
                    return None, err
            return new, None
        finally:
            if allocation is not None:
                flight.pop(in_flight_uid, None)

    def _create_extended_resource_claim(self, s: _StateData, pod: Pod,
                                        node_name: str) -> tuple[ResourceClaim | None, str | None]:
        """createExtendedResourceClaimInAPI: the node's variant of the special claim, created
        without allocation under its generated name."""
        node_allocation = s.node_allocations.get(node_name)
        if node_allocation is None or node_allocation.extended_claim is None:
            return None, f"extended resource claim not found for node {node_name}"
        name = generated_claim_name(pod)
        claim = dataclasses.replace(node_allocation.extended_claim, name=name, allocation=None,
                                    uid=stable_uid("ResourceClaim", pod.namespace, name, pod.uid))
        self._api().create_resource_claim(claim, by=WRITER, pod=pod.key)
        return claim, None

    def _record_extended_resource_claim_status(self, s: _StateData, pod: Pod, claim: ResourceClaim,
                                               node_name: str) -> str | None:
        """patchPodExtendedResourceClaimStatus: the claim's name and the request mappings."""
        node_allocation = s.node_allocations.get(node_name)
        mappings = node_allocation.mappings if node_allocation is not None else []
        if not mappings:
            return (f"nil or empty request mappings, no update of pod {pod.namespace}/{pod.name} "
                    "ExtendedResourceClaimStatus")
        self._api().set_extended_resource_claim_status(
            pod, PodExtendedResourceClaimStatus(tuple(mappings), claim.name), by=WRITER)
        return None

    # ---- queueing hints --------------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        add_update = ActionType.ADD | ActionType.UPDATE
        return [
            ClusterEventWithHint(ClusterEvent(
                EventResource.NODE,
                ActionType.ADD | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_ALLOCATABLE)),
            ClusterEventWithHint(ClusterEvent(EventResource.RESOURCE_CLAIM, add_update),
                                 self.is_schedulable_after_claim_change),
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM),
                                 self.is_schedulable_after_pod_change),
            ClusterEventWithHint(ClusterEvent(EventResource.DEVICE_CLASS, add_update)),
            ClusterEventWithHint(ClusterEvent(EventResource.RESOURCE_SLICE, add_update)),
        ]

    def is_schedulable_after_claim_change(self, pod: Pod, old: Any, new: Any) -> int:
        """A deallocated claim may free devices for anyone; otherwise only the pod's own claims,
        when created or when their status changed."""
        try:
            claims = self._foreach_pod_claim(pod)
        except _NotSchedulable:
            return QueueingHint.SKIP
        uses_claim = any(c.uid == new.uid for c in claims)
        if old is not None and getattr(old, "allocation", None) is not None and new.allocation is None:
            return QueueingHint.QUEUE
        if not uses_claim:
            return QueueingHint.SKIP
        if old is None:
            return QueueingHint.QUEUE
        if old.allocation == new.allocation and old.reserved_for == new.reserved_for:
            return QueueingHint.SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_pod_change(self, pod: Pod, old: Any, new: Pod) -> int:
        if new.uid != pod.uid:
            return QueueingHint.SKIP
        try:
            self._foreach_pod_claim(new)
        except _NotSchedulable:
            return QueueingHint.SKIP
        return QueueingHint.QUEUE

    def sign_pod(self, pod: Pod) -> dict[str, Any]:
        """This plugin's fragments of the pod's batching signature (upstream SignPod): none, and
        pods with claims cannot be signed at all."""
        if pod.resource_claims:
            raise Unsignable("pods with dra resource claims are not signable")
        return {}
