"""The structured-parameters allocator (upstream k8s.io/dynamic-resource-allocation/structured,
the "incubating" implementation v1.35 selects with its default gates: DRAAdminAccess and
DRAPrioritizedList on; partitionable devices, device taints, consumable capacity and binding
conditions off). The run's gates switch on the alpha paths the "incubating" allocator has:

* DRADeviceTaints: a device with a NoSchedule or NoExecute taint that the request does not
  tolerate is skipped; the request's tolerations are copied into each allocation result.
* DRAPartitionableDevices: a device that consumes counters is allocated only while its pool's
  counter sets have enough left after the devices of allocated claims and those picked earlier in
  this attempt (as upstream, counters taken for a candidate that a taint or a constraint then
  rejects are not given back within the attempt).
* DRAConsumableCapacity (upstream's "experimental" allocator): a device with
  allowMultipleAllocations may be allocated again and again, each share consuming the request's
  capacity (rounded up to the capacity's request policy; all of it when nothing is requested)
  while allocated and in-flight shares leave room; each share gets a shareID and records its
  consumed capacity. distinctAttribute constraints need every device of the requests to differ.
  The shareID is derived from the claim, the request, the device and the result's position
  (upstream draws a random UID), so runs stay reproducible.

`Allocator.allocate(node, claims)` tries to give every request of every claim its devices from
the pools that node sees, depth first with backtracking, in upstream's order: claims, then
requests, then (for a firstAvailable request) its subrequests in preference order, then the
devices of each pool and slice in order. Devices already allocated to other claims, or picked for
an earlier request of this attempt, are skipped (an adminAccess request may share them).
matchAttribute constraints are checked as devices are added. The answer is one AllocationResult
per claim, or None when the claims cannot all be satisfied on the node.

Errors that are not "does not fit" (a CEL runtime error, an "All" request over an incomplete
pool, too many devices for one claim) raise `AllocationError`; `FailedAllocationOnNode` marks
the one upstream treats as a per-node failure (invalid pools).
"""

from __future__ import annotations

import copy
import math
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from scheduler_core.api.resource_types import (
    ALLOCATION_MODE_ALL,
    ALLOCATION_MODE_EXACT_COUNT,
    ALLOCATION_RESULTS_MAX_SIZE,
    AllocationResult,
    CapacityRequestPolicy,
    Device,
    DeviceAttribute,
    DeviceClass,
    DeviceRequestAllocationResult,
    DeviceSubRequest,
    DeviceToleration,
    ResourceClaim,
    ResourceSlice,
)
from scheduler_core.api.types import Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm
from scheduler_core.dra.cel import compile_selector, device_activation
from scheduler_core.dra.structured.pools import NodeSelectorError, Pool, SliceIndex, node_matches

__all__ = ["Allocator", "NodeAnswers", "MISS", "DeviceCelCache", "AllocationError", "FailedAllocationOnNode", "DeviceID", "Features",
           "device_id_string"]

DeviceID = tuple[str, str, str]  # (driver, pool, device)


def device_id_string(d: DeviceID) -> str:
    return f"{d[0]}/{d[1]}/{d[2]}"


@dataclass(frozen=True)
class Features:
    admin_access: bool = True
    prioritized_list: bool = True
    device_taints: bool = False
    partitionable_devices: bool = False
    consumable_capacity: bool = False


class AllocationError(Exception):
    """Something is wrong with a claim, a class or a pool (upstream: a Filter error)."""


class FailedAllocationOnNode(AllocationError):
    """Not a fatal error: allocation on other nodes may proceed (ErrFailedAllocationOnNode)."""


class _MaxSizeExceeded(Exception):
    """errAllocationResultMaxSizeExceeded: try the next subrequest."""


@dataclass
class _RequestData:
    request: DeviceSubRequest  # the request (an ExactDeviceRequest) or the subrequest
    parent: str | None  # the request's name when `request` is a subrequest
    admin_access: bool
    cls: DeviceClass | None
    num_devices: int = 0
    all_devices: list[tuple[DeviceID, Device, ResourceSlice, Pool]] = field(default_factory=list)

    def request_name(self) -> str:
        return f"{self.parent}/{self.request.name}" if self.parent else self.request.name


