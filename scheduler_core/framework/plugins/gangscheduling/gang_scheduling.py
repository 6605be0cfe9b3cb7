"""GangScheduling (alpha in v1.35; in the default profile with the GangScheduling gate, which
needs GenericWorkload): all-or-nothing placement of a Workload's gang pod group.

* PreEnqueue keeps a member out of the queue until its Workload exists, names its pod group,
  and (for a gang) at least minCount members exist. Such pods are never attempted, so they get
  no FailedScheduling event.
* Reserve marks the member assumed in the workload manager; Unreserve forgets it.
* Permit makes a member wait until minCount members are assumed or bound; the group shares one
  5-minute deadline, started by the first member to wait once no deadline runs. Waiting members
  hold their nodes' resources. The member that completes the quorum allows every waiting one.
  A member that starts waiting activates the group's unscheduled members (they may have been
  waiting for room it no longer takes).
* On the deadline every waiting member is rejected ("rejected due to timeout after waiting
  ... at plugin GangScheduling"), unreserved and requeued; the gang then forms again.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.types import Pod
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import (
    ClusterEventWithHint,
    EnqueueExtensions,
    PermitPlugin,
    PreEnqueuePlugin,
    ReservePlugin,
)
from scheduler_core.framework.plugins import names
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import ActionType, ClusterEvent, QueueingHint

WORKLOAD_RESOURCE = "Workload"


def matching_workload_reference(a: Pod, b: Pod) -> bool:
    return (a.workload_ref is not None and b.workload_ref is not None and a.namespace == b.namespace
            and a.workload_ref == b.workload_ref)


class GangScheduling(PreEnqueuePlugin, ReservePlugin, PermitPlugin, EnqueueExtensions):
    name = names.GANG_SCHEDULING

    # ---- helpers -----------------------------------------------------------------------------
    def _workload(self, pod: Pod) -> Any:
        return self.handle.cluster.get_workload(pod.namespace, pod.workload_ref.name)

    def _group_info(self, pod: Pod) -> Any:
        wm = self.handle.workload_manager
        return None if wm is None else wm.pod_group_info(pod)

    # ---- queueing hints ------------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(ClusterEvent("Pod", ActionType.ADD), self.is_schedulable_after_pod_added),
            ClusterEventWithHint(ClusterEvent(WORKLOAD_RESOURCE, ActionType.ADD), self.is_schedulable_after_workload_added),
        ]

    def is_schedulable_after_pod_added(self, pod: Pod, old: Any, new: Any) -> int:
        """A new member of the same group may complete the gang's minCount."""
        return QueueingHint.QUEUE if new is not None and matching_workload_reference(pod, new) else QueueingHint.SKIP

    def is_schedulable_after_workload_added(self, pod: Pod, old: Any, new: Any) -> int:
        ref = pod.workload_ref
        if ref is None or new is None or pod.namespace != new.namespace or ref.name != new.name:
            return QueueingHint.SKIP
        return QueueingHint.QUEUE

    # ---- PreEnqueue ------------------------------------------------------------------------------
    def pre_enqueue(self, pod: Pod) -> Status | None:
        ref = pod.workload_ref
        if ref is None:
            return None
        workload = self._workload(pod)
        if workload is None:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                          f'waiting for pods\'s workload "{ref.name}" to appear in scheduling queue')
        group = workload.pod_group(ref.pod_group)
        if group is None:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                          f'pod group "{ref.pod_group}" doesn\'t exist for a workload "{workload.name}"')
        if not group.is_gang:
            return None
        info = self._group_info(pod)
        if info is None:
            return Status.error("internal pod group state doesn't exist for a pod's workload")
        if len(info.all_pods) < group.gang_min_count:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                          "waiting for minCount pods from a gang to appear in scheduling queue")
        return None

    # ---- Reserve ---------------------------------------------------------------------------------
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        if pod.workload_ref is None:
            return None
        info = self._group_info(pod)
        if info is None:
            return Status.error("internal pod group state doesn't exist for a pod's workload")
        info.assume_pod(pod.key)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        if pod.workload_ref is None:
            return
        info = self._group_info(pod)
        if info is not None:
            info.forget_pod(pod.key)

    # ---- Permit ----------------------------------------------------------------------------------
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        ref = pod.workload_ref
        if ref is None:
            return None, 0.0
        workload = self._workload(pod)
        if workload is None:
            return Status.error(f"failed to get workload {pod.namespace}/{ref.name}: "
                                f'workload.scheduling.k8s.io "{ref.name}" not found'), 0.0
        group = workload.pod_group(ref.pod_group)
        if group is None:
            return Status.error(f'pod group "{ref.pod_group}" doesn\'t exist for a workload "{workload.name}"'), 0.0
        if not group.is_gang:
            return None, 0.0
        info = self._group_info(pod)
        if info is None:
            return Status.error("internal pod group state doesn't exist for a pod's workload"), 0.0
        if len(info.assumed | info.assigned) < group.gang_min_count:
            self.handle.activate_pods(info.unscheduled_pods())
            timeout = info.scheduling_timeout(self.handle.now(), pod.key)
            return Status(Code.WAIT, "waiting for minCount pods from a gang to be waiting on permit"), timeout
        for key in sorted(info.assumed):
            if key != pod.key:
                self.handle.allow_waiting_pod(key, self.name)
        return None, 0.0
