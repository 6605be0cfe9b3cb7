"""The fields each accepted kind has, from the Kubernetes API types (k8s.io/api core/v1, apps/v1,
batch/v1, policy/v1, scheduling/v1, apimachinery ObjectMeta) and the scheduler's config API.

A field's entry says what the playground does with it:

* a dict: an object whose own fields are checked the same way;
* a one-element list: an array of that;
* `SIMULATED`: read by the loader (its value is validated there); nothing below it is checked
  here (label maps, resource lists, free-form plugin args);
* `NOT_SIMULATED`: a real Kubernetes field the playground accepts but does not model; a
  non-empty value is reported once as a warning, never silently dropped.

Anything else is an unknown field and an error, as `kubectl apply --validate=strict` makes it.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.loader.workload_v1alpha1 import WORKLOAD_REF_SCHEMA, WORKLOAD_SCHEMA_SPEC

__all__ = ["SIMULATED", "NOT_SIMULATED", "KIND_SCHEMAS", "POD_SCHEMA", "NODE_SCHEMA",
           "NAMESPACED_KINDS"]

SIMULATED: Any = None
NOT_SIMULATED = "not simulated"


def _ignored(*names: str) -> dict[str, Any]:
    return dict.fromkeys(names, NOT_SIMULATED)


OWNER_REFERENCE = {
    "apiVersion": SIMULATED, "kind": SIMULATED, "name": SIMULATED, "uid": SIMULATED,
    "controller": SIMULATED, **_ignored("blockOwnerDeletion"),
}
OBJECT_META = {
    "name": SIMULATED, "generateName": SIMULATED, "namespace": SIMULATED, "labels": SIMULATED,
    "annotations": SIMULATED, "ownerReferences": [OWNER_REFERENCE],
    **_ignored("selfLink", "uid", "resourceVersion", "generation", "creationTimestamp",
               "deletionTimestamp", "deletionGracePeriodSeconds", "finalizers",
               "managedFields"),
}
LABEL_SELECTOR = {
    "matchLabels": SIMULATED,
    "matchExpressions": [{"key": SIMULATED, "operator": SIMULATED, "values": SIMULATED}],
}
_REQUIREMENT = {"key": SIMULATED, "operator": SIMULATED, "values": SIMULATED}
NODE_SELECTOR_TERM = {"matchExpressions": [_REQUIREMENT], "matchFields": [_REQUIREMENT]}
POD_AFFINITY_TERM = {
    "labelSelector": LABEL_SELECTOR, "namespaces": SIMULATED, "topologyKey": SIMULATED,
    "namespaceSelector": LABEL_SELECTOR, "matchLabelKeys": SIMULATED,
    "mismatchLabelKeys": SIMULATED,
}
_POD_AFFINITY = {
    "requiredDuringSchedulingIgnoredDuringExecution": [POD_AFFINITY_TERM],
    "preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": SIMULATED, "podAffinityTerm": POD_AFFINITY_TERM}],
}
AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [NODE_SELECTOR_TERM]},
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": SIMULATED, "preference": NODE_SELECTOR_TERM}],
    },
    "podAffinity": _POD_AFFINITY,
    "podAntiAffinity": _POD_AFFINITY,
}
CONTAINER = {
    "name": SIMULATED, "image": SIMULATED, "restartPolicy": SIMULATED,
    "restartPolicyRules": [{"action": SIMULATED, "exitCodes": {"operator": SIMULATED, "values": SIMULATED}}],
    "resources": {"limits": SIMULATED, "requests": SIMULATED,
                  "claims": [{"name": SIMULATED, "request": SIMULATED}]},
    "ports": [{"containerPort": SIMULATED, "hostPort": SIMULATED, "protocol": SIMULATED,
               "hostIP": SIMULATED, "name": SIMULATED}],
    **_ignored("command", "args", "workingDir", "envFrom", "env", "resizePolicy",
               "volumeMounts", "volumeDevices", "livenessProbe",
               "readinessProbe", "startupProbe", "lifecycle", "terminationMessagePath",
               "terminationMessagePolicy", "imagePullPolicy", "securityContext", "stdin",
               "stdinOnce", "tty"),
}
TOLERATION = {"key": SIMULATED, "operator": SIMULATED, "value": SIMULATED,
              "effect": SIMULATED, "tolerationSeconds": SIMULATED}
TOPOLOGY_SPREAD_CONSTRAINT = {
    "maxSkew": SIMULATED, "topologyKey": SIMULATED, "whenUnsatisfiable": SIMULATED,
    "labelSelector": LABEL_SELECTOR, "minDomains": SIMULATED, "nodeAffinityPolicy": SIMULATED,
    "nodeTaintsPolicy": SIMULATED, "matchLabelKeys": SIMULATED,
}
POD_SPEC = {
    "containers": [CONTAINER], "initContainers": [CONTAINER],
    "terminationGracePeriodSeconds": SIMULATED, "nodeSelector": SIMULATED,
    "nodeName": SIMULATED, "hostNetwork": SIMULATED, "affinity": AFFINITY,
    "schedulerName": SIMULATED, "tolerations": [TOLERATION], "priorityClassName": SIMULATED,
    "priority": SIMULATED, "preemptionPolicy": SIMULATED, "overhead": SIMULATED,
    "topologySpreadConstraints": [TOPOLOGY_SPREAD_CONSTRAINT],
    "schedulingGates": [{"name": SIMULATED}],
    "resourceClaims": [{"name": SIMULATED, "resourceClaimName": SIMULATED,
                        "resourceClaimTemplateName": SIMULATED}],
    "workloadRef": WORKLOAD_REF_SCHEMA,
    # Pod-level resources (PodLevelResources): checked by loader/pod_resources.py.
    "resources": {"limits": SIMULATED, "requests": SIMULATED, "claims": SIMULATED},
    **_ignored("volumes", "ephemeralContainers", "restartPolicy", "activeDeadlineSeconds",
               "dnsPolicy", "serviceAccountName", "serviceAccount",
               "automountServiceAccountToken", "hostPID", "hostIPC", "shareProcessNamespace",
               "securityContext", "imagePullSecrets", "hostname", "subdomain", "hostAliases",
               "dnsConfig", "readinessGates", "runtimeClassName", "enableServiceLinks",
               "setHostnameAsFQDN", "os", "hostUsers", "hostnameOverride",
               "schedulingGroup", "evictionResponders"),
}
_TOP = {"apiVersion": SIMULATED, "kind": SIMULATED, "metadata": OBJECT_META}
_STATUS = _ignored("status")
# PodStatus: startTime is read (scheduler_core/loader/start_time.py), the rest is the
# kubelet's report, which the playground does not model.
POD_STATUS = {"startTime": SIMULATED,
              **_ignored("observedGeneration", "phase", "conditions", "message", "reason",
                         "nominatedNodeName", "hostIP", "hostIPs", "podIP", "podIPs",
                         "initContainerStatuses", "containerStatuses", "qosClass",
                         "ephemeralContainerStatuses", "resize", "resourceClaimStatuses",
                         "extendedResourceClaimStatus", "allocatedResources", "resources")}
POD_SCHEMA = {**_TOP, "spec": POD_SPEC, "status": POD_STATUS}
POD_TEMPLATE = {"metadata": OBJECT_META, "spec": POD_SPEC}
NODE_SCHEMA = {
    **_TOP,
    "spec": {"unschedulable": SIMULATED,
             "taints": [{"key": SIMULATED, "value": SIMULATED, "effect": SIMULATED,
                         **_ignored("timeAdded")}],
             **_ignored("podCIDR", "podCIDRs", "providerID", "configSource", "externalID",
                        "podPreemptionPolicy")},
    "status": {"capacity": SIMULATED, "allocatable": SIMULATED,
               "images": [{"names": SIMULATED, "sizeBytes": SIMULATED}],
               "declaredFeatures": SIMULATED,
               **_ignored("phase", "conditions", "addresses", "daemonEndpoints", "nodeInfo",
                          "volumesInUse", "volumesAttached", "config", "runtimeHandlers",
                          "features")},
}
_WORKLOAD_COMMON = {"selector": LABEL_SELECTOR, "template": POD_TEMPLATE}
# The workload controllers (scheduler_core.controllers.workloads) read replicas, a
# StatefulSet's ordinals and a Job's parallelism/completions/suspend: those are simulated.
_WORKLOADS = {
    "ReplicaSet": {**_WORKLOAD_COMMON, "replicas": SIMULATED, **_ignored("minReadySeconds")},
    "Deployment": {**_WORKLOAD_COMMON, "replicas": SIMULATED,
                   **_ignored("strategy", "minReadySeconds", "revisionHistoryLimit",
                              "paused", "progressDeadlineSeconds")},
    "StatefulSet": {**_WORKLOAD_COMMON, "replicas": SIMULATED, "ordinals": {"start": SIMULATED},
                    **_ignored("volumeClaimTemplates", "serviceName",
                               "podManagementPolicy", "updateStrategy", "revisionHistoryLimit",
                               "minReadySeconds", "persistentVolumeClaimRetentionPolicy")},
    "DaemonSet": {**_WORKLOAD_COMMON,
                  **_ignored("updateStrategy", "minReadySeconds", "revisionHistoryLimit")},
    "Job": {**_WORKLOAD_COMMON, "parallelism": SIMULATED, "completions": SIMULATED,
            "suspend": SIMULATED,
            **_ignored("activeDeadlineSeconds",
                       "podFailurePolicy", "successPolicy", "backoffLimit",
                       "backoffLimitPerIndex", "maxFailedIndexes", "manualSelector",
                       "ttlSecondsAfterFinished", "completionMode",
                       "podReplacementPolicy", "managedBy", "scheduling")},
    # ReplicationController's selector is a plain label map, not a LabelSelector.
    "ReplicationController": {"selector": SIMULATED, "template": POD_TEMPLATE,
                              **_ignored("replicas", "minReadySeconds")},
}

KIND_SCHEMAS: dict[str, dict[str, Any]] = {
    "Pod": POD_SCHEMA,
    "Node": NODE_SCHEMA,
    "Namespace": {**_TOP, **_ignored("spec", "status")},
    "Service": {**_TOP, "spec": {"selector": SIMULATED, **_ignored(
        "ports", "clusterIP", "clusterIPs", "type", "externalIPs", "sessionAffinity",
        "loadBalancerIP", "loadBalancerSourceRanges", "externalName", "externalTrafficPolicy",
        "healthCheckNodePort", "publishNotReadyAddresses", "sessionAffinityConfig",
        "ipFamilies", "ipFamilyPolicy", "allocateLoadBalancerNodePorts", "loadBalancerClass",
        "internalTrafficPolicy", "trafficDistribution")}, **_STATUS},
    "PriorityClass": {**_TOP, "value": SIMULATED, "globalDefault": SIMULATED,
                      "description": SIMULATED, "preemptionPolicy": SIMULATED},
    "PodDisruptionBudget": {**_TOP, "spec": {
        "minAvailable": SIMULATED, "maxUnavailable": SIMULATED, "selector": LABEL_SELECTOR,
        **_ignored("unhealthyPodEvictionPolicy")}, **_STATUS},
    # The configuration's profiles and extenders are checked field by field by its own parser.
    "KubeSchedulerConfiguration": {
        "apiVersion": SIMULATED, "kind": SIMULATED, "parallelism": SIMULATED,
        "percentageOfNodesToScore": SIMULATED, "podInitialBackoffSeconds": SIMULATED,
        "podMaxBackoffSeconds": SIMULATED, "profiles": SIMULATED, "extenders": SIMULATED,
        **_ignored("leaderElection", "clientConnection", "healthzBindAddress",
                   "metricsBindAddress", "enableProfiling", "enableContentionProfiling",
                   "delayCacheUntilActive", "debuggingConfiguration"),
    },
    # Actions are checked by the timeline parser, each against the fields of its action.
    "Timeline": {"apiVersion": SIMULATED, "kind": SIMULATED, "metadata": SIMULATED,
                 "actions": SIMULATED},
    # The playground's stand-in for kube-apiserver's flags (scheduler_core/loader/apiserver.py).
    "APIServer": {"apiVersion": SIMULATED, "kind": SIMULATED, "metadata": SIMULATED,
                  "disableAdmissionPlugins": SIMULATED},
    "List": {"apiVersion": SIMULATED, "kind": SIMULATED, "items": SIMULATED,
             "metadata": NOT_SIMULATED},
}
KIND_SCHEMAS["Workload"] = {**_TOP, "spec": WORKLOAD_SCHEMA_SPEC, **_STATUS}
for _kind, _spec in _WORKLOADS.items():
    KIND_SCHEMAS[_kind] = {**_TOP, "spec": _spec, **_STATUS}

NAMESPACED_KINDS = frozenset({"Pod", "Service", "ReplicationController", "PodDisruptionBudget",
                              "ResourceClaim", "ResourceClaimTemplate",
                              "ReplicaSet", "StatefulSet", "Deployment", "DaemonSet", "Job",
                              "Workload"})

# The storage kinds and a pod's volumes.
from scheduler_core.loader.storage_schema import (  # noqa: E402
    STORAGE_NAMESPACED_KINDS,
    storage_schemas,
)

STORAGE = storage_schemas(SIMULATED, NOT_SIMULATED, OBJECT_META, LABEL_SELECTOR, NODE_SELECTOR_TERM)
POD_SPEC["volumes"] = [STORAGE["volume"]]
KIND_SCHEMAS.update(STORAGE["kinds"])
KIND_SCHEMAS["StatefulSet"]["spec"]["volumeClaimTemplates"] = [
    {**STORAGE["pvc_template"], "apiVersion": SIMULATED, "kind": SIMULATED, "status": NOT_SIMULATED}]
NAMESPACED_KINDS = NAMESPACED_KINDS | STORAGE_NAMESPACED_KINDS
