"""VolumeZone: a pod using zonal persistent volumes must land in a zone/region where they live
(upstream volume_zone.go): the zone/region labels of its bound PVs (a value "a__b" allows both)
against the node's, the beta labels read as their GA names on the node. A pod whose claims are
unbound WaitForFirstConsumer ones, or bound to PVs without such labels, is skipped.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.storage_types import BINDING_WAIT_FOR_FIRST_CONSUMER, PersistentVolume, claim_class
from scheduler_core.api.types import (
    LABEL_FAILURE_DOMAIN_REGION,
    LABEL_FAILURE_DOMAIN_ZONE,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
    Pod,
)
from scheduler_core.featuregate.features import gates_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import (
    ClusterEventWithHint,
    EnqueueExtensions,
    FilterPlugin,
    PreFilterPlugin,
)
from scheduler_core.framework.plugins import names
from scheduler_core.framework.plugins.helper import signing
from scheduler_core.framework.status import SKIP, Code, Status
from scheduler_core.framework.types import (
    ActionType,
    ClusterEvent,
    EventResource,
    NodeInfo,
    PreFilterResult,
    QueueingHint,
)

PRE_FILTER_STATE_KEY = "PreFilter" + names.VOLUME_ZONE
ERR_REASON_CONFLICT = "node(s) had no available volume zone"

# The PV labels that pin a volume to a zone or region (beta labels first, as upstream lists them).
TOPOLOGY_LABELS = (LABEL_FAILURE_DOMAIN_ZONE, LABEL_FAILURE_DOMAIN_REGION, LABEL_TOPOLOGY_ZONE,
                   LABEL_TOPOLOGY_REGION)


def translate_to_ga_label(label: str) -> str:
    if label == LABEL_FAILURE_DOMAIN_REGION:
        return LABEL_TOPOLOGY_REGION
    if label == LABEL_FAILURE_DOMAIN_ZONE:
        return LABEL_TOPOLOGY_ZONE
    return label


def label_zones_to_set(value: str) -> frozenset[str] | None:
    """cloud-provider LabelZonesToSet: "a__b" is the set {a, b}; an empty zone is an error."""
    if not value:
        return frozenset()
    zones = value.split("__")
    if any(not z for z in zones):
        return None
    return frozenset(zones)


# Every node label Filter may read: the topology labels and their GA names.
_READ_LABELS = tuple(dict.fromkeys((*TOPOLOGY_LABELS, *map(translate_to_ga_label, TOPOLOGY_LABELS))))


def pv_topologies(pv: PersistentVolume) -> list[tuple[str, str, frozenset[str]]]:
    """(pv name, label key, allowed values) for each topology label the PV carries."""
    out = []
    for key in TOPOLOGY_LABELS:
        value = pv.labels.get(key)
        if value is None:
            continue
        zones = label_zones_to_set(value)
        if zones is None:
            continue
        out.append((pv.name, key, zones))
    return out


def _claim_names(pod: Pod) -> list[str]:
    """Only persistentVolumeClaim volumes (not ephemeral ones), as upstream."""
    return [v.claim_name for v in pod.volumes if v.source == "persistentVolumeClaim"]


class _StateData:
    __slots__ = ("pod_pv_topologies",)

    def __init__(self, t: list[tuple[str, str, frozenset[str]]]) -> None:
        self.pod_pv_topologies = t

    def clone(self) -> _StateData:
        return self


class VolumeZone(PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    name = names.VOLUME_ZONE

    def _get_pv_by_pod(self, pod: Pod) -> tuple[list[tuple[str, str, frozenset[str]]], Status | None]:
        out: list[tuple[str, str, frozenset[str]]] = []
        store = self.handle.cluster.storage
        for name in _claim_names(pod):
            if not name:
                return [], Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "PersistentVolumeClaim had no name")
            pvc = store.get_pvc(pod.namespace, name)
            if pvc is None:
                return [], Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                  f'persistentvolumeclaim "{name}" not found')
            if not pvc.volume_name:
                sc_name = claim_class(pvc)
                if not sc_name:
                    return [], Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                      "PersistentVolumeClaim had no pv name and storageClass name")
                cls = store.classes.get(sc_name)
                if cls is None:
                    return [], Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                      f'storageclass.storage.k8s.io "{sc_name}" not found')
                if cls.volume_binding_mode == BINDING_WAIT_FOR_FIRST_CONSUMER:
                    continue
                return [], Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "PersistentVolume had no name")
            pv = store.pvs.get(pvc.volume_name)
            if pv is None:
                return [], Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                  f'persistentvolume "{pvc.volume_name}" not found')
            out += pv_topologies(pv)
        return out, None

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        if not pod.volumes:
            return None, SKIP
        topologies, status = self._get_pv_by_pod(pod)
        if status is not None:
            return None, status
        if not topologies:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, _StateData(topologies))
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not pod.volumes:
            return None
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            topologies, status = self._get_pv_by_pod(pod)
            if status is not None:
                return status
        else:
            topologies = s.pod_pv_topologies
        labels = node_info.node.labels
        if not any(k in labels for k in TOPOLOGY_LABELS):
            return None
        for _, key, values in topologies:
            v = labels.get(key)
            if v is None:
                v = labels.get(translate_to_ga_label(key))
            if v is None or v not in values:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_CONFLICT)
        return None

    def filter_nodes(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> list[Status | None]:
        """`filter` on every node; the verdict depends only on the node's topology labels, so
        nodes with the same ones (a zone's) share it, and a rejection one Status."""
        s = state.get(PRE_FILTER_STATE_KEY)
        if not pod.volumes or s is None:
            f = self.filter
            return [f(state, pod, ni) for ni in nodes]
        seen: dict[tuple[str | None, ...], Status | None] = {}
        out: list[Status | None] = []
        for ni in nodes:
            labels = ni.node.labels
            key = tuple([labels.get(k) for k in _READ_LABELS])
            if key in seen:
                out.append(seen[key])
                continue
            st = seen[key] = self.filter(state, pod, ni)
            out.append(st)
        return out

    def events_to_register(self) -> list[ClusterEventWithHint]:
        node_actions = ActionType.ADD | ActionType.UPDATE_NODE_LABEL
        if not gates_of(self.handle).scheduler_queueing_hints:
            node_actions |= ActionType.UPDATE_NODE_TAINT
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.STORAGE_CLASS, ActionType.ADD),
                                 self.is_schedulable_after_storage_class_added),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, node_actions)),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD | ActionType.UPDATE),
                                 self.is_schedulable_after_persistent_volume_claim_change),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME, ActionType.ADD | ActionType.UPDATE),
                                 self.is_schedulable_after_persistent_volume_change),
        ]

    def is_schedulable_after_persistent_volume_claim_change(self, pod: Pod, old: Any, new: Any) -> int:
        if new is None or new.namespace != pod.namespace:
            return QueueingHint.SKIP
        return QueueingHint.QUEUE if new.name in _claim_names(pod) else QueueingHint.SKIP

    def is_schedulable_after_storage_class_added(self, pod: Pod, old: Any, new: Any) -> int:
        if getattr(new, "volume_binding_mode", None) != "WaitForFirstConsumer":
            return QueueingHint.SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_persistent_volume_change(self, pod: Pod, old: Any, new: Any) -> int:
        if old is None:
            return QueueingHint.QUEUE
        if pv_topologies(old) != pv_topologies(new):
            return QueueingHint.QUEUE
        return QueueingHint.SKIP

    def sign_pod(self, pod: Pod) -> dict[str, Any]:
        """This plugin's fragments of the pod's batching signature (upstream SignPod)."""
        return signing.volumes(pod)
