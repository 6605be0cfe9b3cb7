"""DefaultEvictor: which pods a strategy may pick (Filter) and may evict now (PreEvictionFilter).

Upstream's plugin of the same name (pkg/framework/plugins/defaultevictor), with its args and the
checks its constraints make, in the same words: a pod annotated
`descheduler.alpha.kubernetes.io/evict` always passes; mirror and terminating pods never do;
then, unless the args allow them, system-critical pods (priority 2000000000 and up), pods above
`priorityThreshold`, pods with local storage (emptyDir, hostPath), DaemonSet pods, pods without
an owner (unless failed and `evictFailedBarePods`), pods with a PVC (`ignorePvcPods`), pods
no PDB covers (`ignorePodsWithoutPDB`), pods outside `labelSelector`, and pods whose owner has
fewer than `minReplicas` pods. `nodeFit` adds, before each eviction, that the pod fits another
node (node selector and required affinity, NoSchedule/NoExecute taints, cordon, free requests).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scheduler_core.api.types import LabelSelector, Pod

from . import argsreader as ar

if TYPE_CHECKING:
    from .handle import Handle

PLUGIN_NAME = "DefaultEvictor"
EVICT_POD_ANNOTATION_KEY = "descheduler.alpha.kubernetes.io/evict"
MIRROR_POD_ANNOTATION_KEY = "kubernetes.io/config.mirror"
SYSTEM_CRITICAL_PRIORITY = 2_000_000_000

ARG_FIELDS = ("nodeSelector", "evictLocalStoragePods", "evictDaemonSetPods", "evictSystemCriticalPods",
              "ignorePvcPods", "evictFailedBarePods", "labelSelector", "priorityThreshold", "nodeFit",
              "minReplicas", "ignorePodsWithoutPDB")


@dataclass(frozen=True)
class DefaultEvictorArgs:
    node_selector: str = ""
    evict_local_storage_pods: bool = False
    evict_daemon_set_pods: bool = False
    evict_system_critical_pods: bool = False
    ignore_pvc_pods: bool = False
    evict_failed_bare_pods: bool = False
    label_selector: LabelSelector | None = None
    priority_threshold_value: int | None = None
    priority_threshold_name: str = ""
    node_fit: bool = False
    min_replicas: int = 0
    ignore_pods_without_pdb: bool = False


def parse_args(value: Any, path: str, err: ar.Err) -> DefaultEvictorArgs:
    m = ar.mapping(value, path, err, ARG_FIELDS)
    pt = ar.mapping(m.get("priorityThreshold"), f"{path}.priorityThreshold", err, ("value", "name"))
    if pt.get("value") is not None and pt.get("name"):
        raise err(f"{path}.priorityThreshold", "only one of priorityThreshold fields can be set")
    node_selector = ar.text(m.get("nodeSelector"), f"{path}.nodeSelector", err)
    ar.node_selector_text(node_selector, f"{path}.nodeSelector", err)
    return DefaultEvictorArgs(
        node_selector=node_selector,
        evict_local_storage_pods=ar.boolean(m.get("evictLocalStoragePods"), f"{path}.evictLocalStoragePods", err),
        evict_daemon_set_pods=ar.boolean(m.get("evictDaemonSetPods"), f"{path}.evictDaemonSetPods", err),
        evict_system_critical_pods=ar.boolean(m.get("evictSystemCriticalPods"),
                                              f"{path}.evictSystemCriticalPods", err),
        ignore_pvc_pods=ar.boolean(m.get("ignorePvcPods"), f"{path}.ignorePvcPods", err),
        evict_failed_bare_pods=ar.boolean(m.get("evictFailedBarePods"), f"{path}.evictFailedBarePods", err),
        label_selector=ar.label_selector(m.get("labelSelector"), f"{path}.labelSelector", err),
        priority_threshold_value=ar.integer(pt.get("value"), f"{path}.priorityThreshold.value", err),
        priority_threshold_name=ar.text(pt.get("name"), f"{path}.priorityThreshold.name", err),
        node_fit=ar.boolean(m.get("nodeFit"), f"{path}.nodeFit", err),
        min_replicas=ar.count(m.get("minReplicas"), f"{path}.minReplicas", err) or 0,
        ignore_pods_without_pdb=ar.boolean(m.get("ignorePodsWithoutPDB"), f"{path}.ignorePodsWithoutPDB", err),
    )


def is_pod_with_local_storage(pod: Pod) -> bool:
    return any(v.source in ("emptyDir", "hostPath") for v in pod.volumes)


def is_pod_with_pvc(pod: Pod) -> bool:
    return any(v.source in ("persistentVolumeClaim", "ephemeral") for v in pod.volumes)


def _owner_refs(pod: Pod) -> list[Any]:
    return list(pod.owner_references)


class DefaultEvictor:
    """The evictor plugin of one profile. `threshold` is the resolved priority threshold."""

    name = PLUGIN_NAME

    def __init__(self, args: DefaultEvictorArgs, handle: Handle) -> None:
        self.args = args
        self.handle = handle
        self.threshold: int | None = args.priority_threshold_value
        if args.priority_threshold_name:
            from scheduler_core.api.system_priority_classes import SYSTEM_PRIORITY_CLASSES

            name = args.priority_threshold_name
            pc = handle.priority_classes.get(name) or SYSTEM_PRIORITY_CLASSES.get(name)
            self.threshold = pc.value if pc is not None else None

    def reasons_not_evictable(self, pod: Pod) -> list[str]:
        """Why Filter refuses the pod, in upstream's words (empty: it passes)."""
        if EVICT_POD_ANNOTATION_KEY in pod.annotations:
            return []
        a = self.args
        why: list[str] = []
        if MIRROR_POD_ANNOTATION_KEY in pod.annotations:
            why.append("pod is a mirror pod")
        if pod.deletion_timestamp is not None:
            why.append("pod is terminating")
        if not a.evict_system_critical_pods:
            if pod.priority >= SYSTEM_CRITICAL_PRIORITY:
                why.append("pod has system critical priority and is protected against eviction")
            if self.threshold is not None and not pod.priority < self.threshold:
                why.append("pod has higher priority than specified priority class threshold")
        owners = _owner_refs(pod)
        if a.evict_failed_bare_pods:
            if not owners and pod.phase != "Failed":
                why.append("pod does not have any ownerRefs and is not in failed phase")
        elif not owners:
            why.append("pod does not have any ownerRefs")
        if not a.evict_local_storage_pods and is_pod_with_local_storage(pod):
            why.append("pod has local storage and is protected against eviction")
        if not a.evict_daemon_set_pods and any(o.kind == "DaemonSet" for o in owners):
            why.append("daemonset pods are protected against eviction")
        if a.ignore_pvc_pods and is_pod_with_pvc(pod):
            why.append("pod with PVC is protected against eviction")
        if a.ignore_pods_without_pdb and not self.handle.pdbs_covering(pod):
            why.append("pod does not have a PodDisruptionBudget and is protected against eviction")
        if a.label_selector is not None and not a.label_selector.matches(pod.labels):
            why.append("pod labels do not match the labelSelector filter in the policy parameter")
        if a.min_replicas > 1 and owners and self.handle.owner_pod_count(pod) < a.min_replicas:
            why.append(f"owner has fewer than {a.min_replicas} replicas")
        return why

    def filter(self, pod: Pod) -> bool:
        return not self.reasons_not_evictable(pod)

    def pre_eviction_filter(self, pod: Pod) -> bool:
        if self.args.node_fit:
            return self.handle.pod_fits_any_other_node(pod, self.args.node_selector)
        return True
