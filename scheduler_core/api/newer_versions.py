"""What Kubernetes v1.36 and v1.37 changed that a scheduling outcome could depend on, as data.

The engine simulates kube-scheduler v1.35.4 and is checked against recordings of that
scheduler; no v1.36 or v1.37 scheduler can be recorded here. So nothing below is simulated
unless v1.35.4 has the very same meaning under another name (a DeviceTaintRule served at
resource.k8s.io/v1 has v1alpha3's fields and meaning). Each entry names its source: the
release-note entry (pull request number) or the KEP, from the v1.36 and v1.37 release notes'
scheduling, DRA and storage entries.

One home for these facts: the loader's notes on newer objects and fields
(`scheduler_core.loader.newer_kinds`), the feature-gate notes
(`scheduler_core.loader.newer_gates`), the "Reading an older article?" page and the run page's
notice all read this module.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["NewerKind", "NewerField", "NewerGate", "Change", "SIMULATED_VERSION",
           "NEWER_KINDS", "NEWER_FIELDS", "CONTEXT_FIELDS", "NEWER_GATES", "CHANGES",
           "newer_kind", "changes_touched"]

SIMULATED_VERSION = "v1.35.4"


@dataclass(frozen=True)
class NewerKind:
    """A kind at an apiVersion that v1.36 or v1.37 serves and v1.35.4 does not."""

    kind: str
    api_version: str
    release: str  # the release that introduced it at this apiVersion, e.g. "v1.37"
    source: str  # release-note entry or KEP
    # The v1.35.4 apiVersion read in its place when the fields and meaning are the same; None:
    # the object is accepted and left out of the run (not simulated).
    simulated_as: str | None
    instead: str  # what the simulated version does instead, in words


@dataclass(frozen=True)
class NewerField:
    """A field v1.36 or v1.37 added to a kind v1.35.4 reads; accepted, left out of the run."""

    kind: str
    path: str  # dotted, "[]" for every list item
    release: str
    source: str
    instead: str


@dataclass(frozen=True)
class NewerGate:
    """A feature gate v1.36 or v1.37 added, removed or renamed."""

    name: str
    release: str
    source: str
    note: str  # what the gate is or became in v1.37, and what v1.35.4 does with the name


@dataclass(frozen=True)
class Change:
    """A scheduler change of v1.36 or v1.37 a run's outcome could depend on."""

    title: str
    gate_or_api: str
    release: str
    source: str
    simulated: bool  # only when v1.35.4 behaves the same
    effect: str  # what changed, and what the playground does
    kinds: tuple[str, ...] = ()  # a scenario holding one of these kinds touches the change
    fields: tuple[str, ...] = ()  # "Kind:path" a scenario may set
    gates: tuple[str, ...] = ()  # gate names a run may set


_WAS = "KEP-4671 (#136976 v1alpha2, #138572 v1alpha3, #140184 v1beta1)"
_WORKLOAD_INSTEAD = ("not simulated: v1.35.4 reads a Workload only at scheduling.k8s.io/v1alpha1 "
                     "(spec.podGroups, named by pods in spec.workloadRef); the newer Workload's pod "
                     "groups live in separate PodGroup objects")
_PODGROUP_INSTEAD = ("not simulated: v1.35.4 has no PodGroup object and no PodGroup scheduling "
                     "cycle; its gangs are the pod groups of a scheduling.k8s.io/v1alpha1 Workload, "
                     "scheduled pod by pod at Permit")
_TAINT_RULE_AS = ("simulated as a resource.k8s.io/v1alpha3 DeviceTaintRule (same fields and meaning), "
                  "which v1.35.4 reads only with DRADeviceTaints and DRADeviceTaintRules on (Alpha, off "
                  "by default)")

