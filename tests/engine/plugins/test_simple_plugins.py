"""NodeName, NodeUnschedulable, SchedulingGates, PrioritySort, DefaultBinder, ImageLocality,
the volume plugins and DynamicResources on volume/claim-less pods, and the registry."""

from __future__ import annotations

import pytest

from scheduler_core.api.types import Container, ContainerImage, Node, Pod, Taint, Toleration
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.plugins import names
from scheduler_core.framework.plugins.defaultbinder import DefaultBinder
from scheduler_core.framework.plugins.dynamicresources import DynamicResources
from scheduler_core.framework.plugins.imagelocality import ImageLocality
from scheduler_core.framework.plugins.imagelocality.image_locality import normalized_image_name
from scheduler_core.framework.plugins.nodename import NodeName
from scheduler_core.framework.plugins.nodeunschedulable import NodeUnschedulable
from scheduler_core.framework.plugins.nodevolumelimits import CSILimits
from scheduler_core.framework.plugins.queuesort import PrioritySort
from scheduler_core.framework.plugins.registry import IN_TREE_REGISTRY, get_plugin_class, get_registry
from scheduler_core.framework.plugins.schedulinggates import SchedulingGates
from scheduler_core.framework.plugins.volumebinding import VolumeBinding
from scheduler_core.framework.plugins.volumerestrictions import VolumeRestrictions
from scheduler_core.framework.plugins.volumezone import VolumeZone
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import ImageStateSummary, NodeInfo, PodInfo, QueuedPodInfo, QueueingHint
from tests.engine.plugins.fakes import FakeHandle, FakeSnapshot
from tests.engine.plugins.util import run_score


def test_node_name():
    pl = NodeName(None, None)
    assert pl.filter(CycleState(), Pod(name="p"), NodeInfo(Node(name="a"))) is None
    assert pl.filter(CycleState(), Pod(name="p", node_name="a"), NodeInfo(Node(name="a"))) is None
    st = pl.filter(CycleState(), Pod(name="p", node_name="b"), NodeInfo(Node(name="a")))
    assert st.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert st.reasons == ["node(s) didn't match the requested node name"]


