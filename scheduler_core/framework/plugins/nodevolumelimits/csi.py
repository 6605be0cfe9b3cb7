"""NodeVolumeLimits (CSI): a node cannot attach more CSI volumes than its CSINode allows.

Pods in the engine carry no volumes: PreFilter returns Skip for them as upstream does (no PVC,
ephemeral or migratable in-tree volume) and Filter passes a pod without volumes.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.types import Pod
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
from scheduler_core.framework.status import SKIP, Status
from scheduler_core.framework.types import (
    ActionType,
    ClusterEvent,
    EventResource,
    NodeInfo,
    PreFilterResult,
    QueueingHint,
)

CSI_NAME = names.NODE_VOLUME_LIMITS
ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"
VOLUME_ATTACHMENT = getattr(EventResource, "VOLUME_ATTACHMENT", "VolumeAttachment")


class CSILimits(PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    name = CSI_NAME

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        if pod_volumes(pod):
            return None, None
        return None, SKIP

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        # Without volumes (the only pods the engine models) there is nothing to count.
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_NODE, ActionType.ADD)),
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_NODE, ActionType.UPDATE),
                                 self.is_schedulable_after_csi_node_updated),
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE), self.is_schedulable_after_pod_deleted),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD),
                                 self.is_schedulable_after_pvc_added),
            ClusterEventWithHint(ClusterEvent(VOLUME_ATTACHMENT, ActionType.DELETE),
                                 self.is_schedulable_after_volume_attachment_deleted),
        ]

    def is_schedulable_after_pod_deleted(self, pod: Pod, old: Pod, new: Any) -> int:
        """Only a placed pod with attachable volumes frees a slot."""
        vols = pod_volumes(old)
        if not vols or (not old.node_name and not old.nominated_node_name):
            return QueueingHint.SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_pvc_added(self, pod: Pod, old: Any, new: Any) -> int:
        if getattr(new, "namespace", None) != pod.namespace:
            return QueueingHint.SKIP
        name = getattr(new, "name", None)
        for v in pod_volumes(pod):
            if getattr(v, "claim_name", None) == name:
                return QueueingHint.QUEUE
        return QueueingHint.SKIP

    def is_schedulable_after_volume_attachment_deleted(self, pod: Pod, old: Any, new: Any) -> int:
        for v in pod_volumes(pod):
            if getattr(v, "claim_name", None):
                return QueueingHint.QUEUE
        return QueueingHint.SKIP

    def is_schedulable_after_csi_node_updated(self, pod: Pod, old: Any, new: Any) -> int:
        """Queue when some driver's allocatable volume count went up."""
        old_limits = dict(getattr(old, "driver_limits", None) or {})
        for driver, limit in (getattr(new, "driver_limits", None) or {}).items():
            if (limit or 0) > (old_limits.get(driver) or 0):
                return QueueingHint.QUEUE
        return QueueingHint.SKIP

    def sign_pod(self, pod: Pod) -> dict[str, Any]:
        """This plugin's fragments of the pod's batching signature (upstream SignPod)."""
        return signing.VOLUMES
