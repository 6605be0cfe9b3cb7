"""Every gate upstream v1.35.4's scheduler reads is simulated both ways or refused, never accepted
and ignored. DRAPrioritizedList=false: a claim with `firstAvailable` keeps its pod Pending with
DynamicResources' PreFilter message naming the gate; DRAAdminAccess=false: an `adminAccess`
request fails the allocator in Filter with its message (the run's gates are kube-scheduler's: the
API server keeps the fields, as in the conformance recorder)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from scheduler_core.__main__ import main
from scheduler_core.featuregate import SCHEDULER_GATES, FeatureGateError, parse_feature_gates, spec_at
from scheduler_core.featuregate.simulated import NOT_SIMULATED, SAME_EITHER_WAY
from scheduler_core.loader import load_scenario_file, load_scenario_text
from scheduler_core.simulation import Simulation

ROOT = Path(__file__).resolve().parents[3]
DRA_GPUS = ROOT / "playground" / "gallery" / "dra-gpus.yaml"

ADMIN = """
apiVersion: v1
kind: Namespace
metadata: {name: ops, labels: {resource.kubernetes.io/admin-access: "true"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {capacity: {cpu: "4", memory: 8Gi}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpu}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices: [{name: g0}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: monitor, namespace: ops}
spec:
  devices:
    requests:
    - name: r
      exactly: {deviceClassName: gpu, adminAccess: true}
---
apiVersion: v1
kind: Pod
metadata: {name: watcher, namespace: ops}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: monitor}]
  containers: [{name: c, image: i, resources: {claims: [{name: gpu}]}}]
"""

# Every gate code under v1.35.4's pkg/scheduler reads (`features.X` there, plugins' feature.Features
# included), as listed from the vendored source.
UPSTREAM_SCHEDULER_GATES = {
    "SchedulerQueueingHints", "DynamicResourceAllocation", "OpportunisticBatching", "DRAExtendedResource",
    "TaintTolerationComparisonOperators", "NodeDeclaredFeatures", "DRAConsumableCapacity",
    "StorageCapacityScoring", "PodLevelResources", "InPlacePodVerticalScaling",
    "InPlacePodLevelResourcesVerticalScaling", "GenericWorkload", "GangScheduling", "SchedulerAsyncPreemption",
    "SchedulerAsyncAPICalls", "DRASchedulerFilterTimeout", "DRAResourceClaimDeviceStatus",
    "DRADeviceBindingConditions", "VolumeLimitScaling", "VolumeAttributesClass", "SidecarContainers",
    "SchedulerPopFromBackoffQ", "NominatedNodeNameForExpectation", "NodeInclusionPolicyInPodTopologySpread",
    "MatchLabelKeysInPodTopologySpread", "DRAPrioritizedList", "DRAPartitionableDevices", "DRADeviceTaints",
    "DRADeviceTaintRules", "DRAAdminAccess", "CSIMigrationPortworx",
}


def _pods(scenario: Any, gates: str = "") -> dict[str, dict[str, Any]]:
    sim = Simulation(scenario, feature_gates=gates)
    return {p["name"]: p for p in sim.result(sim.run(600.0))["pods"]}


def test_prioritized_list_off_keeps_first_available_claims_pending() -> None:
    pods = _pods(load_scenario_file(DRA_GPUS), "DRAPrioritizedList=false")
    for name, claim in (("train", "train-gpu"), ("train-2", "train-2-gpu")):
        assert pods[name]["status"] == "Pending"
        assert pods[name]["message"].startswith(
            f"0/3 nodes are available: resource claim default/{claim}, request gpu: has subrequests, "
            "but the DRAPrioritizedList feature is disabled. "), pods[name]["message"]
    # Claims without firstAvailable are allocated as before.
    assert {n: pods[n]["node"] for n in ("finetune", "infer-1", "infer-2")} == {
        "finetune": "gpu-b", "infer-1": "gpu-a", "infer-2": "gpu-a"}


def test_prioritized_list_on_allocates_them() -> None:
    pods = _pods(load_scenario_file(DRA_GPUS))
    assert (pods["train"]["status"], pods["train"]["node"]) == ("Bound", "gpu-a")


def test_admin_access_off_fails_the_allocator_in_filter() -> None:
    pods = _pods(load_scenario_text(ADMIN), "DRAAdminAccess=false")
    assert pods["watcher"]["status"] == "Pending"
    assert pods["watcher"]["message"] == (
        'running "DynamicResources" filter plugin: claim ops/monitor, request r: admin access is requested, '
        "but the feature is disabled")
    assert _pods(load_scenario_text(ADMIN))["watcher"]["node"] == "n1"


@pytest.mark.parametrize(("value", "version", "message"), [
    ("SchedulerAsyncAPICalls=true", "v1.35", "cannot set feature gate SchedulerAsyncAPICalls to true: not simulated "
     "by this engine (API calls complete at once here, without a dispatcher)"),
    ("NominatedNodeNameForExpectation=false", "v1.35", "cannot set feature gate NominatedNodeNameForExpectation "
     "to false: not simulated by this engine"),
    ("MatchLabelKeysInPodTopologySpread=false,MatchLabelKeysInPodTopologySpreadSelectorMerge=false", "v1.35",
     "MatchLabelKeysInPodTopologySpread to false: not simulated"),
    ("VolumeAttributesClass=false", "v1.35", "VolumeAttributesClass to false: not simulated"),
    ("DRADeviceBindingConditions=true", "v1.35", "DRADeviceBindingConditions to true: not simulated"),
    ("SidecarContainers=false", "v1.30", "SidecarContainers to false: not simulated"),
    ("InPlacePodVerticalScaling=true", "v1.30", "InPlacePodVerticalScaling to true: not simulated"),
    ("CSIMigrationPortworx=true", "v1.30", "CSIMigrationPortworx to true: not simulated"),
    # Upstream's own refusal comes first.
    ("SidecarContainers=false", "v1.35", "cannot set feature gate SidecarContainers to false, feature is locked"),
])
def test_values_not_simulated_are_refused(value: str, version: str, message: str) -> None:
    with pytest.raises(FeatureGateError) as info:
        parse_feature_gates(value, version)
    assert message in str(info.value)


def test_a_value_equal_to_the_default_is_no_refusal() -> None:
    assert parse_feature_gates("SchedulerAsyncAPICalls=false,VolumeAttributesClass=true", "v1.35") == {}


def test_cli_refuses_a_gate_it_does_not_simulate(tmp_path, capsys) -> None:
    f = tmp_path / "s.yaml"
    f.write_text("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n")
    assert main(["simulate", str(f), "--feature-gates", "SchedulerAsyncAPICalls=true"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (
        'error: invalid argument "SchedulerAsyncAPICalls=true" for "--feature-gates" flag: cannot set feature gate '
        "SchedulerAsyncAPICalls to true: not simulated by this engine (API calls complete at once here, without "
        "a dispatcher)\n")


def test_every_gate_the_upstream_scheduler_reads_is_classified() -> None:
    """Simulated both ways, refused where not, or alike either way (with the reason): never left
    to be accepted and ignored."""
    honoured, refused, same = set(SCHEDULER_GATES), set(NOT_SIMULATED), set(SAME_EITHER_WAY)
    assert not (honoured & refused) and not (honoured & same) and not (refused & same)
    assert UPSTREAM_SCHEDULER_GATES - honoured - refused - same == set()
    for gate in UPSTREAM_SCHEDULER_GATES:
        assert spec_at(gate, "v1.35") is not None, gate
