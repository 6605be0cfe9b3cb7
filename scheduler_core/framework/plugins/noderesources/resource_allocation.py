"""The shared machinery of the resource scoring strategies (upstream resource_allocation.go).

A scorer gets, per configured resource, what the node would have requested with the pod on it
and what it can allocate, and turns those two vectors into a 0..100 score. Fit's strategies use
the *non-zero* requests for cpu and memory (a container without requests counts as 100m / 200Mi,
so empty pods still spread); BalancedAllocation uses the real requests (`use_requested`).
An extended/scalar resource the pod does not request, or the node does not have, is left out;
with DRAExtendedResource a node lacking one that a DeviceClass serves is scored on its devices
instead (dra_extended_scoring.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from scheduler_core.api.types import RESOURCE_CPU, RESOURCE_EPHEMERAL_STORAGE, RESOURCE_MEMORY, Pod
from scheduler_core.backend.cache.kept_columns import take_column
from scheduler_core.backend.cache.node_arrays import RowRuns, RowValues, take_kept
from scheduler_core.dra.extended_resource_cache import DeviceClassResolver
from scheduler_core.dra.structured.allocator import DeviceCelCache
from scheduler_core.featuregate.features import gates_of
from scheduler_core.framework.plugins.noderesources.dra_extended_scoring import (
    DRAPreScoreState,
    dra_pre_score_state,
)
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import (
    NON_ZERO_DEFAULTS,
    NodeInfo,
    is_scalar_resource_name,
    milli_value,
    pod_requests,
    pod_requests_derived,
    value,
)

_NON_MISSING = NON_ZERO_DEFAULTS  # the one constant, so pod_requests' memo shares its entries


@dataclass(frozen=True)
class ResourceSpec:
    """A resource a strategy scores, with its weight (args `resources: [{name, weight}]`)."""

    name: str
    weight: int = 1


DEFAULT_RESOURCE_SPEC: tuple[ResourceSpec, ...] = (ResourceSpec(RESOURCE_CPU, 1), ResourceSpec(RESOURCE_MEMORY, 1))

# scorer(requested, allocatable) -> score; both lists follow `resources` order.
ScorerFn = Callable[[list[int], list[int]], int]


def weighted_mean_scorer(resources: list[ResourceSpec] | tuple[ResourceSpec, ...],
                         resource_score: Callable[[int, int], int]) -> ScorerFn:
    """A node scorer: the weight-averaged `resource_score(requested, allocatable)` over the
    resources the node has (allocatable 0 leaves a resource out), as LeastAllocated and
    MostAllocated both compute it."""
    weights = [r.weight for r in resources]

    def scorer(requested: list[int], allocatable: list[int]) -> int:
        node_score = weight_sum = 0
        for req, alloc, w in zip(requested, allocatable, weights, strict=True):
            if alloc == 0:
                continue
            node_score += resource_score(req, alloc) * w
            weight_sum += w
        if weight_sum == 0:
            return 0
        return node_score // weight_sum

    return scorer

# Resource kinds, resolved once per strategy so Score does not compare strings per node.
_K_CPU, _K_MEM, _K_EPH, _K_SCALAR, _K_OTHER = range(5)


def _kind(name: str) -> int:
    if name == RESOURCE_CPU:
        return _K_CPU
    if name == RESOURCE_MEMORY:
        return _K_MEM
    if name == RESOURCE_EPHEMERAL_STORAGE:
        return _K_EPH
    if is_scalar_resource_name(name):
        return _K_SCALAR
    return _K_OTHER


class ResourceAllocationScorer:
    """Computes pod requests per resource and scores a node with a strategy function."""

    def __init__(self, name: str, scorer: ScorerFn, resources: list[ResourceSpec] | tuple[ResourceSpec, ...],
                 use_requested: bool = False) -> None:
        self.name = name
        self.scorer = scorer
        self.resources = list(resources)
        self.use_requested = use_requested
        self._kinds = [(_kind(r.name), r.name) for r in self.resources]
        self._cpu_mem = [k for k, _ in self._kinds] == [_K_CPU, _K_MEM]
        # Optional batch form of `scorer` for (cpu, memory): fn(nodes, pod cpu, pod memory) -> scores,
        # reading the same requests `score` reads; set by the strategies that have one.
        self.fast_cpu_mem: Callable[[list[NodeInfo], int, int], list[int]] | None = None
        # Optional NumPy form of the same for the fast path's node rows (vector.py): a loader
        # returning fn(arrays, rows, pod cpu, pod memory) -> scores (a NumPy array), called on
        # first use so NumPy is imported only by runs that score thousands of nodes.
        self.vector_cpu_mem: Callable[[], Callable[[Any, Any, int, int], Any]] | None = None
        self._vector: Callable[[Any, Any, int, int], Any] | None = None
        # The per-node form's scores per row of the snapshot, per pod request (cpu, memory), for
        # the fast path's RowRuns (small snapshots); see RowValues.
        self._rows: dict[tuple[int, int], RowValues] = {}
        self._requests_tag: tuple[str, bool, tuple[str, ...]] | None = None  # set on first use
        # DRAExtendedResource: the DeviceClass resolver (None: the gate is off) and the CEL
        # verdicts of class selectors, for extended resources backed by DRA.
        self.dra_resolver: DeviceClassResolver | None = None
        self._dra_cel: tuple[int, DeviceCelCache] | None = None

    def enable_dra_extended_resource(self, handle: Any) -> None:
        """Score extended resources backed by DRA when the run's DRAExtendedResource gate is on."""
        gates = gates_of(handle)
        if gates.overrides and gates.enabled("DRAExtendedResource"):
            self.dra_resolver = DeviceClassResolver()

    def dra_state(self, cluster: Any) -> DRAPreScoreState | None:
        """This cycle's DRA scoring state (None: gate off, or no scored resource backed by DRA)."""
        if self.dra_resolver is None or cluster is None:
            return None
        ident = id(cluster.resource_slices)
        if self._dra_cel is None or self._dra_cel[0] != ident:
            self._dra_cel = (ident, DeviceCelCache())
        return dra_pre_score_state(self.dra_resolver, cluster, self.resources, self._dra_cel[1])

    def calculate_pod_resource_request_list(self, pod: Pod) -> list[int]:
        """The pod's request per configured resource: cpu in millicores (MilliValue), everything
        else in whole units (Value); with the non-zero defaults unless `use_requested`. Computed
        once per pod and resource list (pod_requests_derived); each caller gets its own list."""
        tag = self._requests_tag
        if tag is None:
            tag = self._requests_tag = ("noderesources/score-requests", self.use_requested,
                                        tuple(r.name for r in self.resources))
        return list(pod_requests_derived(pod, tag, self._request_list))

    def _request_list(self, pod: Pod) -> list[int]:
        reqs = pod_requests(pod) if self.use_requested else pod_requests(pod, non_missing=_NON_MISSING)
        out = []
        for r in self.resources:
            q = reqs.get(r.name)
            if q is None:
                out.append(0)
            elif r.name == RESOURCE_CPU:
                out.append(milli_value(q))
            else:
                out.append(value(q))
        return out

    @staticmethod
    def is_best_effort_pod(pod_requests_list: list[int]) -> bool:
        return all(r == 0 for r in pod_requests_list)

    def score(self, node_info: NodeInfo, pod_requests_list: list[int],
              dra: DRAPreScoreState | None = None) -> tuple[int, Status | None]:
        if self._cpu_mem:
            # The default resources (cpu, memory): no per-resource dispatch.
            alloc = node_info.allocatable
            used = node_info.requested if self.use_requested else node_info.non_zero_requested
            ac = alloc.milli_cpu
            am = alloc.memory
            return self.scorer(
                [used.milli_cpu + pod_requests_list[0] if ac else 0, used.memory + pod_requests_list[1] if am else 0],
                [ac, am],
            ), None
        if not self.resources:
            return 0, Status(Code.ERROR, "resources not found")
        n = len(self._kinds)
        requested = [0] * n
        allocatable = [0] * n
        node_alloc = node_info.allocatable
        node_req = node_info.requested
        used = node_req if self.use_requested else node_info.non_zero_requested
        for i, (kind, name) in enumerate(self._kinds):
            pr = pod_requests_list[i]
            if kind == _K_CPU:
                alloc, req = node_alloc.milli_cpu, used.milli_cpu + pr
            elif kind == _K_MEM:
                alloc, req = node_alloc.memory, used.memory + pr
            elif kind == _K_EPH:
                alloc, req = node_alloc.ephemeral_storage, node_req.ephemeral_storage + pr
            elif kind == _K_SCALAR:
                if pr == 0:
                    continue
                alloc = node_alloc.scalar_resources.get(name)
                if not alloc and dra is not None:
                    capacity, held = dra.totals(node_info.node, name)
                    if capacity > 0:
                        allocatable[i] = capacity
                        requested[i] = held + pr
                        continue
                if alloc is None:
                    continue
                req = node_req.scalar_resources.get(name, 0) + pr
            else:
                continue
            if alloc == 0:
                continue
            allocatable[i] = alloc
            requested[i] = req
        return self.scorer(requested, allocatable), None

    def score_nodes(self, nodes: list[NodeInfo], pod_requests_list: list[int],
                    rows: Any = None, dra: DRAPreScoreState | None = None) -> tuple[list[int] | None, Status | None]:
        """`score` for every node, in order, without per-node call overhead for the default
        strategies on the default resources (cpu, memory); as vector expressions over `rows`
        (the fast path's NodeRows of these nodes) when given and exact, or from the scores kept
        per row when `rows` are the fast path's RowRuns (small snapshots)."""
        fast = self.fast_cpu_mem
        if self._cpu_mem and fast is not None:
            if type(rows) is RowRuns:
                if rows.nodes is nodes:
                    return self._from_rows(fast, rows, pod_requests_list[0], pod_requests_list[1]), None
            elif rows is not None and self.vector_cpu_mem is not None:
                pc, pm = pod_requests_list[0], pod_requests_list[1]
                if self._vector is None:
                    self._vector = self.vector_cpu_mem()
                from scheduler_core.framework.plugins.noderesources.vector import fits_vector

                if fits_vector(pc, pm):
                    return self._from_arrays(fast, rows, pc, pm).tolist(), None
            return fast(nodes, pod_requests_list[0], pod_requests_list[1]), None
        out = []
        score = self.score
        for ni in nodes:
            sc, st = score(ni, pod_requests_list, dra)
            if st is not None:
                return None, st
            out.append(sc)
        return out, None

    def _from_arrays(self, fast: Callable[[list[NodeInfo], int, int], list[int]], rows: Any,
                     pc: int, pm: int) -> Any:
        """The vector form's scores of `rows` (NodeRows) for this request, from the column this
        scorer keeps for it over all rows (kept_columns: the vector form computes it, `fast`
        brings changed rows up to date), or computed for these rows alone without one."""
        vector = self._vector
        assert vector is not None
        arrays = rows.arrays
        col = take_column(arrays, (self, pc, pm), rows.idx, lambda: vector(arrays, slice(None), pc, pm),
                          lambda nodes: fast(nodes, pc, pm))
        return col if col is not None else vector(arrays, rows.idx, pc, pm)

    def _from_rows(self, fast: Callable[[list[NodeInfo], int, int], list[int]], rows: RowRuns,
                   pc: int, pm: int) -> list[int]:
        """`fast(rows.nodes, pc, pm)` from the scores kept per row of the snapshot's node list for
        this request (RowValues: a node's score depends only on its allocatable and requests and
        the pod's request), computing only the rows whose NodeInfo changed since."""
        return take_kept(self._rows, (pc, pm), rows, lambda nodes: fast(nodes, pc, pm))

    def calculate_resource_allocatable_request(self, node_info: NodeInfo, resource: str,
                                               pod_request: int) -> tuple[int, int]:
        """(allocatable, requested incl. the pod) for one resource; (0, 0) leaves it out."""
        used = node_info.requested if self.use_requested else node_info.non_zero_requested
        if pod_request == 0 and is_scalar_resource_name(resource):
            return 0, 0
        if resource == RESOURCE_CPU:
            return node_info.allocatable.milli_cpu, used.milli_cpu + pod_request
        if resource == RESOURCE_MEMORY:
            return node_info.allocatable.memory, used.memory + pod_request
        if resource == RESOURCE_EPHEMERAL_STORAGE:
            return node_info.allocatable.ephemeral_storage, node_info.requested.ephemeral_storage + pod_request
        alloc = node_info.allocatable.scalar_resources.get(resource)
        if alloc is not None:
            return alloc, node_info.requested.scalar_resources.get(resource, 0) + pod_request
        return 0, 0