@dataclass
class _DeviceResult:
    request: str
    parent: str
    id: DeviceID
    slice: ResourceSlice
    admin_access: bool | None
    tolerations: list[DeviceToleration]
    device: Device
    share_id: str | None = None
    consumed_capacity: dict[str, Fraction] = field(default_factory=dict)

    def request_name(self) -> str:
        return f"{self.parent}/{self.request}" if self.parent else self.request


class _AttributeConstraint:
    """What the attribute constraints share: the requests they apply to (all when none are
    listed; a subrequest by its parent's name or its own)."""

    __slots__ = ("request_names", "attribute_name", "num_devices")

    def __init__(self, requests: list[str], attribute_name: str) -> None:
        self.request_names = set(requests)
        self.attribute_name = attribute_name
        self.num_devices = 0

    def _applies(self, request: str, sub: str) -> bool:
        if not self.request_names:
            return True
        if not sub:
            return request in self.request_names
        return request in self.request_names or f"{request}/{sub}" in self.request_names


class _DistinctAttribute(_AttributeConstraint):
    """constraints[].distinctAttribute: no two devices of the listed requests share the value
    (kept per request name, as upstream's distinctAttributeConstraint)."""

    __slots__ = ("attributes",)

    def __init__(self, requests: list[str], attribute_name: str) -> None:
        super().__init__(requests, attribute_name)
        self.attributes: dict[str, DeviceAttribute] = {}

    def add(self, request: str, sub: str, device: Device, did: DeviceID) -> bool:
        if not self._applies(request, sub):
            return True
        attr = _lookup_attribute(device, did, self.attribute_name)
        if attr is None:
            return False
        if self.num_devices and any(a.kind == attr.kind and a.value == attr.value
                                    for a in self.attributes.values()):
            return False
        self.attributes[request] = attr
        self.num_devices += 1
        return True

    def remove(self, request: str, sub: str, device: Device, did: DeviceID) -> None:
        if not self._applies(request, sub):
            return
        self.attributes.pop(request, None)
        self.num_devices -= 1


class _MatchAttribute(_AttributeConstraint):
    """constraints[].matchAttribute: every device of the listed requests has the same value."""

    __slots__ = ("attribute",)

    def __init__(self, requests: list[str], attribute_name: str) -> None:
        super().__init__(requests, attribute_name)
        self.attribute: DeviceAttribute | None = None

    def add(self, request: str, sub: str, device: Device, did: DeviceID) -> bool:
        if not self._applies(request, sub):
            return True
        attr = _lookup_attribute(device, did, self.attribute_name)
        if attr is None:
            return False
        if self.num_devices == 0:
            self.attribute = attr
            self.num_devices = 1
            return True
        assert self.attribute is not None
        if attr.kind != self.attribute.kind or attr.value != self.attribute.value:
            return False
        self.num_devices += 1
        return True

    def remove(self, request: str, sub: str, device: Device, did: DeviceID) -> None:
        if not self._applies(request, sub):
            return
        self.num_devices -= 1


def _lookup_attribute(device: Device, did: DeviceID, name: str) -> DeviceAttribute | None:
    attr = device.attributes.get(name)
    if attr is not None:
        return attr
    domain, sep, ident = name.partition("/")
    if not sep or domain != did[0]:
        return None
    return device.attributes.get(ident)


class DeviceCelCache:
    """Each (expression, device) verdict and each device's CEL `device` variable. A selector's
    answer depends on nothing else, so both can be shared across nodes and cycles for as long as
    the slices (and so the device objects) stay the same: the owner drops the cache when they
    change."""

    __slots__ = ("activations", "verdicts", "consumable_capacity")

    def __init__(self, consumable_capacity: bool = False) -> None:
        # DRAConsumableCapacity: `device.allowMultipleAllocations` says what the device says
        # (false without the gate, whose apiserver drops the field).
        self.consumable_capacity = consumable_capacity
        self.activations: dict[int, dict[str, Any]] = {}
        self.verdicts: dict[tuple[str, int], tuple[bool, str | None]] = {}

    def verdict(self, compiled: Any, driver: str, device: Device) -> tuple[bool, str | None]:
        key = (compiled.expression, id(device))
        found = self.verdicts.get(key)
        if found is None:
            act = self.activations.get(id(device))
            if act is None:
                act = self.activations[id(device)] = device_activation(
                    driver, device, self.consumable_capacity and bool(device.allow_multiple_allocations))
            found = self.verdicts[key] = compiled.device_matches(act)
        return found


MISS = object()  # Allocator.remembered: no answer kept for the node as it is


