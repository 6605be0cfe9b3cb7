"""NodeResourcesFit: Filter reasons/codes and the pod request computation, ported from upstream
fit_test.go (TestEnoughRequests & co) with v1.35's Unresolvable rule, plus args validation."""

from __future__ import annotations

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import PluginArgsError
from scheduler_core.framework.plugins.noderesources.fit import Fit, compute_pod_resource_request, fits
from scheduler_core.framework.status import Code
from scheduler_core.framework.types import ActionType, QueueingHint
from tests.engine.plugins.util import container, node_info, rnode, rpod, run_filter

EXT_A = "example.com/aaa"
EXT_B = "example.com/bbb"
K8S_IO_A = "kubernetes.io/something"
HUGE_A = "hugepages-2Mi"

# The upstream test node: 10m cpu, 20 bytes memory, 32 pods, 5 example.com/aaa, 20 ephemeral, 5 hugepages.
ALLOC = {"cpu": "10m", "memory": 20, "pods": 32, EXT_A: 5, "ephemeral-storage": 20, HUGE_A: 5}


def r(cpu: int = 0, mem: int = 0, **scalars: int) -> dict:
    d: dict = {}
    if cpu:
        d["cpu"] = f"{cpu}m"
    if mem:
        d["memory"] = mem
    for k, v in scalars.items():
        d[{"ext_a": EXT_A, "ext_b": EXT_B, "k8s_a": K8S_IO_A, "huge": HUGE_A, "eph": "ephemeral-storage"}[k]] = v
    return d


U, UU = Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE
CPU, MEM = "Insufficient cpu", "Insufficient memory"

CASES = [
    # name, pod containers, init containers, existing pod request, args, (code, reasons) or None
    ("no resources requested always fits", [{}], [], r(10, 20), None, None),
    ("too many resources fails", [r(1, 1)], [], r(10, 20), None, (U, [CPU, MEM])),
    ("init container cpu", [r(1, 1)], [r(3, 1)], r(8, 19), None, (U, [CPU])),
    ("highest init container cpu", [r(1, 1)], [r(3, 1), r(2, 1)], r(8, 19), None, (U, [CPU])),
    ("init container memory", [r(1, 1)], [r(1, 3)], r(9, 19), None, (U, [MEM])),
    ("init max not sum", [r(1, 1)], [r(1, 1), r(1, 1)], r(9, 19), None, None),
    ("both fit", [r(1, 1)], [], r(5, 5), None, None),
    ("one resource memory fits", [r(2, 1)], [], r(9, 5), None, (U, [CPU])),
    ("one resource cpu fits", [r(1, 2)], [], r(5, 19), None, (U, [MEM])),
    ("equal edge case", [r(5, 1)], [], r(5, 19), None, None),
    ("equal edge case init", [r(4, 1)], [r(5, 1)], r(5, 19), None, None),
    ("extended fits", [r(ext_a=1)], [], {}, None, None),
    ("extended fits init", [{}], [r(ext_a=1)], {}, None, None),
    # v1.35: a request above the node's whole allocatable is unresolvable.
    ("extended capacity enforced", [r(1, 1, ext_a=10)], [], r(ext_a=0), None, (UU, [f"Insufficient {EXT_A}"])),
    ("extended allocatable enforced", [r(1, 1, ext_a=1)], [], r(ext_a=5), None, (U, [f"Insufficient {EXT_A}"])),
    ("extended multiple containers", [r(1, 1, ext_a=3), r(1, 1, ext_a=3)], [], r(ext_a=2), None,
     (UU, [f"Insufficient {EXT_A}"])),
    ("extended multiple init admitted", [{}], [r(1, 1, ext_a=3), r(1, 1, ext_a=3)], r(ext_a=2), None, None),
    ("extended multiple init enforced", [{}], [r(1, 1, ext_a=6), r(1, 1, ext_a=3)], r(ext_a=2), None,
     (UU, [f"Insufficient {EXT_A}"])),
    ("unknown extended resource", [r(1, 1, ext_b=1)], [], {}, None, (UU, [f"Insufficient {EXT_B}"])),
    ("kubernetes.io resource", [r(1, 1, k8s_a=10)], [], {}, None, (UU, [f"Insufficient {K8S_IO_A}"])),
    ("hugepages capacity", [r(1, 1, huge=10)], [], r(huge=0), None, (UU, [f"Insufficient {HUGE_A}"])),
    ("hugepages multiple containers", [r(1, 1, huge=3), r(1, 1, huge=3)], [], r(huge=2), None,
     (UU, [f"Insufficient {HUGE_A}"])),
    ("hugepages allocatable", [r(1, 1, huge=3)], [], r(huge=3), None, (U, [f"Insufficient {HUGE_A}"])),
    ("ignored extended resource", [r(1, 1, ext_b=1)], [], {}, {"ignoredResources": [EXT_B]}, None),
    ("ignored resource group", [r(1, 1, ext_b=1)], [], {}, {"ignoredResourceGroups": ["example.com"]}, None),
    ("ignored group does not ignore hugepages", [r(1, 1, huge=10)], [], {},
     {"ignoredResourceGroups": ["hugepages-2Mi"]}, (UU, [f"Insufficient {HUGE_A}"])),
    ("pod over whole allocatable cpu", [r(11, 1)], [], {}, None, (UU, [CPU])),
    ("mixed resolvable and unresolvable", [r(11, 2)], [], r(0, 19), None, (UU, [CPU, MEM])),
    ("ephemeral storage", [r(eph=25)], [], {}, None, (UU, ["Insufficient ephemeral-storage"])),
    ("ephemeral storage used", [r(eph=10)], [], r(eph=15), None, (U, ["Insufficient ephemeral-storage"])),
    ("zero request of extended resource is skipped", [r(1, 1, ext_b=0)], [], {}, None, None),
]


