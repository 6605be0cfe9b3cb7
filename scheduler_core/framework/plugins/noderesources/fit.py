"""NodeResourcesFit: a node is feasible only if its allocatable minus what its pods request covers
the pod's request (cpu, memory, ephemeral-storage, extended resources) and it has room for one
more pod; it also scores feasible nodes with the configured strategy (LeastAllocated by default).

The pod's request is the effective one: max(sum of containers + sidecars, each init container on
top of the sidecars started before it) plus the pod overhead. A shortfall on a node whose *whole*
allocatable is smaller than the request cannot be fixed by preemption, so the status turns
UnschedulableAndUnresolvable ("Preemption is not helpful for scheduling" later on).

DRAExtendedResource (alpha, off by default): an extended resource that a DeviceClass serves
(`spec.extendedResourceName`, or the implicit `deviceclass.resource.kubernetes.io/<class>`) is
not checked on a node whose allocatable lacks it: DynamicResources allocates devices for it
there. A node that advertises the resource is checked as always (a device plugin serves it).
With the gate on, pods are not signed for batching, as upstream.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import compress
from typing import Any

from scheduler_core.api.resource_types import RESOURCE_DEVICE_CLASS_PREFIX
from scheduler_core.api.types import (
    RESOURCE_CPU,
    RESOURCE_EPHEMERAL_STORAGE,
    RESOURCE_MEMORY,
    RESOURCE_PODS,
    Node,
    Pod,
)
from scheduler_core.backend.cache.kept_columns import take_column
from scheduler_core.backend.cache.node_arrays import NODE_ROWS_KEY, NodeRows, RowRuns, RowValues, take_kept
from scheduler_core.dra.extended_resource_cache import DeviceClassResolver, is_dra_extended_resource_name
from scheduler_core.featuregate.features import gates_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import (
    ClusterEventWithHint,
    EnqueueExtensions,
    FilterPlugin,
    PluginArgsError,
    PreFilterPlugin,
    PreScorePlugin,
    ScorePlugin,
)
from scheduler_core.framework.plugins import names
from scheduler_core.framework.plugins.helper import signing
from scheduler_core.framework.plugins.helper.nodeaffinity import is_valid_label_key
from scheduler_core.framework.plugins.helper.podutil import same_pod
from scheduler_core.framework.plugins.helper.signing import Unsignable
from scheduler_core.framework.plugins.noderesources.least_allocated import least_cpu_mem_batch, least_resource_scorer
from scheduler_core.framework.plugins.noderesources.most_allocated import most_cpu_mem_batch, most_resource_scorer
from scheduler_core.framework.plugins.noderesources.requested_to_capacity_ratio import (
    MAX_CUSTOM_PRIORITY_SCORE,
    requested_to_capacity_ratio_scorer,
)
from scheduler_core.framework.plugins.noderesources.resource_allocation import (
    DEFAULT_RESOURCE_SPEC,
    ResourceAllocationScorer,
    ResourceSpec,
)
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import (
    ActionType,
    ClusterEvent,
    EventResource,
    NodeInfo,
    PreFilterResult,
    QueueingHint,
    Resource,
    is_extended_resource_name,
    is_scalar_resource_name,
    milli_value,
    pod_requests,
    pod_requests_derived,
    value,
)

NAME = names.NODE_RESOURCES_FIT
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME
# From this many rejected nodes in one batch, nodes rejected for the same reasons share a Status.
SHARED_VERDICTS_MIN = 64

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
SUPPORTED_SCORING_STRATEGY_TYPES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)


# --- the pod's request -------------------------------------------------------------------------

def compute_pod_resource_request(pod: Pod) -> Resource:
    """Resource.SetMaxResource(PodRequests(pod)) on an empty Resource: cpu as MilliValue, the rest
    as Value; only cpu, memory, ephemeral-storage and scalar resources are kept (not `pods`).
    Computed once per pod (pod_requests_derived); each caller gets its own copy."""
    return pod_requests_derived(pod, "noderesources/fit-request", _compute_pod_resource_request).clone()


def _compute_pod_resource_request(pod: Pod) -> Resource:
    r = Resource()
    for name, q in pod_requests(pod).items():
        if name == RESOURCE_MEMORY:
            r.memory = max(r.memory, value(q))
        elif name == RESOURCE_CPU:
            r.milli_cpu = max(r.milli_cpu, milli_value(q))
        elif name == RESOURCE_EPHEMERAL_STORAGE:
            r.ephemeral_storage = max(r.ephemeral_storage, value(q))
        elif is_scalar_resource_name(name):
            r.scalar_resources[name] = max(r.scalar_resources.get(name, 0), value(q))
    return r


class _PreFilterState:
    """The pod's request, plus the scalar resources Filter must check (non-zero, not ignored),
    and those of them a DeviceClass serves (DRAExtendedResource; empty without the gate)."""

    __slots__ = ("resource", "milli_cpu", "memory", "ephemeral_storage", "scalars", "delegated")

    def __init__(self, resource: Resource, scalars: tuple[tuple[str, int], ...],
                 delegated: frozenset[str] = frozenset()) -> None:
        self.resource = resource
        self.milli_cpu = resource.milli_cpu
        self.memory = resource.memory
        self.ephemeral_storage = resource.ephemeral_storage
        self.scalars = scalars
        self.delegated = delegated

    def clone(self) -> _PreFilterState:
        return self


class _PreScoreState:
    __slots__ = ("pod_requests", "dra")

    def __init__(self, pod_requests_list: list[int], dra: Any = None) -> None:
        self.pod_requests = pod_requests_list
        self.dra = dra  # DRAExtendedResource scoring state, or None

    def clone(self) -> _PreScoreState:
        return self


@dataclass
class InsufficientResource:
    resource_name: str
    reason: str
    requested: int
    used: int
    capacity: int
    unresolvable: bool = False


def _scalars_to_check(resource: Resource, ignored: frozenset[str],
                      ignored_groups: frozenset[str]) -> tuple[tuple[str, int], ...]:
    out = []
    for name in sorted(resource.scalar_resources):
        q = resource.scalar_resources[name]
        if q == 0:
            continue
        if is_extended_resource_name(name):
            prefix = name.split("/")[0] if ignored_groups else ""
            if name in ignored or prefix in ignored_groups:
                continue
        out.append((name, q))
    return tuple(out)


def fits_request(pod_request: Resource, node_info: NodeInfo, ignored_extended_resources: frozenset[str] = frozenset(),
                 ignored_resource_groups: frozenset[str] = frozenset(),
                 delegated: frozenset[str] = frozenset()) -> list[InsufficientResource]:
    """Every resource the node lacks for the pod (empty when it fits). `delegated`: the
    resources DRA serves where the node does not advertise them (DRAExtendedResource)."""
    return _insufficient(
        _PreFilterState(pod_request, _scalars_to_check(pod_request, ignored_extended_resources,
                                                       ignored_resource_groups), delegated),
        node_info,
    ) or []


def fits(pod: Pod, node_info: NodeInfo, delegated: frozenset[str] = frozenset()) -> list[InsufficientResource]:
    """upstream noderesources.Fits (no ignored resources)."""
    return fits_request(compute_pod_resource_request(pod), node_info, delegated=delegated)


def _insufficient(s: _PreFilterState, node_info: NodeInfo) -> list[InsufficientResource] | None:
    """fitsRequest, returning None (no allocation) in the common case that everything fits."""
    out: list[InsufficientResource] | None = None
    alloc = node_info.allocatable
    req = node_info.requested
    n_pods = len(node_info.pods)
    if n_pods + 1 > alloc.allowed_pod_number:
        out = [InsufficientResource(RESOURCE_PODS, "Too many pods", 1, n_pods, alloc.allowed_pod_number)]
    cpu = s.milli_cpu
    if cpu > 0 and cpu > alloc.milli_cpu - req.milli_cpu:
        ir = InsufficientResource(RESOURCE_CPU, "Insufficient cpu", cpu, req.milli_cpu, alloc.milli_cpu,
                                  cpu > alloc.milli_cpu)
        out = [ir] if out is None else out + [ir]
    mem = s.memory
    if mem > 0 and mem > alloc.memory - req.memory:
        ir = InsufficientResource(RESOURCE_MEMORY, "Insufficient memory", mem, req.memory, alloc.memory,
                                  mem > alloc.memory)
        out = [ir] if out is None else out + [ir]
    eph = s.ephemeral_storage
    if eph > 0 and eph > alloc.ephemeral_storage - req.ephemeral_storage:
        ir = InsufficientResource(RESOURCE_EPHEMERAL_STORAGE, "Insufficient ephemeral-storage", eph,
                                  req.ephemeral_storage, alloc.ephemeral_storage, eph > alloc.ephemeral_storage)
        out = [ir] if out is None else out + [ir]
    if s.scalars:
        a_sc = alloc.scalar_resources
        r_sc = req.scalar_resources
        for name, q in s.scalars:
            cap = a_sc.get(name, 0)
            used = r_sc.get(name, 0)
            if q > cap - used:
                if cap <= 0 and name in s.delegated:
                    continue  # shouldDelegateResourceToDRA: DynamicResources allocates it here
                ir = InsufficientResource(name, f"Insufficient {name}", q, used, cap, q > cap)
                out = [ir] if out is None else out + [ir]
    return out


# --- args --------------------------------------------------------------------------------------

def _int_field(v: Any, path: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise PluginArgsError(f"{NAME}: {path}: Invalid value: {v!r}: must be an integer")
    return v


def _parse_resources(items: Any, path: str) -> list[ResourceSpec]:
    if items is None:
        return []
    if not isinstance(items, list):
        raise PluginArgsError(f"{NAME}: {path}: Invalid value: must be a list")
    out = []
    for i, it in enumerate(items):
        if not isinstance(it, dict):
            raise PluginArgsError(f"{NAME}: {path}[{i}]: Invalid value: must be a mapping")
        out.append(ResourceSpec(str(it.get("name", "")), _int_field(it.get("weight", 0), f"{path}[{i}].weight")))
    return out


def validate_function_shape(shape: list[tuple[int, int]], path: str) -> list[str]:
    """validateFunctionShape: non-empty, strictly increasing utilisation in [0, 100], score in [0, 10]."""
    if not shape:
        return [f"{path}: Required value: at least one point must be specified"]
    errs = []
    for i in range(1, len(shape)):
        if shape[i - 1][0] >= shape[i][0]:
            errs.append(f"{path}[{i}].utilization: Invalid value: {shape[i][0]}: values must be sorted in "
                        "increasing order")
            break
    for i, (u, sc) in enumerate(shape):
        if u < 0 or u > 100:
            errs.append(f"{path}[{i}].utilization: Invalid value: {u}: not in valid range [0, 100]")
        if sc < 0 or sc > MAX_CUSTOM_PRIORITY_SCORE:
            errs.append(f"{path}[{i}].score: Invalid value: {sc}: not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]")
    return errs


def _raise(errs: list[str]) -> None:
    if errs:
        msg = errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"
        raise PluginArgsError(f"{NAME}: {msg}")


class FitArgs:
    """NodeResourcesFitArgs after v1 defaulting and validation."""

    def __init__(self, args: dict[str, Any] | None) -> None:
        args = args or {}
        self.ignored_resources: list[str] = [str(x) for x in args.get("ignoredResources") or []]
        self.ignored_resource_groups: list[str] = [str(x) for x in args.get("ignoredResourceGroups") or []]
        ss = args.get("scoringStrategy")
        self.shape: list[tuple[int, int]] | None = None
        if ss is None:
            self.type = LEAST_ALLOCATED
            self.resources = list(DEFAULT_RESOURCE_SPEC)
        else:
            if not isinstance(ss, dict):
                raise PluginArgsError(f"{NAME}: scoringStrategy: Invalid value: must be a mapping")
            self.type = str(ss.get("type") or "")
            self.resources = _parse_resources(ss.get("resources"), "scoringStrategy.resources")
            if not self.resources:
                self.resources = list(DEFAULT_RESOURCE_SPEC)
            self.resources = [r if r.weight != 0 else ResourceSpec(r.name, 1) for r in self.resources]
            rtcr = ss.get("requestedToCapacityRatio")
            if rtcr is not None:
                pts = (rtcr or {}).get("shape") or []
                self.shape = [
                    (_int_field(p.get("utilization", 0), f"scoringStrategy.shape[{i}].utilization"),
                     _int_field(p.get("score", 0), f"scoringStrategy.shape[{i}].score"))
                    for i, p in enumerate(pts)
                ]
        self._validate(ss is not None)

    def _validate(self, has_strategy: bool) -> None:
        errs: list[str] = []
        for i, res in enumerate(self.ignored_resources):
            if not is_valid_label_key(res):
                errs.append(f'ignoredResources[{i}]: Invalid value: "{res}": name part must consist of '
                            "alphanumeric characters, '-', '_' or '.', and must start and end with an "
                            "alphanumeric character")
        for i, group in enumerate(self.ignored_resource_groups):
            if "/" in group:
                errs.append(f'ignoredResourceGroups[{i}]: Invalid value: "{group}": resource group name '
                            "can't contain '/'")
            if not is_valid_label_key(group):
                errs.append(f'ignoredResourceGroups[{i}]: Invalid value: "{group}": name part must consist '
                            "of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                            "alphanumeric character")
        if has_strategy:
            if self.type not in SUPPORTED_SCORING_STRATEGY_TYPES:
                errs.append(f'scoringStrategy.type: Unsupported value: "{self.type}": supported values: '
                            '"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"')
            for i, r in enumerate(self.resources):
                if r.weight <= 0 or r.weight > 100:
                    errs.append(f"scoringStrategy.resources[{i}].weight: Invalid value: {r.weight}: resource "
                                f"weight of {r.name} not in valid range (0, 100]")
            if self.shape is not None:
                errs.extend(validate_function_shape(self.shape, "scoringStrategy.shape"))
        _raise(errs)
        if self.type == REQUESTED_TO_CAPACITY_RATIO and self.shape is None:
            # Upstream dereferences the missing requestedToCapacityRatio and crashes; refuse instead.
            raise PluginArgsError(f"{NAME}: scoringStrategy.requestedToCapacityRatio: Required value: "
                                  "a shape is needed for the RequestedToCapacityRatio strategy")


def build_scorer(a: FitArgs) -> ResourceAllocationScorer:
    if a.type == LEAST_ALLOCATED:
        sc = ResourceAllocationScorer(LEAST_ALLOCATED, least_resource_scorer(a.resources), a.resources)
        if len(a.resources) == 2:
            sc.fast_cpu_mem = least_cpu_mem_batch(a.resources)
            sc.vector_cpu_mem = _least_vector_loader(a.resources)
        return sc
    if a.type == MOST_ALLOCATED:
        sc = ResourceAllocationScorer(MOST_ALLOCATED, most_resource_scorer(a.resources), a.resources)
        if len(a.resources) == 2:
            sc.fast_cpu_mem = most_cpu_mem_batch(a.resources)
        return sc
    return ResourceAllocationScorer(
        REQUESTED_TO_CAPACITY_RATIO, requested_to_capacity_ratio_scorer(a.resources, a.shape or []), a.resources
    )


def _quick_test(nodes: list[NodeInfo], cpu: int, mem: int, eph: int) -> list[bool]:
    """Per node, whether Filter's quick test (_insufficient's conditions without the scalar
    resources) fails, so the node must go through the per-node filter: as filter_nodes' loop."""
    out = []
    for ni in nodes:
        a = ni.allocatable
        r = ni.requested
        out.append(len(ni.pods) >= a.allowed_pod_number
                   or (cpu > 0 and cpu > a.milli_cpu - r.milli_cpu)
                   or (mem > 0 and mem > a.memory - r.memory)
                   or (eph > 0 and eph > a.ephemeral_storage - r.ephemeral_storage))
    return out


