"""SchedulingGates: a pod carrying `spec.schedulingGates` never enters the active queue.

PreEnqueue rejects it (UnschedulableAndUnresolvable, "waiting for scheduling gates: [a b]"), so
no scheduling attempt — and no FailedScheduling event — happens until the gates are removed.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.types import Pod
from scheduler_core.framework.interface import ClusterEventWithHint, EnqueueExtensions, PreEnqueuePlugin
from scheduler_core.framework.plugins import names
from scheduler_core.framework.plugins.helper.podutil import same_pod
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import ActionType, ClusterEvent, EventResource, QueueingHint


class SchedulingGates(PreEnqueuePlugin, EnqueueExtensions):
    name = names.SCHEDULING_GATES

    def pre_enqueue(self, pod: Pod) -> Status | None:
        if not pod.scheduling_gates:
            return None
        # Go prints a []string with %v as "[a b]".
        return Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "waiting for scheduling gates: [" + " ".join(pod.scheduling_gates) + "]",
        )

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED),
                self.is_schedulable_after_update_pod_scheduling_gates_eliminated,
            )
        ]

    def is_schedulable_after_update_pod_scheduling_gates_eliminated(self, pod: Pod, old: Any, new: Any) -> int:
        """Only the gated pod's own update can ungate it."""
        return QueueingHint.QUEUE if same_pod(new, pod) else QueueingHint.SKIP