@pytest.mark.parametrize("name,containers,inits,existing,args,want", CASES, ids=[c[0] for c in CASES])
def test_filter(name, containers, inits, existing, args, want):
    pl = Fit(args, None)
    ni = node_info(rnode("n", ALLOC), rpod("existing", existing, node="n"))
    st = run_filter(pl, rpod("p", *containers, init=inits), ni)
    if want is None:
        assert st is None
    else:
        assert st is not None
        assert (st.code, st.reasons) == want


def test_too_many_pods():
    pl = Fit(None, None)
    ni = node_info(rnode("n", {"cpu": "1", "memory": "1Gi", "pods": 1}), rpod("e", {}, node="n"))
    st = run_filter(pl, rpod("p", {}), ni)
    assert st.code == Code.UNSCHEDULABLE and st.reasons == ["Too many pods"]
    st = run_filter(pl, rpod("p", {"cpu": "2"}), ni)
    assert st.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert st.reasons == ["Too many pods", "Insufficient cpu"]


def test_zero_allowed_pods_node():
    pl = Fit(None, None)
    st = run_filter(pl, rpod("p", {}), node_info(rnode("n", {"cpu": "1", "pods": 0})))
    assert st.code == Code.UNSCHEDULABLE and st.reasons == ["Too many pods"]


def test_overhead_counts():
    pl = Fit(None, None)
    ni = node_info(rnode("n", {"cpu": "1", "memory": "1Gi"}))
    assert run_filter(pl, rpod("p", {"cpu": "900m"}), ni) is None
    st = run_filter(pl, rpod("p", {"cpu": "900m"}, overhead={"cpu": "200m"}), ni)
    assert st.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE and st.reasons == ["Insufficient cpu"]


def test_sidecar_request_is_added():
    # sidecar 500m runs alongside the app (500m) and the later init container (600m): max(1000, 1100)
    pod = rpod("p", {"cpu": "500m"}, init=[container({"cpu": "500m"}, name="side", sidecar=True),
                                          container({"cpu": "600m"}, name="init")])
    assert compute_pod_resource_request(pod).milli_cpu == 1100
    pod2 = rpod("p", {"cpu": "500m"}, init=[container({"cpu": "600m"}, name="init"),
                                           container({"cpu": "500m"}, name="side", sidecar=True)])
    assert compute_pod_resource_request(pod2).milli_cpu == 1000


