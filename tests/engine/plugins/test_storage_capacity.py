"""CSIStorageCapacity and VolumeBinding's capacity paths: the loader's kind (defaults, strict
validation, export), the Filter's capacity check for dynamic provisioning (GA: every run, only
for a CSIDriver with `storageCapacity: true`), and the alpha StorageCapacityScoring Score, gate
on vs off."""

from __future__ import annotations

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.api.export import dump_scenario
from scheduler_core.framework.interface import PluginArgsError
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation
from scheduler_core.view.storage import storage_view


def node(name: str, cpu: str = "4", zone: str = "a") -> str:
    return (f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: "
            f"{{kubernetes.io/hostname: {name}, topology.kubernetes.io/zone: {zone}}}}}\n"
            f"status: {{capacity: {{cpu: '{cpu}', memory: 64Gi}}}}\n")


DRIVER = ("apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata: {name: lvm.csi.example.com}\n"
          "spec: {storageCapacity: true}\n")
CLASS = ("apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: lvm}\n"
         "provisioner: lvm.csi.example.com\nvolumeBindingMode: WaitForFirstConsumer\n")


def capacity(name: str, host: str | None, size: str | None, extra: str = "", cls: str = "lvm") -> str:
    topo = f"nodeTopology: {{matchLabels: {{kubernetes.io/hostname: {host}}}}}\n" if host else ""
    cap = f"capacity: {size}\n" if size else ""
    return (f"apiVersion: storage.k8s.io/v1\nkind: CSIStorageCapacity\n"
            f"metadata: {{name: {name}, namespace: kube-system}}\nstorageClassName: {cls}\n{topo}{cap}{extra}")


def claim(name: str, size: str, cls: str = "lvm") -> str:
    return (f"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {{name: {name}}}\n"
            f"spec: {{accessModes: [ReadWriteOnce], storageClassName: {cls}, "
            f"resources: {{requests: {{storage: {size}}}}}}}\n")


def pod(name: str, claim_name: str, cpu: str = "1") -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n"
            f"  containers: [{{name: c, image: pause, resources: {{requests: {{cpu: '{cpu}'}}}}}}]\n"
            f"  volumes: [{{name: d, persistentVolumeClaim: {{claimName: {claim_name}}}}}]\n")


def run(*docs: str, gates: str = "") -> dict[str, dict]:
    sim = Simulation(load_scenario_text("---\n".join(docs)), feature_gates=gates)
    sim.run()
    return {p["name"]: p for p in sim.result(True)["pods"]}


# ---- the kind ------------------------------------------------------------------------------------
def test_capacity_loads_and_round_trips() -> None:
    sc = load_scenario_text("---\n".join([
        node("n1"), DRIVER, CLASS,
        capacity("c1", "n1", "10Gi", "maximumVolumeSize: 5Gi\n"),
        capacity("nowhere", None, None)]))
    by = {c.name: c for c in sc.storage.capacities}
    assert by["c1"].capacity == 10 * 2**30 and by["c1"].volume_limit == 5 * 2**30
    assert by["c1"].namespace == "kube-system" and by["c1"].node_topology.matches({"kubernetes.io/hostname": "n1"})
    assert by["nowhere"].node_topology is None and by["nowhere"].volume_limit is None
    again = load_scenario_text(dump_scenario(sc))
    assert again.storage.capacities == sc.storage.capacities


@pytest.mark.parametrize(("doc", "field", "text"), [
    (capacity("c", "n1", "-1Gi"), "capacity", 'Invalid value: "-1Gi": must be greater than or equal to 0'),
    (capacity("c", "n1", "1Gi", cls="Bad_Name"), "storageClassName", 'Invalid value: "Bad_Name": a lowercase RFC 1123'),
    (capacity("c", "n1", "1Gi", cls='""'), "storageClassName", 'Invalid value: "": a lowercase RFC 1123'),
    (capacity("c", "n1", "1Gi", "capacityy: 1\n"), "capacityy", "unknown field"),
    (capacity("c", "n1", "lots"), "capacity", 'invalid quantity "lots"'),
])
def test_invalid_capacity_is_refused_with_a_located_error(doc: str, field: str, text: str) -> None:
    with pytest.raises(ScenarioError) as e:
        load_scenario_text("---\n".join([node("n1"), doc]))
    msg = str(e.value)
    assert "CSIStorageCapacity" in msg and field in msg and text in msg, msg