class NodeAnswers:
    """The allocator's last answer per node, kept across cycles with what it was worked out from.

    On a node whose pools only it sees (every slice names its node), an answer depends on the
    slices (the SliceIndex object, rebuilt when they change), the Node object, the claims'
    specs, the device classes and which devices of the node's pools are allocated (or in
    flight). A GPU pod after another finds all of that unchanged on every node but the one the
    last pod went to, so its search there is a lookup. Only answers are kept, never errors (they
    are raised again by a new search), and only without the gates whose results carry per-claim
    state (consumable capacity's share IDs) or draw on pools' counters (partitionable devices).
    """

    __slots__ = ("entries",)

    def __init__(self) -> None:
        # node name -> (SliceIndex, Node, its pools' keys, claims' signature, allocated device
        # names per pool, the answer)
        self.entries: dict[str, tuple[Any, ...]] = {}

    def __reduce__(self) -> tuple[type, tuple[()]]:
        """A checkpoint keeps no answers: they are worked out again after a restore."""
        return (NodeAnswers, ())


class Allocator:
    """One scheduling cycle's allocator: the allocated devices and slices are fixed for it."""

    def __init__(self, features: Features, allocated_devices: set[DeviceID],
                 classes: dict[str, DeviceClass], index: SliceIndex,
                 cel: DeviceCelCache | None = None,
                 aggregated_capacity: dict[DeviceID, dict[str, Fraction]] | None = None,
                 answers: NodeAnswers | None = None) -> None:
        self.features = features
        self.allocated_devices = allocated_devices
        # DRAConsumableCapacity: capacity consumed by the shares allocated claims hold, per device
        self.aggregated_capacity = aggregated_capacity or {}
        self.classes = classes
        self.index = index
        self.cel = cel if cel is not None else DeviceCelCache()
        self._without_pools: dict[tuple[int, ...], tuple[Any, AllocationError | None]] = {}
        self.answers = answers if not (features.consumable_capacity or features.partitionable_devices) else None
        # for `answers`: the allocated device names per pool, and the claims' signature (both
        # worked out at the first use in this cycle)
        self._allocated_by_pool: dict[tuple[str, str], frozenset[str]] | None = None
        self._claims_sig: tuple[tuple[int, ...], tuple[Any, ...]] | None = None

    def _signature(self, claims: list[ResourceClaim]) -> tuple[Any, ...]:
        """What of the claims and classes an answer depends on: the specs by value (claims
        from one template are equal but distinct objects) and the class objects."""
        ids = tuple(id(c) for c in claims)
        if self._claims_sig is None or self._claims_sig[0] != ids:
            classes = tuple(sorted(self.classes.items(), key=lambda kv: kv[0]))
            self._claims_sig = (ids, (tuple(repr(c.spec) for c in claims), classes))
        return self._claims_sig[1]

    def _allocated_in(self, pool_keys: tuple[tuple[str, str], ...]) -> tuple[frozenset[str], ...]:
        """The allocated device names of each of these pools."""
        by_pool = self._allocated_by_pool
        if by_pool is None:
            grouped: dict[tuple[str, str], set[str]] = {}
            for driver, pool, device in self.allocated_devices:
                grouped.setdefault((driver, pool), set()).add(device)
            by_pool = self._allocated_by_pool = {k: frozenset(v) for k, v in grouped.items()}
        empty: frozenset[str] = frozenset()
        return tuple([by_pool.get(k, empty) for k in pool_keys])

    def _remembered(self, node: Node, claims: list[ResourceClaim]) -> list[AllocationResult] | None:
        """`_Attempt.run` through `answers` (only for nodes no shared slice can reach)."""
        answers = self.answers
        assert answers is not None
        index = self.index
        hit = answers.entries.get(node.name)
        if hit is not None and hit[0] is index and hit[1] is node:
            pool_keys = hit[2]
        else:
            hit = None
            try:
                pools = index.gather_pools(node)
            except NodeSelectorError:
                return _Attempt(self, node, claims).run()  # raises the error, as the search would
            pool_keys = tuple([(p.driver, p.pool) for p in pools])
        sig = self._signature(claims)
        allocated = self._allocated_in(pool_keys)
        if hit is not None and hit[3] == sig and hit[4] == allocated:
            answer = hit[5]
        else:
            answer = _Attempt(self, node, claims).run()
            answers.entries[node.name] = (index, node, pool_keys, sig, allocated, answer)
        return list(answer) if answer is not None else None

    def remembered(self, node: Node, claims: list[ResourceClaim]) -> Any:
        """The answer `allocate` would give from `answers` without a search (a list of results,
        or None: the claims do not fit), or MISS when it has none for the node as it is now."""
        answers = self.answers
        if answers is None or self.index.other:
            return MISS
        hit = answers.entries.get(node.name)
        if hit is None or hit[0] is not self.index or hit[1] is not node:
            return MISS
        if hit[3] != self._signature(claims) or hit[4] != self._allocated_in(hit[2]):
            return MISS
        return list(hit[5]) if hit[5] is not None else None

    def allocate(self, node: Node, claims: list[ResourceClaim]) -> list[AllocationResult] | None:
        if not self.index.may_target(node):
            # No slice can target this node: the answer (no pools, so nothing to search) does
            # not depend on the node, and is worked out once for all such nodes.
            key = tuple(id(c) for c in claims)
            memo = self._without_pools.get(key)
            if memo is None:
                try:
                    memo = (_Attempt(self, node, claims).run(), None)
                except AllocationError as exc:
                    memo = (None, exc)
                self._without_pools[key] = memo
            if memo[1] is not None:
                raise memo[1]
            return copy.deepcopy(memo[0])
        if self.answers is not None and not self.index.other:
            return self._remembered(node, claims)
        return _Attempt(self, node, claims).run()


