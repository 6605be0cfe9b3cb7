"""VolumeRestrictions: disk conflicts (GCE PD, EBS, iSCSI, RBD volumes mounted by another pod on
the node) and ReadWriteOncePod PVCs in use elsewhere (upstream volume_restrictions.go).

PreFilter counts the pod's ReadWriteOncePod claims some placed pod already uses; AddPod and
RemovePod keep that count right while preemption tries victims. A pod without in-tree disks and
without such conflicts is skipped.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.storage_types import DISK_SOURCES, READ_WRITE_ONCE_POD, Volume
from scheduler_core.api.types import Pod
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
from scheduler_core.framework.plugins.helper.volumes import pod_volumes
from scheduler_core.framework.status import SKIP, Code, Status
from scheduler_core.framework.types import (
    ActionType,
    ClusterEvent,
    EventResource,
    NodeInfo,
    PodInfo,
    PreFilterResult,
    QueueingHint,
)

PRE_FILTER_STATE_KEY = "PreFilter" + names.VOLUME_RESTRICTIONS
ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use "
    "by another pod"
)


class _PreFilterState:
    __slots__ = ("read_write_once_pod_pvcs", "conflicting_pvc_ref_count")

    def __init__(self, pvcs: frozenset[str], count: int) -> None:
        self.read_write_once_pod_pvcs = pvcs
        self.conflicting_pvc_ref_count = count

    def update_with_pod(self, pod_info: PodInfo, multiplier: int) -> None:
        self.conflicting_pvc_ref_count += multiplier * self._conflicts_of(pod_info.pod)

    def _conflicts_of(self, pod: Pod) -> int:
        if not self.read_write_once_pod_pvcs:
            return 0
        return sum(1 for v in pod.volumes
                   if v.source == "persistentVolumeClaim" and v.claim_name in self.read_write_once_pod_pvcs)

    def clone(self) -> _PreFilterState:
        return _PreFilterState(self.read_write_once_pod_pvcs, self.conflicting_pvc_ref_count)


def needs_restrictions_check(v: Volume) -> bool:
    return v.source in DISK_SOURCES


def is_volume_conflict(v: Volume, pod: Pod) -> bool:
    """The in-tree disk `v` is mounted by `pod` in a conflicting way (upstream isVolumeConflict)."""
    for ev in pod.volumes:
        if ev.source != v.source:
            continue
        if v.source == "gcePersistentDisk":
            if v.disk_id == ev.disk_id and not (v.read_only and ev.read_only):
                return True
        elif v.source == "awsElasticBlockStore":
            if v.disk_id == ev.disk_id:
                return True
        elif v.source == "iscsi":
            if v.disk_id == ev.disk_id and not (v.read_only and ev.read_only):
                return True
        elif v.source == "rbd":
            if (set(v.monitors) & set(ev.monitors) and v.pool == ev.pool and v.disk_id == ev.disk_id
                    and not (v.read_only and ev.read_only)):
                return True
    return False


def satisfy_volume_conflicts(pod: Pod, pods: list[Pod]) -> bool:
    for v in pod.volumes:
        if not needs_restrictions_check(v):
            continue
        for ep in pods:
            if ep.volumes and is_volume_conflict(v, ep):
                return False
    return True


class VolumeRestrictions(PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    name = names.VOLUME_RESTRICTIONS

    def _read_write_once_pod_pvcs(self, pod: Pod) -> tuple[frozenset[str], str | None]:
        store = self.handle.cluster.storage
        out = set()
        for v in pod.volumes:
            if v.source != "persistentVolumeClaim":
                continue
            pvc = store.get_pvc(pod.namespace, v.claim_name)
            if pvc is None:
                return frozenset(), f'persistentvolumeclaim "{v.claim_name}" not found'
            if READ_WRITE_ONCE_POD in pvc.access_modes:
                out.add(pvc.name)
        return frozenset(out), None

    def _is_pvc_used_by_pods(self, namespace: str, name: str) -> bool:
        """upstream StorageInfos().IsPVCUsedByPods: a pod on some node (assumed ones too) uses it."""
        for ni in self.handle.snapshot.list():
            for pi in ni.pods:
                p = pi.pod
                if p.namespace != namespace or not p.volumes:
                    continue
                for v in p.volumes:
                    if v.source == "persistentVolumeClaim" and v.claim_name == name:
                        return True
        return False

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        if not pod.volumes:
            return None, SKIP
        needs_check = any(needs_restrictions_check(v) for v in pod.volumes)
        pvcs, err = self._read_write_once_pod_pvcs(pod)
        if err is not None:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, err)
        count = sum(1 for name in pvcs if self._is_pvc_used_by_pods(pod.namespace, name))
        s = _PreFilterState(pvcs, count)
        if not needs_check and s.conflicting_pvc_ref_count == 0:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    def pre_filter_extensions(self) -> VolumeRestrictions:
        return self

    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo,
                node_info: NodeInfo) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return Status.error(f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState')
        s.update_with_pod(pod_info_to_add, 1)
        return None

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return Status.error(f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState')
        s.update_with_pod(pod_info_to_remove, -1)
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if pod.volumes and not satisfy_volume_conflicts(pod, [pi.pod for pi in node_info.pods]):
            return Status(Code.UNSCHEDULABLE, ERR_REASON_DISK_CONFLICT)
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return Status.error(f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState')
        if s.conflicting_pvc_ref_count > 0:
            return Status(Code.UNSCHEDULABLE, ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT)
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        node_actions = ActionType.ADD
        if not gates_of(self.handle).scheduler_queueing_hints:
            node_actions |= ActionType.UPDATE_NODE_TAINT | ActionType.UPDATE_NODE_LABEL
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE), self.is_schedulable_after_pod_deleted),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, node_actions)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD),
                self.is_schedulable_after_persistent_volume_claim_added,
            ),
        ]

    def is_schedulable_after_persistent_volume_claim_added(self, pod: Pod, old: Any, new: Any) -> int:
        """Queue only if the pod refers to the new claim (it never does without volumes)."""
        if getattr(new, "namespace", None) != pod.namespace:
            return QueueingHint.SKIP
        claim = getattr(new, "name", None)
        for v in pod_volumes(pod):
            if getattr(v, "claim_name", None) == claim:
                return QueueingHint.QUEUE
        return QueueingHint.SKIP

    def is_schedulable_after_pod_deleted(self, pod: Pod, old: Pod, new: Any) -> int:
        """A deleted pod only helps if it held a conflicting volume or a claim this pod uses."""
        if old.namespace != pod.namespace:
            return QueueingHint.SKIP
        if not satisfy_volume_conflicts(pod, [old]):
            return QueueingHint.QUEUE
        claims = {getattr(v, "claim_name", None) for v in pod_volumes(pod)} - {None}
        for v in pod_volumes(old):
            if getattr(v, "claim_name", None) in claims:
                return QueueingHint.QUEUE
        return QueueingHint.SKIP

    def sign_pod(self, pod: Pod) -> dict[str, Any]:
        """This plugin's fragments of the pod's batching signature (upstream SignPod)."""
        return signing.volumes(pod)