# --- the plugin --------------------------------------------------------------------------------

class Fit(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions):
    name = NAME
    filter_reads_only = True  # Filter keeps nothing per node

    def __init__(self, args: dict[str, Any] | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        a = FitArgs(args)
        self.fit_args = a
        self.ignored_resources = frozenset(a.ignored_resources)
        self.ignored_resource_groups = frozenset(a.ignored_resource_groups)
        self.scorer = build_scorer(a)
        self.scorer.enable_dra_extended_resource(handle)
        self.resources = self.scorer.resources
        gates = gates_of(handle)
        # Before InsufficientResource.Unresolvable (v1.30), every shortfall was Unschedulable.
        self.unresolvable_enabled = gates.insufficient_resource_unresolvable
        # DRAExtendedResource: extended resources a DeviceClass serves are left to DRA where
        # the node does not advertise them (None: the gate is off).
        self.device_classes: DeviceClassResolver | None = (
            DeviceClassResolver() if gates.overrides and gates.enabled("DRAExtendedResource") else None)
        # The quick test's answer per row of a small snapshot, per pod request (cpu, memory,
        # ephemeral storage), for the fast path's RowRuns (RowValues).
        self._suspects: dict[tuple[int, int, int], RowValues] = {}

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        r = compute_pod_resource_request(pod)
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(
            r, _scalars_to_check(r, self.ignored_resources, self.ignored_resource_groups),
            self._delegated(r)))
        return None, None

    def _resolver(self) -> DeviceClassResolver | None:
        """The DeviceClass resolver, following the cluster's classes (None: gate off)."""
        if self.device_classes is None:
            return None
        cluster = getattr(self.handle, "cluster", None)
        return self.device_classes.refresh(cluster.device_classes if cluster is not None else {})

    def _delegated(self, r: Resource) -> frozenset[str]:
        """The pod's scalar resources a DeviceClass serves (empty with the gate off)."""
        resolver = self._resolver()
        if resolver is None or not r.scalar_resources:
            return frozenset()
        return frozenset(n for n in r.scalar_resources
                         if is_dra_extended_resource_name(n) and resolver.get_device_class(n) is not None)

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return Status.error(f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        insufficient = _insufficient(s, node_info)
        if insufficient is None:
            return None
        code = Code.UNSCHEDULABLE
        if self.unresolvable_enabled:
            for ir in insufficient:
                if ir.unresolvable:
                    code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        return Status(code, *[ir.reason for ir in insufficient])

    def filter_nodes(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> list[Status | None]:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None or s.scalars:
            return super().filter_nodes(state, pod, nodes)
        # The quick test below is _insufficient's conditions without the scalar resources.
        cpu, mem, eph = s.milli_cpu, s.memory, s.ephemeral_storage
        out: list[Status | None] = [None] * len(nodes)
        f = self.filter
        rows = state.get(NODE_ROWS_KEY)
        if type(rows) is RowRuns and rows.nodes is nodes:
            flags = take_kept(self._suspects, (cpu, mem, eph), rows, lambda todo: _quick_test(todo, cpu, mem, eph))
            for k in compress(range(len(flags)), flags):
                out[k] = f(state, pod, nodes[k])
            return out
        if rows is not None and rows.nodes is nodes:
            from scheduler_core.framework.plugins.noderesources.vector import fits_vector

            if fits_vector(cpu, mem, eph):
                where = self._suspects_of(rows, cpu, mem, eph)
                if len(where) >= SHARED_VERDICTS_MIN and self._shared_verdicts(
                        state, pod, nodes, rows, where, (cpu, mem, eph), out):
                    return out
                suspects = where.tolist()
                for k in suspects:
                    out[k] = f(state, pod, nodes[k])
                return out
        for k, ni in enumerate(nodes):
            a = ni.allocatable
            r = ni.requested
            if (len(ni.pods) >= a.allowed_pod_number
                    or (cpu > 0 and cpu > a.milli_cpu - r.milli_cpu)
                    or (mem > 0 and mem > a.memory - r.memory)
                    or (eph > 0 and eph > a.ephemeral_storage - r.ephemeral_storage)):
                out[k] = f(state, pod, ni)
        return out

    def _shared_verdicts(self, state: CycleState, pod: Pod, nodes: list[NodeInfo], rows: NodeRows,
                         suspects: Any, requests: tuple[int, int, int], out: list[Status | None]) -> bool:
        """Fill `out` at `suspects` (positions, an index array) with one Status per distinct
        verdict instead of one per node: a pod that fits nowhere (too big, or a full cluster)
        is rejected by every node, and the verdict depends only on which tests fail
        (vector.fit_verdict_keys, a number below 128), so the per-node filter runs on one node
        of each kind and the others share its Status (the framework takes a shared Status as
        the same verdict on each node). False, with `out` untouched, if some node of a kind
        passed after all (then the caller goes node by node)."""
        import numpy as np

        from scheduler_core.framework.plugins.noderesources.vector import fit_verdict_keys

        idx = rows.idx
        at = idx[suspects] if type(idx) is not slice else suspects + idx.start
        keys = fit_verdict_keys(rows.arrays, at, *requests)
        kinds: list[Status | None] = [None] * 128
        found = np.flatnonzero(np.bincount(keys, minlength=128)).tolist()
        for key in found:
            first = int(suspects[int(np.argmax(keys == key))])
            st = self.filter(state, pod, nodes[first])
            if st is None:
                return False
            kinds[key] = st
        if len(found) == 1 and len(suspects) == len(nodes):
            out[:] = [kinds[found[0]]] * len(nodes)  # every node rejected alike: the usual case
            return True
        for k, key in zip(suspects.tolist(), keys.tolist(), strict=True):
            out[k] = kinds[key]
        return True

    def _suspects_of(self, rows: NodeRows, cpu: int, mem: int, eph: int) -> Any:
        """The positions (in rows' order, an index array) of the nodes the quick test cannot
        pass, from the mask kept for this request over all rows (kept_columns: the vector test
        computes it, _quick_test brings changed rows up to date), or tested for these rows
        alone without one."""
        import numpy as np

        from scheduler_core.framework.plugins.noderesources.vector import fit_suspect_mask

        arrays = rows.arrays
        mask = take_column(arrays, (self, cpu, mem, eph), rows.idx,
                           lambda: fit_suspect_mask(arrays, slice(None), cpu, mem, eph),
                           lambda nodes: _quick_test(nodes, cpu, mem, eph))
        if mask is None:
            mask = fit_suspect_mask(arrays, rows.idx, cpu, mem, eph)
        return np.flatnonzero(mask)

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(self.scorer.calculate_pod_resource_request_list(pod),
                                                        self._dra_state()))
        return None

    def _dra_state(self) -> Any:
        """DRAExtendedResource's scoring state for this cycle (None without the gate)."""
        return self.scorer.dra_state(getattr(self.handle, "cluster", None))

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return self.scorer.score(node_info, self.scorer.calculate_pod_resource_request_list(pod),
                                     self._dra_state())
        return self.scorer.score(node_info, s.pod_requests, s.dra)

    def score_nodes(self, state: CycleState, pod: Pod,
                    nodes: list[NodeInfo]) -> tuple[list[int] | None, Status | None]:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return self.scorer.score_nodes(nodes, self.scorer.calculate_pod_resource_request_list(pod),
                                           state.get(NODE_ROWS_KEY), self._dra_state())
        return self.scorer.score_nodes(nodes, s.pod_requests, state.get(NODE_ROWS_KEY), s.dra)

    def score_extensions(self) -> None:
        return None

    # --- queueing hints ------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        events = [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.DELETE | ActionType.UPDATE_POD_SCALE_DOWN),
                self.is_schedulable_after_pod_event,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE),
                self.is_schedulable_after_node_change,
            ),
        ]
        if self.device_classes is not None:
            # A pod may wait for a class that serves its extended resource.
            events.append(ClusterEventWithHint(
                ClusterEvent(EventResource.DEVICE_CLASS, ActionType.ADD | ActionType.UPDATE),
                self.is_schedulable_after_device_class_event))
        return events

    @staticmethod
    def is_schedulable_after_device_class_event(pod: Pod, old: Any, new: Any) -> int:
        """Queue when an added class's implicit name, or a new or changed explicit name, is a
        resource the pod requests."""
        reqs = pod_requests(pod)
        if old is not None:
            if old.extended_resource_name == new.extended_resource_name:
                return QueueingHint.SKIP
        elif RESOURCE_DEVICE_CLASS_PREFIX + new.name in reqs:
            return QueueingHint.QUEUE
        if new.extended_resource_name is not None and new.extended_resource_name in reqs:
            return QueueingHint.QUEUE
        return QueueingHint.SKIP

    def is_schedulable_after_pod_event(self, pod: Pod, old: Pod | None, new: Pod | None) -> int:
        if new is None:
            if old is None or (not old.node_name and not old.nominated_node_name):
                return QueueingHint.SKIP
            return QueueingHint.QUEUE
        if old is None:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE if self._is_schedulable_after_pod_scale_down(pod, old, new) else QueueingHint.SKIP

    @staticmethod
    def _is_schedulable_after_pod_scale_down(target: Pod, original: Pod, modified: Pod) -> bool:
        if same_pod(modified, target):
            return True
        if not modified.node_name:
            return False
        orig = compute_pod_resource_request(original)
        mod = compute_pod_resource_request(modified)
        for name, q in pod_requests(target).items():
            if q == 0:
                continue
            if name == RESOURCE_CPU:
                if orig.milli_cpu > mod.milli_cpu:
                    return True
            elif name == RESOURCE_MEMORY:
                if orig.memory > mod.memory:
                    return True
            elif name == RESOURCE_EPHEMERAL_STORAGE:
                if orig.ephemeral_storage > mod.ephemeral_storage:
                    return True
            elif is_scalar_resource_name(name):
                if orig.scalar_resources.get(name, 0) > mod.scalar_resources.get(name, 0):
                    return True
        return False

    def is_schedulable_after_node_change(self, pod: Pod, old: Node | None, new: Node | None) -> int:
        """Queue when a node that fits the pod (empty) is added, or an update raised a resource
        the pod requests (or the pod count)."""
        delegated = self._delegated(compute_pod_resource_request(pod)) if self.device_classes is not None \
            else frozenset()
        if new is None or fits(pod, NodeInfo(new), delegated):
            return QueueingHint.SKIP
        if old is None:
            return QueueingHint.QUEUE
        if not have_any_requested_resources_increased(pod, old, new, delegated):
            return QueueingHint.SKIP
        return QueueingHint.QUEUE

    def sign_pod(self, pod: Pod) -> dict[str, Any]:
        """This plugin's fragments of the pod's batching signature (upstream SignPod); none with
        DRAExtendedResource, whose node verdicts depend on devices, not only on the request."""
        if self.device_classes is not None:
            raise Unsignable("signature disabled when dra extended resources enabled")
        return {"resources": signing.resources(pod)}