class _Attempt:
    """upstream's `allocator`: the state of one Allocate call for one node."""

    def __init__(self, a: Allocator, node: Node, claims: list[ResourceClaim]) -> None:
        self.a = a
        self.node = node
        self.claims = claims
        self.pools: list[Pool] = []
        self.request_data: dict[tuple[int, int, int], _RequestData] = {}
        self.selected_sub: dict[tuple[int, int], int] = {}
        self.constraints: list[list[_MatchAttribute]] = [[] for _ in claims]
        self.matches: dict[tuple[DeviceID, int, int, int], bool] = {}
        self.allocating: dict[DeviceID, set[int]] = {}
        self.result: list[list[_DeviceResult]] = [[] for _ in claims]
        # DRAPartitionableDevices, keyed by pool name as upstream: counters left after allocated
        # claims (computed once per pool), and counters taken by this attempt's devices.
        self.available_counters: dict[str, dict[str, dict[str, Fraction]]] = {}
        self.consumed_counters: dict[str, dict[str, dict[str, Fraction]]] = {}
        # DRAConsumableCapacity: capacity taken by this attempt's shares, per device
        self.allocating_capacity: dict[DeviceID, dict[str, Fraction]] = {}

    # ---- setup ---------------------------------------------------------------------------------
    def run(self) -> list[AllocationResult] | None:
        try:
            self.pools = self.a.index.gather_pools(self.node)
        except NodeSelectorError as exc:
            raise AllocationError(f"gather pool information: {exc}") from None
        for ci, claim in enumerate(self.claims):
            min_devices = 0
            for ri, request in enumerate(claim.spec.requests):
                if request.first_available:
                    if not self.a.features.prioritized_list:
                        raise AllocationError(f"claim {claim.key}, request {request.name}: has "
                                              "subrequests, but the DRAPrioritizedList feature is "
                                              "disabled")
                    smallest = None
                    for si, sub in enumerate(request.first_available):
                        # upstream validates subrequest i under the previous one's match-cache
                        # key (its key's index is advanced only afterwards)
                        rd = self._validate(ci, (ci, ri, max(si - 1, 0)), sub, request.name, False)
                        self.request_data[(ci, ri, si)] = rd
                        smallest = rd.num_devices if smallest is None else min(smallest, rd.num_devices)
                    min_devices += smallest or 0
                else:
                    assert request.exactly is not None
                    rd = self._validate(ci, (ci, ri, 0), request.exactly, None,
                                        bool(request.exactly.admin_access))
                    if request.exactly.admin_access is not None and not self.a.features.admin_access:
                        raise AllocationError(f"claim {claim.key}, request {request.name}: admin "
                                              "access is requested, but the feature is disabled")
                    self.request_data[(ci, ri, 0)] = rd
                    min_devices += rd.num_devices
            if min_devices > ALLOCATION_RESULTS_MAX_SIZE:
                raise AllocationError(f"claim {claim.key}: number of requested devices {min_devices} "
                                      f"exceeds the claim limit of {ALLOCATION_RESULTS_MAX_SIZE}")
            self.constraints[ci] = [
                _MatchAttribute(c.requests, c.match_attribute) if c.match_attribute
                else _DistinctAttribute(c.requests, c.distinct_attribute)
                for c in claim.spec.constraints
                if c.match_attribute or (c.distinct_attribute and self.a.features.consumable_capacity)]
        try:
            done = self._allocate_one(0, 0, 0, 0, False)
        except _MaxSizeExceeded:
            raise AllocationError("allocation max size exceeded") from None
        if not done:
            for pool in self.pools:
                if pool.is_invalid:
                    raise FailedAllocationOnNode("invalid resource pools were encountered")
            return None
        return [self._result(ci, claim) for ci, claim in enumerate(self.claims)]

    def _validate(self, ci: int, key: tuple[int, int, int], request: DeviceSubRequest,
                  parent: str | None, admin: bool) -> _RequestData:
        claim = self.claims[ci]
        name = f"{parent}/{request.name}" if parent else request.name
        cls = self.a.classes.get(request.device_class_name)
        if cls is None:
            raise AllocationError(f"claim {claim.key}, request {name}: could not retrieve device "
                                  f'class {request.device_class_name}: deviceclass.resource.k8s.io '
                                  f'"{request.device_class_name}" not found')
        rd = _RequestData(request=request, parent=parent, admin_access=admin, cls=cls)
        if request.allocation_mode == ALLOCATION_MODE_EXACT_COUNT:
            rd.num_devices = request.count
        elif request.allocation_mode == ALLOCATION_MODE_ALL:
            for pool in self.pools:
                if pool.is_incomplete:
                    raise AllocationError(f"claim {claim.key}, request {name}: asks for all "
                                          f"devices, but resource pool {pool.pool_id} is currently "
                                          "being updated")
                if pool.is_invalid:
                    raise AllocationError(f"claim {claim.key}, request {name}: asks for all "
                                          f"devices, but resource pool {pool.pool_id} is currently "
                                          "invalid")
                for s in pool.slices:
                    for device in s.devices:
                        if self._selectable(key, rd, s, device) and self._capacity_fits(rd, s, device):
                            rd.all_devices.append(((s.driver, s.pool_name, device.name), device, s, pool))
            rd.num_devices = len(rd.all_devices)
        else:
            raise AllocationError(f"claim {claim.key}, request {name}: unsupported count mode "
                                  f"{request.allocation_mode}")
        return rd

    # ---- the search --------------------------------------------------------------------------
    def _allocate_one(self, ci: int, ri: int, si: int, di: int, allocate_sub: bool) -> bool:
        if ci >= len(self.claims):
            return True
        claim = self.claims[ci]
        if ri >= len(claim.spec.requests):
            try:
                return self._allocate_one(ci + 1, 0, 0, 0, False)
            except _MaxSizeExceeded:
                return False
        rd = self.request_data[(ci, ri, si)]
        if not allocate_sub and rd.parent is not None:
            all_exceeded = True
            sub = 0
            while True:
                if (ci, ri, sub) not in self.request_data:
                    if all_exceeded:
                        raise _MaxSizeExceeded
                    return False
                try:
                    ok = self._allocate_one(ci, ri, sub, di, True)
                except _MaxSizeExceeded:
                    sub += 1
                    continue
                all_exceeded = False
                if ok:
                    self.selected_sub[(ci, ri)] = sub
                    return True
                sub += 1
        request = rd.request
        do_all = request.allocation_mode == ALLOCATION_MODE_ALL
        if do_all and not rd.all_devices:
            return False
        if di >= rd.num_devices:
            return self._allocate_one(ci, ri + 1, 0, 0, False)
        if len(self.result[ci]) + rd.num_devices - di > ALLOCATION_RESULTS_MAX_SIZE:
            raise _MaxSizeExceeded
        if do_all:
            did, device, s, dpool = rd.all_devices[di]
            undo = self._allocate_device(ci, ri, si, did, device, s, dpool, must=True)
            if undo is None:
                return False
            try:
                # upstream continues with subrequest index 0 here (deviceIndices without it)
                done = self._allocate_one(ci, ri, 0, di + 1, allocate_sub)
            except BaseException:
                undo()
                raise
            if not done:
                undo()
                return False
            return True
        key = (ci, ri, si)
        for pool in self.pools:
            if pool.is_incomplete or pool.is_invalid:
                continue
            for s in pool.slices:
                for device in s.devices:
                    did = (pool.driver, pool.pool, device.name)
                    if rd.admin_access:
                        if ci in self.allocating.get(did, ()):
                            continue
                    elif self._in_use(did):
                        continue
                    if not self._selectable(key, rd, s, device):
                        continue
                    if not self._capacity_fits(rd, s, device):
                        continue
                    undo = self._allocate_device(ci, ri, si, did, device, s, pool, must=False)
                    if undo is None:
                        continue
                    try:
                        done = self._allocate_one(ci, ri, si, di + 1, allocate_sub)
                    except BaseException:
                        undo()
                        raise
                    if done:
                        return True
                    undo()
        return False

    def _in_use(self, did: DeviceID) -> bool:
        return did in self.a.allocated_devices or bool(self.allocating.get(did))

    def _selectable(self, key: tuple[int, int, int], rd: _RequestData, s: ResourceSlice,
                    device: Device) -> bool:
        did = (s.driver, s.pool_name, device.name)
        mk = (did, *key)
        cached = self.matches.get(mk)
        if cached is not None:
            return cached
        ok = True
        if rd.cls is not None and not self._selectors_match(key[0], s, device, rd.cls, rd.cls.selectors):
            ok = False
        elif not self._selectors_match(key[0], s, device, None, rd.request.selectors):
            ok = False
        elif s.per_device_node_selection:
            try:
                ok = node_matches(self.node, device.node_name, device.all_nodes, device.node_selector)
            except NodeSelectorError as exc:
                raise AllocationError(str(exc)) from None
        self.matches[mk] = ok
        return ok

    def _selectors_match(self, ci: int, s: ResourceSlice, device: Device, cls: DeviceClass | None,
                         selectors: list) -> bool:
        for i, sel in enumerate(selectors):
            compiled = compile_selector(sel.cel)
            if compiled.error:
                raise AllocationError(f"{self._where(ci, cls)}: selector #{i}: CEL compile error: {compiled.error}")
            matches, err = self.a.cel.verdict(compiled, s.driver, device)
            if err is not None:
                raise AllocationError(f"{self._where(ci, cls)}: selector #{i}: CEL runtime error: {err}")
            if not matches:
                return False
        return True

    def _where(self, ci: int, cls: DeviceClass | None) -> str:
        return f"class {cls.name}" if cls is not None else f"claim {self.claims[ci].key}"

    def _allocate_device(self, ci: int, ri: int, si: int, did: DeviceID, device: Device,
                         s: ResourceSlice, pool: Pool, *, must: bool) -> Callable[[], None] | None:
        claim = self.claims[ci]
        rd = self.request_data[(ci, ri, si)]
        features = self.a.features
        multiple = features.consumable_capacity and device.allow_multiple_allocations is True
        if rd.admin_access:
            if not multiple and ci in self.allocating.get(did, ()):
                return None
        elif self._in_use(did):
            return None
        # A shared device already in use has had its counters taken by its first share.
        skip_counters = multiple and (did in self.a.aggregated_capacity or did in self.allocating_capacity)
        counters = features.partitionable_devices and bool(device.consumes_counters) and not skip_counters
        if counters and not self._take_counters(pool, device):
            return None
        if features.device_taints and _taint_prevents_allocation(device, rd.request.tolerations):
            return None
        if rd.parent is None:
            base, sub = rd.request.name, ""
        else:
            base, sub = rd.parent, rd.request.name
        constraints = self.constraints[ci]
        for i, c in enumerate(constraints):
            if not c.add(base, sub, device, did):
                if must:
                    raise AllocationError(f"claim {claim.key}, request {rd.request.name}: cannot add "
                                          f"device {device_id_string(did)} because a claim "
                                          "constraint would not be satisfied")
                for e in range(i):
                    constraints[e].remove(base, sub, device, did)
                return None
        allocating = self.allocating.setdefault(did, set())
        if not multiple:
            allocating.add(ci)
        results = self.result[ci]
        previous = len(results)
        consumed: dict[str, Fraction] = {}
        share_id = None
        if multiple:
            consumed = _consumed_capacity(rd.request.capacity_requests, device)
            share_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{claim.uid}/{rd.request_name()}/"
                                                          f"{device_id_string(did)}/{previous}"))
            taken = self.allocating_capacity.setdefault(did, {})
            for name, value in consumed.items():
                taken[name] = taken.get(name, 0) + value
        results.append(_DeviceResult(request=rd.request.name, parent=rd.parent or "", id=did,
                                     slice=s, admin_access=True if rd.admin_access else None,
                                     tolerations=list(rd.request.tolerations) if features.device_taints else [],
                                     device=device, share_id=share_id, consumed_capacity=consumed))

        def undo() -> None:
            for c in constraints:
                c.remove(base, sub, device, did)
            allocating.discard(ci)
            if multiple:
                taken = self.allocating_capacity.get(did, {})
                for name, value in consumed.items():
                    taken[name] = taken.get(name, 0) - value
                if not any(taken.values()):
                    self.allocating_capacity.pop(did, None)
            elif counters:
                self._give_back_counters(pool, device)
            del results[previous:]
        return undo

    # ---- DRAConsumableCapacity -------------------------------------------------------------------
    def _capacity_fits(self, rd: _RequestData, s: ResourceSlice, device: Device) -> bool:
        """CmpRequestOverCapacity (only with the gate): every capacity of the device still holds
        this request's share, within its request policy. A request naming a capacity the device
        does not have never fits."""
        if not self.a.features.consumable_capacity:
            return True
        requests = rd.request.capacity_requests
        if any(name not in device.capacity for name in requests):
            return False
        did = (s.driver, s.pool_name, device.name)
        allocated = self.a.aggregated_capacity.get(did, {})
        allocating = self.allocating_capacity.get(did, {})
        for name, value in device.capacity.items():
            policy = device.request_policies.get(name)
            share = _share(requests.get(name), value, policy)
            if _violates_policy(share, policy):
                return False
            if allocated.get(name, 0) + share + allocating.get(name, 0) > value:
                return False
        return True

    # ---- DRAPartitionableDevices -----------------------------------------------------------------
    def _take_counters(self, pool: Pool, device: Device) -> bool:
        """checkAvailableCounters: take the device's counters; False (and nothing taken) when a
        counter of the pool would be overdrawn."""
        key = pool.pool
        available = self.available_counters.get(key)
        if available is None:
            available = {name: dict(cs.counters) for name, cs in pool.counter_sets.items()}
            allocated = self.a.allocated_devices
            for s in (*pool.slices, *pool.slices_not_targeting):
                for d in s.devices:
                    if (s.driver, s.pool_name, d.name) not in allocated:
                        continue
                    for use in d.consumes_counters:
                        left = available.get(use.counter_set)
                        if left is None:
                            continue
                        for name, value in use.counters.items():
                            if name in left:
                                left[name] -= value  # may go negative: nothing left
            self.available_counters[key] = available
        consumed = self.consumed_counters.setdefault(key, {})
        for use in device.consumes_counters:
            taken = consumed.setdefault(use.counter_set, {})
            for name, value in use.counters.items():
                taken[name] = taken.get(name, 0) + value
        for set_name, left in available.items():
            taken = consumed.get(set_name, {})
            for name, value in left.items():
                if value < taken.get(name, 0):
                    self._give_back_counters(pool, device)
                    return False
        return True

    def _give_back_counters(self, pool: Pool, device: Device) -> None:
        consumed = self.consumed_counters.get(pool.pool, {})
        for use in device.consumes_counters:
            taken = consumed.setdefault(use.counter_set, {})
            for name, value in use.counters.items():
                taken[name] = taken.get(name, 0) - value

    # ---- the answer ----------------------------------------------------------------------------
    def _result(self, ci: int, claim: ResourceClaim) -> AllocationResult:
        devices = self.result[ci]
        out = AllocationResult(results=[
            DeviceRequestAllocationResult(request=d.request_name(), driver=d.id[0], pool=d.id[1],
                                          device=d.id[2], admin_access=d.admin_access,
                                          tolerations=d.tolerations, share_id=d.share_id,
                                          consumed_capacity=dict(d.consumed_capacity))
            for d in devices])
        # Class configuration first (once per class, naming every request that used it), then
        # the claim's own, for the requests (or chosen subrequests) it names.
        class_configs: dict[str, tuple[int, int]] = {}
        for ri in range(len(claim.spec.requests)):
            rd = self.request_data[(ci, ri, 0)]
            if rd.parent is not None:
                rd = self.request_data[(ci, ri, self.selected_sub.get((ci, ri), 0))]
            if rd.cls is None:
                continue
            span = class_configs.get(rd.cls.name)
            if span is not None:
                for k in range(*span):
                    out.config[k]["requests"].append(rd.request_name())
                continue
            start = len(out.config)
            for cfg in rd.cls.config:
                out.config.append({"source": "FromClass", "requests": [rd.request_name()], **cfg})
            class_configs[rd.cls.name] = (start, len(out.config))
        for cfg in claim.spec.config:
            reqs = cfg.get("requests") or []
            body = {k: v for k, v in cfg.items() if k != "requests"}
            if not reqs:
                out.config.append({"source": "FromClaim", "requests": [], **body})
                continue
            for ri, request in enumerate(claim.spec.requests):
                if request.name in reqs:
                    out.config.append({"source": "FromClaim", "requests": list(reqs), **body})
                    continue
                if not request.first_available:
                    continue
                chosen = request.first_available[self.selected_sub.get((ci, ri), 0)]
                if f"{request.name}/{chosen.name}" in reqs:
                    out.config.append({"source": "FromClaim", "requests": list(reqs), **body})
        out.node_selector = _node_selector(devices)
        return out


