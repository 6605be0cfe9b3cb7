"""Scoring strategies of NodeResourcesFit and NodeResourcesBalancedAllocation (cases ported from
upstream least_allocated_test.go, most_allocated_test.go, requested_to_capacity_ratio_test.go and
balanced_allocation_test.go; memory in bytes, cpu in millicores)."""

from __future__ import annotations

import pytest

from scheduler_core.framework.interface import PluginArgsError
from scheduler_core.framework.plugins.helper.shape_score import FunctionShapePoint, build_broken_linear_function
from scheduler_core.framework.plugins.noderesources.balanced_allocation import (
    BalancedAllocation,
    balanced_resource_scorer,
)
from scheduler_core.framework.plugins.noderesources.fit import Fit
from scheduler_core.framework.plugins.noderesources.requested_to_capacity_ratio import (
    requested_to_capacity_ratio_scorer,
)
from scheduler_core.framework.plugins.noderesources.resource_allocation import ResourceSpec
from tests.engine.plugins.util import node_info, rnode, rpod, run_score

CPU_ONLY = [{"cpu": "1000m", "memory": 0}, {"cpu": "2000m", "memory": 0}]
CPU_AND_MEMORY = [{"cpu": "1000m", "memory": 2000}, {"cpu": "2000m", "memory": 3000}]
CPU_MEM_GPU = [{"cpu": "1000m", "memory": 2000}, {"cpu": "2000m", "memory": 3000, "nvidia.com/gpu": 3}]


def mk_node(name, cpu_m, mem, scalars=None):
    alloc = {"cpu": f"{cpu_m}m", "memory": mem}
    alloc.update(scalars or {})
    return rnode(name, alloc)


def infos(nodes, pods):
    out = []
    for n in nodes:
        out.append(node_info(n, *[p for p in pods if p.node_name == n.name]))
    return out


def existing(spec, node, i):
    return rpod(f"e{i}-{node}", *spec, node=node)