NEWER_KINDS: tuple[NewerKind, ...] = (
    NewerKind("Workload", "scheduling.k8s.io/v1alpha2", "v1.36", _WAS, None, _WORKLOAD_INSTEAD),
    NewerKind("Workload", "scheduling.k8s.io/v1alpha3", "v1.37", _WAS, None, _WORKLOAD_INSTEAD),
    NewerKind("Workload", "scheduling.k8s.io/v1beta1", "v1.37", _WAS, None, _WORKLOAD_INSTEAD),
    NewerKind("PodGroup", "scheduling.k8s.io/v1alpha2", "v1.36", _WAS, None, _PODGROUP_INSTEAD),
    NewerKind("PodGroup", "scheduling.k8s.io/v1alpha3", "v1.37", _WAS, None, _PODGROUP_INSTEAD),
    NewerKind("PodGroup", "scheduling.k8s.io/v1beta1", "v1.37", _WAS, None, _PODGROUP_INSTEAD),
    NewerKind("CompositePodGroup", "scheduling.k8s.io/v1alpha3", "v1.37", "release note #139596",
              None, "not simulated: v1.35.4 has no composite pod groups"),
    NewerKind("DeviceTaintRule", "resource.k8s.io/v1beta2", "v1.36",
              "release note #137170, KEP-5055", "resource.k8s.io/v1alpha3", _TAINT_RULE_AS),
    NewerKind("DeviceTaintRule", "resource.k8s.io/v1", "v1.37",
              "release note #138676, KEP-5055", "resource.k8s.io/v1alpha3", _TAINT_RULE_AS),
    NewerKind("ResourcePoolStatusRequest", "resource.k8s.io/v1alpha1", "v1.36",
              "release note #137028, KEP-5677", None,
              "not simulated: a query of pool availability, which no scheduling decision reads"),
)

NEWER_FIELDS: tuple[NewerField, ...] = (
    NewerField("Pod", "spec.schedulingGroup", "v1.36", _WAS,
               "not simulated: v1.35.4 places a pod in a gang through spec.workloadRef "
               "(a scheduling.k8s.io/v1alpha1 Workload and one of its pod groups)"),
    NewerField("Pod", "status.nodeAllocatableResourceClaimStatuses", "v1.36",
               "release notes #138030, #139876", "not simulated: the kubelet's report"),
    NewerField("ResourceSlice", "spec.devices[].nativeResourceMappings", "v1.36",
               "release note #136725 (DRANativeResources, Alpha)",
               "not simulated: v1.35.4 counts no native resources through DRA devices"),
)

# Fields v1.35.4 reads too, whose status changed later: noted only in a scenario that holds
# something newer (a newer cluster's dump), so v1.35 manifests get no extra lines.
CONTEXT_FIELDS: tuple[NewerField, ...] = (
    NewerField("Node", "status.declaredFeatures", "v1.37",
               "release notes #136042 (Beta in v1.36), #139763 (GA in v1.37)",
               "simulated as v1.35.4 reads it: the NodeDeclaredFeatures filter uses it only with the "
               "NodeDeclaredFeatures gate on (Alpha, off by default in v1.35)"),
    NewerField("DeviceClass", "spec.extendedResourceName", "v1.37",
               "release notes #135048 (Beta in v1.36), #138488 (GA in v1.37)",
               "simulated as v1.35.4 reads it: only with the DRAExtendedResource gate on (Alpha, off "
               "by default in v1.35)"),
)