def _ceil(q: Fraction) -> int:
    """resource.Quantity.Value(): the integer value, rounded up."""
    return math.ceil(q)


def _share(requested: Fraction | None, value: Fraction, policy: CapacityRequestPolicy | None) -> Fraction:
    """calculateConsumedCapacity: the amount one share takes of a capacity."""
    if requested is None:
        if policy is not None and policy.default is not None:
            return policy.default
        return value
    if policy is None:
        return requested
    if policy.range_min is not None:
        if requested < policy.range_min:
            return policy.range_min
        if policy.range_step is None:
            return requested
        step, low = _ceil(policy.range_step), _ceil(policy.range_min)
        n, mod = divmod(_ceil(requested) - low, step)
        return Fraction(low + step * (n + (1 if mod else 0)))
    if policy.valid_values:
        for v in policy.valid_values:
            if requested <= v:
                return v
    return requested


def _violates_policy(share: Fraction, policy: CapacityRequestPolicy | None) -> bool:
    if policy is None:
        return False
    if policy.default is not None and share == policy.default:
        return False
    if policy.range_min is not None:
        if policy.range_max is not None and share > policy.range_max:
            return True
        if policy.range_step is not None:
            added = _ceil(share) - _ceil(policy.range_min)
            return abs(added) % _ceil(policy.range_step) != 0
        return False
    if policy.valid_values:
        return share not in policy.valid_values
    return False


