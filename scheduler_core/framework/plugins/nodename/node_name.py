"""NodeName: a pod that names a node in `spec.nodeName` fits only that node."""

from __future__ import annotations

from typing import Any

from scheduler_core.api.types import Pod
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import ClusterEventWithHint, EnqueueExtensions, FilterPlugin
from scheduler_core.framework.plugins import names
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import ActionType, ClusterEvent, EventResource, NodeInfo

ERR_REASON = "node(s) didn't match the requested node name"


def fits(pod: Pod, node_info: NodeInfo) -> bool:
    return not pod.node_name or pod.node_name == node_info.node.name


class NodeName(FilterPlugin, EnqueueExtensions):
    name = names.NODE_NAME
    filter_reads_only = True  # Filter keeps nothing per node

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not pod.node_name or pod.node_name == node_info.node.name:
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON)

    def filter_nodes(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> list[Status | None]:
        if not pod.node_name:
            return [None] * len(nodes)
        f = self.filter
        return [f(state, pod, ni) for ni in nodes]

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # QueueingHints are on in v1.35: only a new node can help; no hint function (always Queue).
        return [ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD))]

    def sign_pod(self, pod: Pod) -> dict[str, Any]:
        """This plugin's fragments of the pod's batching signature (upstream SignPod)."""
        return {"nodeName": pod.node_name}