NEWER_GATES: tuple[NewerGate, ...] = (
    NewerGate("GangScheduling", "v1.37", "release note #139520",
              "removed in v1.37, folded into GenericWorkload (Beta, off by default in v1.37); "
              "v1.35.4 still has it (Alpha) and simulates it"),
    NewerGate("WorkloadAwarePreemption", "v1.37", "release notes #137606 (v1.36), #139520 (v1.37)",
              "added in v1.36 and removed in v1.37, folded into GenericWorkload; unknown to v1.35.4, "
              "whose preemption is pod by pod"),
    NewerGate("TopologyAwareWorkloadScheduling", "v1.36", "release notes #136944, #137271",
              "Alpha in v1.36 and v1.37 (placement-based PodGroup scheduling); unknown to v1.35.4"),
    NewerGate("DRAListTypeAttributes", "v1.36", "release note #137190, KEP-5491",
              "Alpha in v1.36; unknown to v1.35.4, whose device attributes are scalars"),
    NewerGate("DRANativeResources", "v1.36", "release note #136725",
              "Alpha in v1.36; unknown to v1.35.4"),
    NewerGate("DRAResourcePoolStatus", "v1.36", "release note #137028, KEP-5677",
              "Alpha in v1.36 and v1.37; unknown to v1.35.4 (no scheduling effect)"),
    NewerGate("DRAWorkloadResourceClaims", "v1.36", "release notes #136989, #140334",
              "Beta but off by default in v1.37; unknown to v1.35.4"),
    NewerGate("SchedulerPreQueueingHints", "v1.37", "release notes #138916, #140959",
              "Alpha, off by default in v1.37; unknown to v1.35.4"),
    NewerGate("InterPodAffinityHostnameFastPath", "v1.37", "release note #138198",
              "a speed-up of required inter-pod (anti-)affinity by hostname in v1.37; unknown to "
              "v1.35.4"),
    NewerGate("CompositePodGroup", "v1.37", "release note #139407",
              "Alpha in v1.37; unknown to v1.35.4"),
    NewerGate("PodGroupPreemptionPolicy", "v1.37", "release note #140359",
              "v1.37; unknown to v1.35.4"),
    NewerGate("DRADeviceCompatibilityGroups", "v1.37", "release note #139795",
              "Alpha, off by default in v1.37; unknown to v1.35.4"),
    NewerGate("InPlacePodVerticalScalingSchedulerPreemption", "v1.37", "release note #140000",
              "Alpha in v1.37; unknown to v1.35.4"),
)

_PODGROUP_KINDS = ("PodGroup", "CompositePodGroup")