def test_pods_request_is_ignored_and_quantities_round_up():
    pod = rpod("p", {"cpu": "0.0001", "memory": "0.5", "pods": 3})
    rq = compute_pod_resource_request(pod)
    assert (rq.milli_cpu, rq.memory, rq.allowed_pod_number) == (1, 1, 0)


def test_filter_without_prefilter_is_error():
    st = Fit(None, None).filter(CycleState(), rpod("p", {}), node_info(rnode("n", ALLOC)))
    assert st.code == Code.ERROR


@pytest.mark.parametrize("args,msg", [
    ({"scoringStrategy": {"type": "Foo"}}, 'scoringStrategy.type: Unsupported value: "Foo"'),
    ({"scoringStrategy": {"resources": [{"name": "cpu", "weight": 1}]}}, "scoringStrategy.type: Unsupported"),
    ({"scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 101}]}},
     "resource weight of cpu not in valid range (0, 100]"),
    ({"scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "cpu", "weight": -1}]}},
     "not in valid range"),
    ({"ignoredResourceGroups": ["example.com/aaa"]}, "resource group name can't contain '/'"),
    ({"scoringStrategy": {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {"shape": []}}},
     "at least one point must be specified"),
    ({"scoringStrategy": {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {
        "shape": [{"utilization": 50, "score": 1}, {"utilization": 50, "score": 2}]}}},
     "values must be sorted in increasing order"),
    ({"scoringStrategy": {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {
        "shape": [{"utilization": 101, "score": 11}]}}}, "not in valid range [0, 10]"),
])
def test_args_validation(args, msg):
    with pytest.raises(PluginArgsError) as e:
        Fit(args, None)
    assert msg in str(e.value)
    assert str(e.value).startswith("NodeResourcesFit: ")


def test_args_defaults():
    pl = Fit(None, None)
    assert pl.fit_args.type == "LeastAllocated"
    assert [(x.name, x.weight) for x in pl.resources] == [("cpu", 1), ("memory", 1)]
    pl = Fit({"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu"}]}}, None)
    assert [(x.name, x.weight) for x in pl.resources] == [("cpu", 1)]
    pl = Fit({"scoringStrategy": {"type": "MostAllocated", "resources": []}}, None)
    assert [(x.name, x.weight) for x in pl.resources] == [("cpu", 1), ("memory", 1)]


def test_events_and_hints():
    pl = Fit(None, None)
    evs = pl.events_to_register()
    assert [(e.event.resource, e.event.action_type) for e in evs] == [
        ("Pod", ActionType.DELETE | ActionType.UPDATE_POD_SCALE_DOWN),
        ("Node", ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE),
    ]
    pod = rpod("p", {"cpu": "2"})
    pod_hint, node_hint = evs[0].queueing_hint_fn, evs[1].queueing_hint_fn
    assert pod_hint(pod, rpod("gone", {}), None) == QueueingHint.SKIP  # never placed
    assert pod_hint(pod, rpod("gone", {}, node="n"), None) == QueueingHint.QUEUE
    small, big = rnode("n", {"cpu": "1"}), rnode("n", {"cpu": "4"})
    assert node_hint(pod, None, small) == QueueingHint.SKIP
    assert node_hint(pod, None, big) == QueueingHint.QUEUE
    assert node_hint(pod, small, big) == QueueingHint.QUEUE
    assert node_hint(pod, big, big) == QueueingHint.SKIP
    # scale down of a scheduled pod that frees cpu the target needs
    before = rpod("o", {"cpu": "3"}, node="n")
    after = rpod("o", {"cpu": "1"}, node="n")
    assert pod_hint(pod, before, after) == QueueingHint.QUEUE
    assert pod_hint(pod, rpod("o", {"memory": "3"}, node="n"), rpod("o", {"memory": "1"}, node="n")) == \
        QueueingHint.SKIP


def test_fits_helper():
    ni = node_info(rnode("n", {"cpu": "1", "memory": "1Gi"}))
    assert fits(rpod("p", {"cpu": "1"}), ni) == []
    assert [i.reason for i in fits(rpod("p", {"cpu": "2"}), ni)] == ["Insufficient cpu"]
