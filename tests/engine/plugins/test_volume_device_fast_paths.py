"""The volume and device plugins' shortcuts give exactly the node-by-node answers.

NodeVolumeLimits counts a node's volumes as pods come and go (NodeInfo.volume_count) and looks
at the exact attached set only near a limit; VolumeBinding and VolumeZone answer once per set
of node labels their verdict reads; the DRA allocator keeps its answer per node across cycles
while the node's devices stay as they were. Each is checked by counting the real work it does,
and the whole storage benchmark input (at a small size, with a volume limit low enough to be
reached) is run once with the shortcuts and once with them switched off: every pod's node and
message must be the same.
"""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import pytest

from scheduler_core.api.types import Pod
from scheduler_core.dra.structured import allocator as allocator_module
from scheduler_core.framework.interface import FilterPlugin
from scheduler_core.framework.plugins.dynamicresources.dynamicresources import DynamicResources
from scheduler_core.framework.plugins.nodevolumelimits.csi import CSILimits
from scheduler_core.framework.plugins.volumebinding import volume_binding as volume_binding_module
from scheduler_core.framework.plugins.volumebinding.binder import VolumeBinder
from scheduler_core.framework.plugins.volumebinding.volume_binding import VolumeBinding
from scheduler_core.framework.plugins.volumezone.volume_zone import VolumeZone
from scheduler_core.framework.types import NodeInfo
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation
from tests.engine.dra.test_dra_plugin import CLASS, TEMPLATE, gpu_slice
from tests.engine.dra.test_dra_plugin import node as gpu_node
from tests.engine.dra.test_dra_plugin import pod as gpu_pod
from tests.engine.plugins.test_volume_plugins import claim, cls, node, pod

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
import generate_storage  # noqa: E402


def _pod(name: str, *claims: str) -> Pod:
    """A pod with a PVC volume per claim, as the loader builds it."""
    volumes = "".join(f"  - {{name: {c}, persistentVolumeClaim: {{claimName: {c}}}}}\n" for c in claims)
    text = pod(name, volumes) if claims else pod(name, "").replace("  volumes:\n", "")
    return load_scenario_text("---\n".join([node("n1"), text])).pods[0]


def test_node_info_counts_the_volumes_of_its_pods_through_adds_removes_copies_and_pickles():
    ni = NodeInfo()
    a, b = _pod("a", "x", "y"), _pod("b", "z")
    ni.add_pod(a)
    ni.add_pod(b)
    ni.add_pod(_pod("c"))
    assert ni.volume_count == 3
    copy = ni.snapshot()
    ni.remove_pod(a)
    assert (ni.volume_count, copy.volume_count) == (1, 3)
    assert pickle.loads(pickle.dumps(copy)).volume_count == 3


def shared_claim_docs(limit: int) -> list[str]:
    """One node whose CSI driver attaches `limit` volumes; pods p1 and p2 share claim `shared`."""
    csinode = ("apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata: {name: n1}\n"
               f"spec:\n  drivers:\n  - {{name: csi.example.com, nodeID: n1, allocatable: {{count: {limit}}}}}\n")
    many = "  accessModes: [ReadWriteMany]\n"
    return [node("n1", cpu="32"), csinode, cls("fast", "csi.example.com"),
            claim("shared", "1Gi", "fast").replace("  accessModes: [ReadWriteOnce]\n", many),
            claim("own", "1Gi", "fast"),
            pod("p1", "  - {name: d, persistentVolumeClaim: {claimName: shared}}\n"),
            pod("p2", "  - {name: d, persistentVolumeClaim: {claimName: shared}}\n"),
            pod("p3", "  - {name: d, persistentVolumeClaim: {claimName: own}}\n")]


def test_a_volume_the_node_has_already_attached_does_not_count_again_at_the_limit():
    sim = Simulation(load_scenario_text("---\n".join(shared_claim_docs(1))))
    sim.run()
    records = sim.scheduler.cluster.records
    # p2 reaches the limit only by the upper bound (1 volume on the node + 1 new): the exact
    # count finds its volume already attached. p3's own claim is one too many.
    assert records["default/p1"].node == "n1" and records["default/p2"].node == "n1"
    assert records["default/p3"].status == "Pending"
    assert "node(s) exceed max volume count" in records["default/p3"].message