def have_any_requested_resources_increased(pod: Pod, original: Node, modified: Node,
                                           delegated: frozenset[str] = frozenset()) -> bool:
    req = compute_pod_resource_request(pod)
    o = NodeInfo(original).allocatable
    m = NodeInfo(modified).allocatable
    if m.allowed_pod_number > o.allowed_pod_number:
        return True
    if req.milli_cpu == 0 and req.memory == 0 and req.ephemeral_storage == 0 and not req.scalar_resources:
        return False
    if ((req.milli_cpu > 0 and m.milli_cpu > o.milli_cpu)
            or (req.memory > 0 and m.memory > o.memory)
            or (req.ephemeral_storage > 0 and m.ephemeral_storage > o.ephemeral_storage)):
        return True
    for name, q in req.scalar_resources.items():
        if q == 0:
            continue
        if m.scalar_resources.get(name, 0) > o.scalar_resources.get(name, 0):
            return True
        if name in delegated and m.scalar_resources.get(name, 0) <= 0:
            return True  # shouldDelegateResourceToDRA on the modified node
    return False


def _least_vector_loader(resources: list) -> Any:
    """LeastAllocated's NumPy form, imported on first use (vector.py)."""

    def load() -> Any:
        from scheduler_core.framework.plugins.noderesources.vector import least_cpu_mem_vector

        return least_cpu_mem_vector(resources)

    return load
