"""NodeUnschedulable: a cordoned node (`spec.unschedulable`) takes no new pods, unless the pod
tolerates the `node.kubernetes.io/unschedulable:NoSchedule` taint."""

from __future__ import annotations

from typing import Any

from scheduler_core.api.types import TAINT_EFFECT_NO_SCHEDULE, TAINT_NODE_UNSCHEDULABLE, Node, Pod, Taint
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import ClusterEventWithHint, EnqueueExtensions, FilterPlugin
from scheduler_core.framework.plugins import names
from scheduler_core.framework.plugins.helper import signing
from scheduler_core.framework.plugins.helper.podutil import same_pod
from scheduler_core.framework.plugins.helper.taint import tolerations_tolerate_taint
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import ActionType, ClusterEvent, EventResource, NodeInfo, QueueingHint

ERR_REASON_UNKNOWN_CONDITION = "node(s) had unknown conditions"
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"

_UNSCHEDULABLE_TAINT = Taint(key=TAINT_NODE_UNSCHEDULABLE, effect=TAINT_EFFECT_NO_SCHEDULE)


class NodeUnschedulable(FilterPlugin, EnqueueExtensions):
    name = names.NODE_UNSCHEDULABLE
    filter_reads_only = True  # Filter keeps nothing per node

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not node_info.node.unschedulable:
            return None
        if tolerations_tolerate_taint(pod.tolerations, _UNSCHEDULABLE_TAINT):
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSCHEDULABLE)

    def filter_nodes(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> list[Status | None]:
        # The snapshot counts cordoned nodes: with none, every node passes without a look.
        if getattr(getattr(self.handle, "snapshot", None), "num_unschedulable", None) == 0:
            return [None] * len(nodes)
        f = self.filter
        return [f(state, pod, ni) if ni.node.unschedulable else None for ni in nodes]

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
                self.is_schedulable_after_node_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_TOLERATIONS),
                self.is_schedulable_after_pod_toleration_change,
            ),
        ]

    def is_schedulable_after_pod_toleration_change(self, pod: Pod, old: Any, new: Pod) -> int:
        if same_pod(new, pod) and tolerations_tolerate_taint(new.tolerations, _UNSCHEDULABLE_TAINT):
            return QueueingHint.QUEUE
        return QueueingHint.SKIP

    def is_schedulable_after_node_change(self, pod: Pod, old: Node | None, new: Node) -> int:
        """A node that became (or was added) schedulable may help."""
        if (old is not None and old.unschedulable and not new.unschedulable) or (
            old is None and not new.unschedulable
        ):
            return QueueingHint.QUEUE
        return QueueingHint.SKIP

    def sign_pod(self, pod: Pod) -> dict[str, Any]:
        """This plugin's fragments of the pod's batching signature (upstream SignPod)."""
        return {"tolerations": signing.tolerations(pod)}