# ---- Filter: the capacity check for provisioning (every run) ---------------------------------
def test_provisioning_needs_a_reachable_capacity_that_is_large_enough() -> None:
    pods = run(node("n1", cpu="64"), node("n2"), node("n3", cpu="64"), DRIVER, CLASS,
               capacity("on-n1", "n1", "5Gi"), capacity("on-n2", "n2", "50Gi"),
               claim("data", "10Gi"), pod("p", "data"))
    assert (pods["p"]["status"], pods["p"]["node"]) == ("Bound", "n2")


def test_no_capacity_anywhere_is_upstreams_not_enough_storage() -> None:
    pods = run(node("n1"), node("n2"), DRIVER, CLASS, capacity("on-n1", "n1", "5Gi"),
               capacity("nowhere", None, "1Ti"), claim("data", "10Gi"), pod("p", "data"))
    assert pods["p"]["status"] == "Pending"
    assert pods["p"]["message"].startswith("0/2 nodes are available: 2 node(s) did not have enough free storage.")


def test_maximum_volume_size_wins_over_capacity_and_other_classes_do_not_count() -> None:
    pods = run(node("n1"), DRIVER, CLASS, capacity("c", "n1", "100Gi", "maximumVolumeSize: 5Gi\n"),
               capacity("other", "n1", "100Gi", cls="other"), claim("data", "10Gi"), pod("p", "data"))
    assert "did not have enough free storage" in pods["p"]["message"]


def test_a_driver_without_storage_capacity_is_not_checked() -> None:
    pods = run(node("n1"), DRIVER.replace("storageCapacity: true", "storageCapacity: false"), CLASS,
               claim("data", "10Gi"), pod("p", "data"))
    assert (pods["p"]["status"], pods["p"]["node"]) == ("Bound", "n1")


# ---- Score: StorageCapacityScoring -------------------------------------------------------------
SCORED = (node("small-disk", cpu="64"), node("big-disk", cpu="4"), DRIVER, CLASS,
          capacity("s", "small-disk", "11Gi"), capacity("b", "big-disk", "100Gi"),
          claim("data", "10Gi"), pod("p", "data"))


def test_scoring_prefers_the_node_with_most_room_only_with_its_gate() -> None:
    assert run(*SCORED)["p"]["node"] == "small-disk"  # off: CPU room decides
    assert run(*SCORED, gates="StorageCapacityScoring=true")["p"]["node"] == "big-disk"


def test_scoring_uses_the_configured_shape() -> None:
    cfg = ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
           "- pluginConfig:\n  - name: VolumeBinding\n    args: {shape: [{utilization: 0, score: 0}, "
           "{utilization: 100, score: 10}]}\n")
    # Most utilised first: 10Gi of 11Gi beats 10Gi of 100Gi.
    assert run(*SCORED, cfg, gates="StorageCapacityScoring=true")["p"]["node"] == "small-disk"
    with pytest.raises(PluginArgsError, match="unexpected field `shape`, remove it or turn on the feature gate "
                                              "StorageCapacityScoring"):
        run(*SCORED, cfg)


def test_invalid_shape_is_a_located_config_error() -> None:
    cfg = ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
           "- pluginConfig:\n  - name: VolumeBinding\n    args: {shape: [{utilization: 50, score: 1}, "
           "{utilization: 40, score: 11}]}\n")
    with pytest.raises(ScenarioError) as e:
        load_scenario_text("---\n".join([*SCORED, cfg]))
    msg = str(e.value)
    assert "args.shape[1].utilization: Invalid value: 40: values must be sorted in increasing order" in msg
    assert "args.shape[1].score: Invalid value: 11: not in valid range [0, 10]" in msg