LEAST = {"scoringStrategy": {"type": "LeastAllocated",
                             "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}}
MOST = {"scoringStrategy": {"type": "MostAllocated",
                            "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}}


@pytest.mark.parametrize("args,pod_spec,nodes,pods,want", [
    # nothing scheduled, resources requested, differently sized nodes
    (LEAST, CPU_AND_MEMORY, [mk_node("n1", 4000, 10000), mk_node("n2", 6000, 10000)], [], [37, 50]),
    (MOST, CPU_AND_MEMORY, [mk_node("n1", 4000, 10000), mk_node("n2", 6000, 10000)], [], [62, 50]),
    # no requests: the non-zero defaults (100m, 200Mi) are scored
    (LEAST, [{}], [mk_node("n1", 4000, 10000), mk_node("n2", 4000, 10000)], [], [48, 48]),
    (MOST, [{}], [mk_node("n1", 4000, 10000), mk_node("n2", 4000, 10000)], [], [51, 51]),
    (LEAST, [{}], [mk_node("n1", 4000, 1 << 30)], [], [(97 + 80) // 2]),
    # requested resources exceed capacity: 0 for least, capped 100 for most
    # (cpu is over capacity on both; the explicit memory 0 of CPU_ONLY is not defaulted)
    (LEAST, CPU_ONLY, [mk_node("n1", 4000, 10000), mk_node("n2", 4000, 10000)],
     [("n1", CPU_ONLY), ("n2", CPU_AND_MEMORY)], [50, 25]),
    (MOST, CPU_ONLY, [mk_node("n1", 4000, 10000), mk_node("n2", 4000, 10000)],
     [("n1", CPU_ONLY), ("n2", CPU_AND_MEMORY)], [50, 75]),
    # existing pods with resources
    (LEAST, CPU_AND_MEMORY, [mk_node("n1", 10000, 20000), mk_node("n2", 10000, 20000)],
     [("n1", CPU_ONLY), ("n2", CPU_AND_MEMORY)], [(40 + 75) // 2, (40 + 50) // 2]),
    # weights: cpu 3, memory 1
    ({"scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 3},
                                                                  {"name": "memory", "weight": 1}]}},
     CPU_AND_MEMORY, [mk_node("n1", 4000, 10000)], [], [(25 * 3 + 50) // 4]),
    # an extended resource the pod does not request is left out; a requested one counts
    ({"scoringStrategy": {"type": "LeastAllocated", "resources": [
        {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": "nvidia.com/gpu", "weight": 1}]}},
     CPU_AND_MEMORY, [mk_node("n1", 4000, 10000, {"nvidia.com/gpu": 4})], [], [37]),
    ({"scoringStrategy": {"type": "LeastAllocated", "resources": [
        {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": "nvidia.com/gpu", "weight": 1}]}},
     CPU_MEM_GPU, [mk_node("n1", 4000, 10000, {"nvidia.com/gpu": 4}), mk_node("n2", 4000, 10000)], [],
     [(25 + 50 + 25) // 3, 37]),
])
def test_fit_strategies(args, pod_spec, nodes, pods, want):
    pl = Fit(args, None)
    all_pods = [existing(spec, n, i) for i, (n, spec) in enumerate(pods)]
    got = run_score(pl, rpod("p", *pod_spec), infos(nodes, all_pods))
    assert got == want


def test_requested_to_capacity_ratio():
    args = {"scoringStrategy": {"type": "RequestedToCapacityRatio",
                                "resources": [{"name": "cpu", "weight": 3}, {"name": "memory", "weight": 1}],
                                "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0},
                                                                       {"utilization": 100, "score": 10}]}}}
    pl = Fit(args, None)
    # cpu 3000/4000 = 75% -> 75, memory 5000/10000 = 50% -> 50: round((75*3 + 50) / 4) = round(68.75)
    assert run_score(pl, rpod("p", *CPU_AND_MEMORY), [node_info(mk_node("n1", 4000, 10000))]) == [69]
    # default requests: cpu 100m/4000m = 2% -> 2 (weight 3); memory 200Mi of 1Ti -> 0, left out: 2
    assert run_score(pl, rpod("p", {}), [node_info(mk_node("n1", 4000, 1 << 40))]) == [2]


def test_rtcr_rounding_half_away_from_zero():
    # one resource scoring 25 with weight 1, another scoring 50 with weight 1 -> 37.5 -> 38
    fn = requested_to_capacity_ratio_scorer([ResourceSpec("cpu", 1), ResourceSpec("memory", 1)], [(0, 0), (100, 10)])
    assert fn([25, 50], [100, 100]) == 38
    # over capacity gets the shape's value at 100
    assert fn([200, 0], [100, 0]) == 100


def test_rtcr_decreasing_shape_truncates_toward_zero():
    fn = requested_to_capacity_ratio_scorer([ResourceSpec("cpu", 1)], [(0, 10), (100, 0)])
    # 100 + (0-100)*(33-0)/100 = 100 - 33 (Go truncation of -33.0) = 67
    assert fn([33], [100]) == 67
    f = build_broken_linear_function([FunctionShapePoint(10, 100), FunctionShapePoint(30, 0)])
    assert f(0) == 100 and f(40) == 0
    assert f(15) == 100 + (-100 * 5) // 20  # exact here
    assert f(13) == 85  # 100 - trunc(300/20) = 85


# --- BalancedAllocation ---------------------------------------------------------------------------

DEFAULT_BA = {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}
GPU_BA = {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
                        {"name": "nvidia.com/gpu", "weight": 1}]}


@pytest.mark.parametrize("name,args,pod_spec,nodes,pods,want", [
    ("nothing requested: skip", DEFAULT_BA, [{}], [mk_node("n1", 4000, 10000)], [], None),
    ("differently sized nodes", DEFAULT_BA, CPU_AND_MEMORY,
     [mk_node("n1", 4000, 10000), mk_node("n2", 6000, 10000)], [], [87, 100]),
    ("pods scheduled with resources", DEFAULT_BA, CPU_AND_MEMORY,
     [mk_node("n1", 10000, 20000), mk_node("n2", 10000, 20000)],
     [("n1", CPU_ONLY), ("n2", CPU_AND_MEMORY)], [82, 95]),
    ("differently sized nodes with pods", DEFAULT_BA, CPU_AND_MEMORY,
     [mk_node("n1", 10000, 20000), mk_node("n2", 10000, 50000)],
     [("n1", CPU_ONLY), ("n2", CPU_AND_MEMORY)], [82, 80]),
    ("requested at node capacity", DEFAULT_BA, CPU_ONLY,
     [mk_node("n1", 6000, 10000), mk_node("n2", 6000, 10000)],
     [("n1", CPU_ONLY), ("n2", CPU_AND_MEMORY)], [50, 75]),
    ("scalar resource", GPU_BA, [{"memory": 0, "nvidia.com/gpu": 1}],
     [mk_node("n1", 3500, 40000, {"nvidia.com/gpu": 8}), mk_node("n2", 3500, 40000, {"nvidia.com/gpu": 8})],
     [("n1", CPU_MEM_GPU), ("n2", CPU_AND_MEMORY)], [70, 65]),
    ("node without the scalar resource skips it", GPU_BA, CPU_AND_MEMORY,
     [mk_node("n1", 3500, 40000, {"nvidia.com/gpu": 8}), mk_node("n2", 3500, 40000)], [], [63, 63]),
    ("zero cpu request is not best effort if memory requested", DEFAULT_BA, [{"memory": 5000}],
     [mk_node("n1", 4000, 10000)], [], [75]),
])
def test_balanced_allocation(name, args, pod_spec, nodes, pods, want):
    pl = BalancedAllocation(args, None)
    all_pods = [existing(spec, n, i) for i, (n, spec) in enumerate(pods)]
    assert run_score(pl, rpod("p", *pod_spec), infos(nodes, all_pods)) == want


def test_balanced_uses_real_requests_not_defaults():
    # an existing request-less pod adds nothing (BalancedAllocation uses Requested, not NonZeroRequested)
    pl = BalancedAllocation(None, None)
    ni = node_info(mk_node("n1", 4000, 10000), rpod("e", {}, node="n1"))
    assert run_score(pl, rpod("p", {"cpu": "2000m", "memory": 5000}), [ni]) == [100]


def test_balanced_scorer_three_resources():
    # std of (0.5, 0.25, 0.75) = sqrt(((0)^2 + 0.25^2 + 0.25^2)/3) = 0.2041 -> 79
    assert balanced_resource_scorer([50, 25, 75], [100, 100, 100]) == 79
    assert balanced_resource_scorer([0], [0]) == 100
    assert balanced_resource_scorer([150, 0], [100, 100]) == 50  # fractions capped at 1


@pytest.mark.parametrize("args,msg", [
    ({"resources": [{"name": "cpu", "weight": 2}]}, "must be 1"),
    ({"resources": [{"name": "cpu", "weight": 1}, {"name": "cpu", "weight": 1}]}, "Duplicate value"),
])
def test_balanced_args(args, msg):
    with pytest.raises(PluginArgsError) as e:
        BalancedAllocation(args, None)
    assert msg in str(e.value)


def test_balanced_args_default_weight():
    pl = BalancedAllocation({"resources": [{"name": "cpu"}, {"name": "memory", "weight": 0}]}, None)
    assert [(r.name, r.weight) for r in pl.resources] == [("cpu", 1), ("memory", 1)]
