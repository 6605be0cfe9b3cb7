"""VolumeZone: a pod using zonal persistent volumes must land in a zone/region where they live.

Pods in the engine have no PVCs: PreFilter returns Skip (no PV topologies, as upstream) and
Filter passes any pod without volumes.
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
from scheduler_core.framework.plugins.helper.volumes import is_schedulable_after_pvc_change
from scheduler_core.framework.status import SKIP, Status
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


class VolumeZone(PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    name = names.VOLUME_ZONE

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        # No bound PVs with topology labels: nothing to check.
        return None, SKIP

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.STORAGE_CLASS, ActionType.ADD),
                                 self.is_schedulable_after_storage_class_added),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL)),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD | ActionType.UPDATE),
                                 self.is_schedulable_after_persistent_volume_claim_change),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME, ActionType.ADD | ActionType.UPDATE),
                                 self.is_schedulable_after_persistent_volume_change),
        ]

    def is_schedulable_after_persistent_volume_claim_change(self, pod: Pod, old: Any, new: Any) -> int:
        return is_schedulable_after_pvc_change(pod, old, new)

    def is_schedulable_after_storage_class_added(self, pod: Pod, old: Any, new: Any) -> int:
        if getattr(new, "volume_binding_mode", None) != "WaitForFirstConsumer":
            return QueueingHint.SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_persistent_volume_change(self, pod: Pod, old: Any, new: Any) -> int:
        if old is None:
            return QueueingHint.QUEUE
        if getattr(old, "labels", None) != getattr(new, "labels", None):
            return QueueingHint.QUEUE
        return QueueingHint.SKIP

    def sign_pod(self, pod: Pod) -> dict[str, Any]:
        """This plugin's fragments of the pod's batching signature (upstream SignPod)."""
        return signing.VOLUMES
