"""NodeResourcesBalancedAllocation: prefer nodes whose resource usage fractions (cpu, memory, ...)
would be closest to each other with the pod on them: score = (1 - std deviation) * 100.

It uses the real requests (not the non-zero defaults) and skips best-effort pods entirely, so
that a stream of request-less pods is not piled onto one node (kubernetes#129138).
"""

from __future__ import annotations

import math
from typing import Any

from scheduler_core.api.types import Pod
from scheduler_core.backend.cache.node_arrays import NODE_ROWS_KEY
from scheduler_core.featuregate.features import gates_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import MAX_NODE_SCORE, PluginArgsError, PreScorePlugin, ScorePlugin
from scheduler_core.framework.plugins import names
from scheduler_core.framework.plugins.helper import signing
from scheduler_core.framework.plugins.noderesources.resource_allocation import (
    DEFAULT_RESOURCE_SPEC,
    ResourceAllocationScorer,
    ResourceSpec,
)
from scheduler_core.framework.status import SKIP, Status
from scheduler_core.framework.types import NodeInfo

BALANCED_ALLOCATION_NAME = names.NODE_RESOURCES_BALANCED_ALLOCATION
PRE_SCORE_STATE_KEY = "PreScore" + BALANCED_ALLOCATION_NAME


class _PreScoreState:
    __slots__ = ("pod_requests", "dra")

    def __init__(self, pod_requests_list: list[int], dra: Any = None) -> None:
        self.pod_requests = pod_requests_list
        self.dra = dra  # DRAExtendedResource scoring state, or None

    def clone(self) -> _PreScoreState:
        return self


def balanced_resource_scorer(requested: list[int], allocatable: list[int]) -> int:
    if len(allocatable) == 2 and allocatable[0] and allocatable[1]:
        # The default cpu+memory case, same float operations as the general path below.
        f0 = float(requested[0]) / float(allocatable[0])
        f1 = float(requested[1]) / float(allocatable[1])
        if f0 > 1:
            f0 = 1.0
        if f1 > 1:
            f1 = 1.0
        return int((1 - abs((f0 - f1) / 2)) * float(MAX_NODE_SCORE))
    fractions = []
    total = 0.0
    for i, alloc in enumerate(allocatable):
        if alloc == 0:
            continue
        f = float(requested[i]) / float(alloc)
        if f > 1:
            f = 1.0
        total += f
        fractions.append(f)
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total / float(len(fractions))
        sq = 0.0
        for f in fractions:
            sq = sq + (f - mean) * (f - mean)
        std = math.sqrt(sq / float(len(fractions)))
    return int((1 - std) * float(MAX_NODE_SCORE))


def balanced_cpu_mem_batch(nodes: list[NodeInfo], pc: int, pm: int) -> list[int]:
    """balanced_resource_scorer for (cpu, memory) on the nodes' requests, over a node list; a
    node lacking either resource has at most one fraction, hence deviation 0 and the top score."""
    out = []
    append = out.append
    top = int(float(MAX_NODE_SCORE))
    mx = float(MAX_NODE_SCORE)
    for ni in nodes:
        a = ni.allocatable
        ac = a.milli_cpu
        am = a.memory
        if ac and am:
            u = ni.requested
            f0 = float(u.milli_cpu + pc) / float(ac)
            f1 = float(u.memory + pm) / float(am)
            if f0 > 1:
                f0 = 1.0
            if f1 > 1:
                f1 = 1.0
            append(int((1 - abs((f0 - f1) / 2)) * mx))
        else:
            append(top)
    return out


def _balanced_vector() -> Any:
    """The NumPy form of balanced_cpu_mem_batch, imported on first use (vector.py)."""
    from scheduler_core.framework.plugins.noderesources.vector import balanced_cpu_mem_vector

    return balanced_cpu_mem_vector


def _parse_args(args: dict[str, Any] | None) -> list[ResourceSpec]:
    items = (args or {}).get("resources")
    if not items:
        return list(DEFAULT_RESOURCE_SPEC)
    out = []
    for it in items:
        w = it.get("weight", 0) if isinstance(it, dict) else 0
        if isinstance(w, bool) or not isinstance(w, int):
            raise PluginArgsError(f"{BALANCED_ALLOCATION_NAME}: resources: weight must be an integer")
        out.append(ResourceSpec(str(it.get("name", "")), w or 1))
    errs = []
    seen: set[str] = set()
    for i, r in enumerate(out):
        if r.name in seen:
            errs.append(f'resources[{i}].name: Duplicate value: "{r.name}"')
        else:
            seen.add(r.name)
        if r.weight != 1:
            errs.append(f"resources[{i}].weight: Invalid value: {r.weight}: must be 1")
    if errs:
        msg = errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"
        raise PluginArgsError(f"{BALANCED_ALLOCATION_NAME}: {msg}")
    return out


class BalancedAllocation(PreScorePlugin, ScorePlugin):
    name = BALANCED_ALLOCATION_NAME

    def __init__(self, args: dict[str, Any] | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        self.scorer = ResourceAllocationScorer(
            BALANCED_ALLOCATION_NAME, balanced_resource_scorer, _parse_args(args), use_requested=True
        )
        self.resources = self.scorer.resources
        self.scorer.fast_cpu_mem = balanced_cpu_mem_batch
        gates = gates_of(handle)
        self.dra_extended_resource = bool(gates.overrides) and gates.enabled("DRAExtendedResource")
        self.scorer.enable_dra_extended_resource(handle)
        self.scorer.vector_cpu_mem = _balanced_vector

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        reqs = self.scorer.calculate_pod_resource_request_list(pod)
        if self.scorer.is_best_effort_pod(reqs):
            return SKIP
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(reqs, self.scorer.dra_state(self._cluster())))
        return None

    def _cluster(self) -> Any:
        return getattr(self.handle, "cluster", None)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            reqs = self.scorer.calculate_pod_resource_request_list(pod)
            if self.scorer.is_best_effort_pod(reqs):
                return 0, None
            dra = self.scorer.dra_state(self._cluster())
        else:
            reqs, dra = s.pod_requests, s.dra
        return self.scorer.score(node_info, reqs, dra)

    def score_nodes(self, state: CycleState, pod: Pod,
                    nodes: list[NodeInfo]) -> tuple[list[int] | None, Status | None]:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            reqs = self.scorer.calculate_pod_resource_request_list(pod)
            if self.scorer.is_best_effort_pod(reqs):
                return [0] * len(nodes), None
            dra = self.scorer.dra_state(self._cluster())
        else:
            reqs, dra = s.pod_requests, s.dra
        return self.scorer.score_nodes(nodes, reqs, state.get(NODE_ROWS_KEY), dra)

    def score_extensions(self) -> None:
        return None

    def sign_pod(self, pod: Pod) -> dict[str, Any]:
        """This plugin's fragments of the pod's batching signature (upstream SignPod); none with
        DRAExtendedResource, as upstream."""
        if self.dra_extended_resource:
            raise signing.Unsignable("signature disabled when dra extended resources enabled")
        return {"resources": signing.resources(pod)}