def zonal_pv_docs(nodes_per_zone: int) -> list[str]:
    zones = ("a", "b", "c")
    docs = [node(f"n-{z}-{i}", z) for z in zones for i in range(nodes_per_zone)]
    docs += [cls("zonal", "csi.example.com", mode="Immediate"),
             "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv-b, labels: {topology.kubernetes.io/zone: b}}\n"
             "spec:\n  capacity: {storage: 1Gi}\n  accessModes: [ReadWriteOnce]\n  storageClassName: zonal\n"
             "  csi: {driver: csi.example.com, volumeHandle: pv-b}\n  claimRef: {namespace: default, name: c}\n"
             "  nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: "
             "[{key: topology.kubernetes.io/zone, operator: In, values: [b]}]}]}}\n",
             claim("c", "1Gi", "zonal", extra="  volumeName: pv-b\n"),
             pod("p", "  - {name: d, persistentVolumeClaim: {claimName: c}}\n")]
    return docs


def test_volume_binding_works_out_one_answer_per_zone_not_per_node(monkeypatch):
    calls: list[str] = []
    real = VolumeBinder.find_pod_volumes

    def counted(self, pod, claims, node):
        calls.append(node.name)
        return real(self, pod, claims, node)

    monkeypatch.setattr(VolumeBinder, "find_pod_volumes", counted)
    sim = Simulation(load_scenario_text("---\n".join(zonal_pv_docs(4))))
    sim.run()
    record = sim.scheduler.cluster.records["default/p"]
    assert record.node.startswith("n-b-")
    assert len(calls) == 3  # one node of each zone, of 12 nodes


def test_the_allocator_searches_again_only_where_devices_changed(monkeypatch):
    searched: list[str] = []
    real = allocator_module._Attempt.run

    def counted(self):
        searched.append(self.node.name)
        return real(self)

    monkeypatch.setattr(allocator_module._Attempt, "run", counted)
    gpus = [f"g{i}" for i in range(4)]
    docs = [CLASS, TEMPLATE]
    for i in range(5):
        docs += [gpu_node(f"n{i}"), gpu_slice(f"n{i}", *gpus)]
    docs += [gpu_pod("p1"), gpu_pod("p2"), gpu_pod("p3")]
    sim = Simulation(load_scenario_text("\n---\n".join(docs)))
    assert sim.run()
    placed = [sim.scheduler.cluster.records[f"default/p{i}"].node for i in (1, 2, 3)]
    assert all(placed)
    # The first pod searches every node; each later one only the node the one before went to.
    assert searched[:5] == [f"n{i}" for i in range(5)]
    assert searched[5:] == placed[:2]


def _outcome(text: str) -> list[tuple[str, str | None, str | None]]:
    sim = Simulation(load_scenario_text(text))
    sim.run()
    return [(p["name"], p["node"], p["message"]) for p in sim.result(True)["pods"]]


def _switch_shortcuts_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """Node by node everywhere: the base filter walk, a per-node binder answer, no kept
    allocator answers, and no volume-count bound (counts so large that it never decides)."""
    for plugin in (CSILimits, VolumeBinding, VolumeZone, DynamicResources):
        monkeypatch.setattr(plugin, "filter_nodes", FilterPlugin.filter_nodes)
    real_dependence = volume_binding_module.node_dependence
    monkeypatch.setattr(volume_binding_module, "node_dependence",
                        lambda binder, claims: (real_dependence(binder, claims)[0], True))
    monkeypatch.setattr(allocator_module.Allocator, "_remembered",
                        lambda self, node, claims: allocator_module._Attempt(self, node, claims).run())
    real_update = NodeInfo._update

    def no_bound(self, pi, sign):
        real_update(self, pi, sign)
        self.volume_count = 10**9

    monkeypatch.setattr(NodeInfo, "_update", no_bound)


@pytest.mark.parametrize("only", generate_storage.KINDS)
def test_the_storage_benchmark_input_places_every_pod_as_node_by_node_filtering_does(monkeypatch, only):
    monkeypatch.setattr(generate_storage, "VOLUME_LIMIT", 2)  # reached: 40 pods with volumes on 12 nodes
    text = generate_storage.render(12, 120, only)
    fast = _outcome(text)
    assert any("exceed max volume count" in (m or "") for _, _, m in fast) == (only != "devices")
    with monkeypatch.context() as m:
        _switch_shortcuts_off(m)
        slow = _outcome(text)
    assert fast == slow