def _consumed_capacity(requests: dict[str, Fraction], device: Device) -> dict[str, Fraction]:
    """GetConsumedCapacityFromRequest: every capacity of the device, as one share takes it."""
    return {name: _share(requests.get(name), value, device.request_policies.get(name))
            for name, value in device.capacity.items()}


def _taint_prevents_allocation(device: Device, tolerations: list[DeviceToleration]) -> bool:
    """Only NoSchedule and NoExecute keep a device from being allocated; None and unknown effects
    are informational."""
    for taint in device.taints:
        if taint.effect in ("NoSchedule", "NoExecute") and \
                not any(t.tolerates(taint) for t in tolerations):
            return True
    return False


def _node_selector(devices: list[_DeviceResult]) -> NodeSelector | None:
    """createNodeSelector: where the allocated devices are available."""
    term = NodeSelectorTerm()
    for d in devices:
        s = d.slice
        # perDeviceNodeSelection: the device says where it is available
        where = d.device if s.per_device_node_selection else s
        if where.node_name:
            return NodeSelector(node_selector_terms=[NodeSelectorTerm(match_fields=[
                NodeSelectorRequirement("metadata.name", "In", (where.node_name,))])])
        if where.node_selector is not None:
            terms = where.node_selector.node_selector_terms
            if len(terms) == 1:
                _add_new(terms[0].match_fields, term.match_fields)
                _add_new(terms[0].match_expressions, term.match_expressions)
            elif len(terms) > 1:
                raise AllocationError(f"unsupported ResourceSlice.NodeSelector with {len(terms)} terms")
    if term.match_fields or term.match_expressions:
        return NodeSelector(node_selector_terms=[term])
    return None


def _add_new(src: list[NodeSelectorRequirement], dst: list[NodeSelectorRequirement]) -> None:
    for req in src:
        if not any(e.key == req.key and e.operator == req.operator and set(e.values) == set(req.values)
                   for e in dst):
            dst.append(req)