@pytest.mark.parametrize("tols,unsched,fits", [
    ([], False, True),
    ([], True, False),
    ([Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule")], True, True),
    ([Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoExecute")], True, False),
    ([Toleration("", "Exists")], True, True),
])
def test_node_unschedulable(tols, unsched, fits):
    st = NodeUnschedulable(None, None).filter(CycleState(), Pod(name="p", tolerations=tols),
                                              NodeInfo(Node(name="n", unschedulable=unsched)))
    if fits:
        assert st is None
    else:
        assert st.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE and st.reasons == ["node(s) were unschedulable"]


def test_node_unschedulable_hints():
    pl = NodeUnschedulable(None, None)
    node_hint, pod_hint = (e.queueing_hint_fn for e in pl.events_to_register())
    p = Pod(name="p")
    assert node_hint(p, None, Node(name="n")) == QueueingHint.QUEUE
    assert node_hint(p, None, Node(name="n", unschedulable=True)) == QueueingHint.SKIP
    assert node_hint(p, Node(name="n", unschedulable=True), Node(name="n")) == QueueingHint.QUEUE
    assert node_hint(p, Node(name="n"), Node(name="n", taints=[Taint("a")])) == QueueingHint.SKIP
    tol = Pod(name="p", tolerations=[Toleration("node.kubernetes.io/unschedulable", "Exists")])
    assert pod_hint(p, p, tol) == QueueingHint.QUEUE
    assert pod_hint(p, p, Pod(name="p", tolerations=[Toleration("x", "Exists")])) == QueueingHint.SKIP


def test_scheduling_gates():
    pl = SchedulingGates(None, None)
    assert pl.pre_enqueue(Pod(name="p")) is None
    st = pl.pre_enqueue(Pod(name="p", scheduling_gates=["foo", "bar"]))
    assert st.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert st.reasons == ["waiting for scheduling gates: [foo bar]"]
    (ev,) = pl.events_to_register()
    assert ev.queueing_hint_fn(Pod(name="p", uid="1"), None, Pod(name="p", uid="1")) == QueueingHint.QUEUE
    assert ev.queueing_hint_fn(Pod(name="p", uid="1"), None, Pod(name="q", uid="2")) == QueueingHint.SKIP


def qpi(prio: int, ts: float) -> QueuedPodInfo:
    return QueuedPodInfo(PodInfo(Pod(name=f"p{prio}{ts}", priority=prio)), timestamp=ts)


def test_priority_sort():
    pl = PrioritySort(None, None)
    assert pl.less(qpi(10, 5), qpi(1, 1))
    assert not pl.less(qpi(1, 1), qpi(10, 5))
    assert pl.less(qpi(1, 1), qpi(1, 2))
    assert not pl.less(qpi(1, 2), qpi(1, 2))


def test_default_binder():
    calls = []

    class H:
        def bind(self, pod, node_name):
            calls.append((pod.name, node_name))
            return Status(Code.ERROR, "boom")

    st = DefaultBinder(None, H()).bind(CycleState(), Pod(name="p"), "n1")
    assert calls == [("p", "n1")] and st.code == Code.ERROR
    assert DefaultBinder(None, object()).bind(CycleState(), Pod(name="p"), "n1") is None


# --- ImageLocality --------------------------------------------------------------------------------

MB = 1024 * 1024


def image_node(name: str, images: dict[str, tuple[int, int]]) -> NodeInfo:
    ni = NodeInfo(Node(name=name, images=[ContainerImage([k], s) for k, (s, _) in images.items()]))
    ni.image_states = {k: ImageStateSummary(size=s, num_nodes=c) for k, (s, c) in images.items()}
    return ni


def test_normalized_image_name():
    assert normalized_image_name("gcr.io/40") == "gcr.io/40:latest"
    assert normalized_image_name("gcr.io/40:v1") == "gcr.io/40:v1"
    assert normalized_image_name("localhost:5000/img") == "localhost:5000/img:latest"
    assert normalized_image_name("img@sha256:abc") == "img@sha256:abc"


def test_image_locality():
    # ported from image_locality_test.go "two images spread on two nodes, prefer the larger image one"
    n1 = image_node("m1", {"gcr.io/40:latest": (40 * MB, 1), "gcr.io/300:latest": (300 * MB, 1),
                           "gcr.io/2000:latest": (2000 * MB, 1)})
    n2 = image_node("m2", {"gcr.io/250:latest": (250 * MB, 1), "gcr.io/10:v1": (10 * MB, 1)})
    handle = FakeHandle(FakeSnapshot([], [n1.node, n2.node]))
    pl = ImageLocality(None, handle)
    pod = Pod(name="p", containers=[Container("a", image="gcr.io/40"), Container("b", image="gcr.io/250")])
    # node1: 40MB*1/2 = 20MB -> below threshold -> 0 ; node2: 250MB/2 = 125MB -> (125-23)*100/(2000-23) = 5
    assert run_score(pl, pod, [n1, n2]) == [0, 5]
    pod3 = Pod(name="p", containers=[Container("a", image="gcr.io/2000")])
    # 2000MB/2 = 1000MB capped at 1000MB per container -> 100
    assert run_score(pl, pod3, [n1, n2]) == [100, 0]


def test_image_locality_spread_over_all_nodes():
    n1 = image_node("m1", {"gcr.io/300:latest": (300 * MB, 2)})
    n2 = image_node("m2", {"gcr.io/300:latest": (300 * MB, 2)})
    pl = ImageLocality(None, FakeHandle(FakeSnapshot([], [n1.node, n2.node])))
    pod = Pod(name="p", containers=[Container("a", image="gcr.io/300"), Container("b", image="other")])
    # 300MB on each of 2 nodes: (300-23)*100/(2000-23) = 14
    assert run_score(pl, pod, [n1, n2]) == [14, 14]


# --- volume plugins and DRA on pods without volumes/claims ---------------------------------------------

@pytest.mark.parametrize("cls", [VolumeRestrictions, CSILimits, VolumeBinding, VolumeZone])
def test_volume_plugins_skip_prefilter(cls):
    pl = cls(None, None)
    res, st = pl.pre_filter(CycleState(), Pod(name="p"), [])
    assert res is None and st.code == Code.SKIP
    assert pl.events_to_register()


def test_volume_binding_lifecycle():
    pl = VolumeBinding(None, None)
    state = CycleState()
    assert pl.pre_filter(state, Pod(name="p"), [])[1].code == Code.SKIP
    assert pl.pre_score(state, Pod(name="p"), []).code == Code.SKIP
    assert pl.reserve(state, Pod(name="p"), "n") is None
    assert pl.pre_bind_pre_flight(state, Pod(name="p"), "n").code == Code.SKIP
    assert pl.pre_bind(state, Pod(name="p"), "n") is None
    assert pl.reserve(CycleState(), Pod(name="p"), "n").code == Code.ERROR


def test_volume_binding_args():
    from scheduler_core.framework.interface import PluginArgsError
    with pytest.raises(PluginArgsError):
        VolumeBinding({"bindTimeoutSeconds": -1}, None)
    from types import SimpleNamespace

    from scheduler_core.featuregate.features import DEFAULT_GATES, with_overrides
    shape = [{"utilization": 0, "score": 0}]
    with pytest.raises(PluginArgsError, match="remove it or turn on the feature gate StorageCapacityScoring"):
        VolumeBinding({"shape": shape}, SimpleNamespace(feature_gates=DEFAULT_GATES))
    on = SimpleNamespace(feature_gates=with_overrides(DEFAULT_GATES, {"StorageCapacityScoring": True}))
    assert VolumeBinding({"shape": shape}, on).scorer is not None
    assert VolumeBinding({}, on).scorer is not None  # the default shape
    # No handle (the loader's check, before a run's gates are known): checked as with the gate.
    VolumeBinding({"shape": shape}, None)
    with pytest.raises(PluginArgsError, match="shape\\[0\\].score: Invalid value: 11"):
        VolumeBinding({"shape": [{"utilization": 0, "score": 11}]}, None)
    assert VolumeBinding({"bindTimeoutSeconds": 30}, None).bind_timeout_seconds == 30


def test_dynamic_resources_no_claims():
    pl = DynamicResources(None, None)
    state = CycleState()
    assert pl.pre_enqueue(Pod(name="p")) is None
    assert pl.pre_filter(state, Pod(name="p"), [])[1].code == Code.SKIP
    res, st = pl.post_filter(state, Pod(name="p"), None)
    assert res is None and st.code == Code.UNSCHEDULABLE and st.reasons == ["no new claims to deallocate"]
    assert pl.pre_bind_pre_flight(state, Pod(name="p"), "n").code == Code.SKIP
    assert pl.reserve(state, Pod(name="p"), "n") is None
    # PreFilter never ran (an earlier PreFilter rejected the pod): upstream's ErrNotFound
    res, st = pl.post_filter(CycleState(), Pod(name="p"), None)
    assert st.code == Code.ERROR and st.reasons == ["not found"]


def test_dynamic_resources_args():
    from scheduler_core.framework.interface import PluginArgsError
    with pytest.raises(PluginArgsError):
        DynamicResources({"bindingTimeout": "10s"}, None)
    DynamicResources({"filterTimeout": "10s"}, None)


def test_registry_complete():
    expected = set(names.ALL)
    assert set(IN_TREE_REGISTRY.keys()) == expected
    assert get_registry() is IN_TREE_REGISTRY
    for name in expected:
        cls = get_plugin_class(name)
        assert cls.name == name
        assert IN_TREE_REGISTRY.get(name) is cls
    assert IN_TREE_REGISTRY.get("Nope") is None
    with pytest.raises(KeyError):
        get_plugin_class("Nope")