def test_static_bindings_are_scored_by_the_pv_that_would_bind() -> None:
    def local_pv(name: str, size: str, host: str) -> str:
        return (f"apiVersion: v1\nkind: PersistentVolume\nmetadata: {{name: {name}}}\nspec:\n"
                f"  capacity: {{storage: {size}}}\n  accessModes: [ReadWriteOnce]\n  storageClassName: local\n"
                f"  local: {{path: /mnt/{name}}}\n  nodeAffinity: {{required: {{nodeSelectorTerms: "
                f"[{{matchExpressions: [{{key: kubernetes.io/hostname, operator: In, values: [{host}]}}]}}]}}}}\n")
    local = ("apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: local}\n"
             "provisioner: kubernetes.io/no-provisioner\nvolumeBindingMode: WaitForFirstConsumer\n")
    docs = (node("roomy", cpu="4"), node("tight", cpu="64"), local, local_pv("big", "100Gi", "roomy"),
            local_pv("snug", "10Gi", "tight"), claim("data", "10Gi", "local"), pod("p", "data"))
    assert run(*docs)["p"]["node"] == "tight"
    assert run(*docs, gates="StorageCapacityScoring=true")["p"]["node"] == "roomy"


def test_storage_view_lists_capacities_only_when_there_are_some() -> None:
    sim = Simulation(load_scenario_text("---\n".join(SCORED)))
    rows = storage_view(sim.scheduler)["storageCapacities"]
    assert rows[0] == {"key": "kube-system/b", "class": "lvm", "where": "kubernetes.io/hostname=big-disk",
                       "capacity": "100Gi", "maximumVolumeSize": ""}
    plain = Simulation(load_scenario_text("---\n".join([node("n1"), CLASS, claim("data", "1Gi")])))
    assert "storageCapacities" not in storage_view(plain.scheduler)


# ---- NodeVolumeLimits: VolumeLimitScaling ----------------------------------------------------------
def csi_node(name: str, drivers: str) -> str:
    return f"apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata: {{name: {name}}}\nspec: {{drivers: [{drivers}]}}\n"


SCALING = (node("has-driver", cpu="4"), node("no-driver", cpu="64"), node("no-csinode", cpu="64"),
           csi_node("has-driver", "{name: lvm.csi.example.com, nodeID: a}"),
           csi_node("no-driver", "{name: other.csi.example.com, nodeID: b}"),
           DRIVER.replace("storageCapacity: true", "storageCapacity: false"), CLASS,
           claim("data", "10Gi"), pod("p", "data"))


def test_volume_limit_scaling_needs_the_driver_on_the_node_only_with_its_gate() -> None:
    off = run(*SCALING)["p"]
    assert off["status"] == "Bound" and off["node"] in ("no-driver", "no-csinode")
    on = run(*SCALING, "apiVersion: v1\nkind: Pod\nmetadata: {name: q}\nspec:\n"
             "  nodeSelector: {kubernetes.io/hostname: no-driver}\n"
             "  containers: [{name: c, image: pause}]\n"
             "  volumes: [{name: d, persistentVolumeClaim: {claimName: data2}}]\n",
             claim("data2", "1Gi"), gates="VolumeLimitScaling=true")
    assert (on["p"]["status"], on["p"]["node"]) == ("Bound", "has-driver")
    assert on["q"]["status"] == "Pending"
    assert ("1 lvm.csi.example.com CSI driver is not installed on the node" in on["q"]["message"]), on["q"]["message"]


def test_volume_limit_scaling_ignores_a_provisioner_without_a_csidriver_object() -> None:
    docs = [d for d in SCALING if "kind: CSIDriver" not in d]
    on = run(*docs, gates="VolumeLimitScaling=true")["p"]
    assert on["status"] == "Bound" and on["node"] in ("no-driver", "no-csinode")