CHANGES: tuple[Change, ...] = (
    Change("Workload and PodGroup APIs, with a PodGroup scheduling cycle",
           "scheduling.k8s.io/v1beta1 Workload, PodGroup; pod spec.schedulingGroup", "v1.36 → v1.37",
           f"{_WAS}; release note #136618", False,
           "All pods of a PodGroup are tried in one cycle. The playground runs v1.35.4's gang "
           "scheduling instead (a v1alpha1 Workload, pods held at Permit until minCount are placed).",
           kinds=_PODGROUP_KINDS + ("Workload",), fields=("Pod:spec.schedulingGroup",)),
    Change("GangScheduling and WorkloadAwarePreemption folded into GenericWorkload",
           "GenericWorkload (Beta, off by default)", "v1.37", "release note #139520", False,
           "Workload-aware scheduling is one gate in v1.37. The playground keeps v1.35.4's two gates, "
           "GenericWorkload and GangScheduling.", gates=("GangScheduling", "WorkloadAwarePreemption")),
    Change("Workload-aware preemption and the PodGroupPostFilter extension point",
           "PodGroupPostFilter; PodGroup priority, disruptionMode, preemptionPolicy", "v1.36 → v1.37",
           "release notes #137606, #139674, #140412, #139980", False,
           "When a whole PodGroup cannot be placed, preemption runs for the group. The playground "
           "preempts pod by pod, as v1.35.4 does.", kinds=_PODGROUP_KINDS,
           gates=("WorkloadAwarePreemption",)),
    Change("PlacementFeasible: a PodGroup cycle stops once minCount cannot be met",
           "PlacementFeasible extension point", "v1.37", "release note #138643", False,
           "Ends a PodGroup cycle early; not simulated.", kinds=_PODGROUP_KINDS),
    Change("Topology-aware (placement-based) PodGroup scheduling",
           "TopologyAwareWorkloadScheduling (Alpha)", "v1.36", "release notes #136944, #137271, #137489",
           False, "PodGroups placed on nodes sharing a topology domain; not simulated.",
           kinds=_PODGROUP_KINDS, gates=("TopologyAwareWorkloadScheduling",)),
    Change("NodeResourcesBalancedAllocation scores balance with and without the pod",
           "NodeResourcesBalancedAllocation", "v1.36", "release note #135573", False,
           "Scores, and so some placements, differ from v1.35.4's, which the playground simulates."),
    Change("DRA device taints GA; DeviceTaintRule at resource.k8s.io/v1",
           "DRADeviceTaints, DRADeviceTaintRules", "v1.36 Beta, v1.37 GA", "release notes #137170, #138676",
           False, "On by default in v1.37. The playground reads a v1 DeviceTaintRule as v1.35.4's "
           "v1alpha3 one, applied only with both gates on (Alpha in v1.35).",
           kinds=("DeviceTaintRule",), gates=("DRADeviceTaints", "DRADeviceTaintRules")),
    Change("DRA extended resources GA", "DRAExtendedResource; DeviceClass spec.extendedResourceName",
           "v1.36 Beta, v1.37 GA", "release notes #135048, #138488", False,
           "On by default in v1.37; v1.35.4 uses extendedResourceName only with the Alpha gate on.",
           fields=("DeviceClass:spec.extendedResourceName",), gates=("DRAExtendedResource",)),
    Change("DRA prioritized list and admin access GA; consumable capacity on by default",
           "DRAPrioritizedList, DRAAdminAccess, DRAConsumableCapacity", "v1.36",
           "release notes #136924, #137373, #136611", False,
           "Defaults differ from v1.35.4's; the playground uses v1.35.4's defaults.",
           gates=("DRAPrioritizedList", "DRAAdminAccess", "DRAConsumableCapacity")),
    Change("DRA list-type device attributes and .includes()", "DRAListTypeAttributes (Alpha)", "v1.36",
           "release note #137190, KEP-5491", False, "Not simulated.", gates=("DRAListTypeAttributes",)),
    Change("Node declared features GA", "NodeDeclaredFeatures; node status.declaredFeatures",
           "v1.36 Beta, v1.37 GA", "release notes #136042, #139763", False,
           "On in v1.37; the playground filters on declared features only with the gate on (Alpha in "
           "v1.35).", fields=("Node:status.declaredFeatures",), gates=("NodeDeclaredFeatures",)),
    Change("StorageCapacityScoring on by default", "StorageCapacityScoring (Beta, on)", "v1.36 → v1.37",
           "v1.37 feature-gate table", False,
           "v1.37 scores nodes by free storage capacity by default; v1.35.4 only with the gate on.",
           kinds=("CSIStorageCapacity",), gates=("StorageCapacityScoring",)),
    Change("SchedulerAsyncAPICalls turned off", "SchedulerAsyncAPICalls", "v1.36", "release note #135903",
           False, "API calls are made synchronously again; the order of binds seen in events can differ.",
           gates=("SchedulerAsyncAPICalls",)),
    Change("PreBind plugins may run in parallel", "PreBindPreFlight AllowParallel", "v1.36",
           "release note #135393", False,
           "Binding latency only; placements are unchanged. Not simulated."),
    Change("Pods preempted during PreBind or WaitOnPermit go to the backoff queue",
           "preemption", "v1.36", "release notes #135502, #135719", False,
           "Requeue timing differs from v1.35.4's; not simulated."),
    Change("Preemption message in FailedScheduling", "DefaultPreemption", "v1.37", "release note #140180",
           False, "v1.37 adds \"preemption: found a potential placement ...\" to the event text; the "
                  "playground prints v1.35.4's text."),
)


def newer_kind(kind: str, api_version: str) -> NewerKind | None:
    """The entry for this kind at this apiVersion, or None when v1.35.4 serves it (or nobody)."""
    for entry in NEWER_KINDS:
        if entry.kind == kind and entry.api_version == api_version:
            return entry
    return None


def changes_touched(kinds: set[str], fields: set[str], gates: set[str]) -> list[Change]:
    """The changes a scenario touches: it holds one of their kinds, sets one of their fields
    ("Kind:path"), or its run sets one of their gates."""
    return [c for c in CHANGES
            if kinds.intersection(c.kinds) or fields.intersection(c.fields) or gates.intersection(c.gates)]
