"""NodeDeclaredFeatures (alpha in v1.35, in the default profile only with its gate): a pod whose
spec needs a node feature may only go to nodes whose kubelet declares it (status.declaredFeatures).

The features a pod needs are inferred from its spec (component-helpers/nodedeclaredfeatures): of
the features v1.35 knows, only RestartAllContainersOnContainerExits is needed for scheduling, by a
container with a restartPolicyRules action RestartAllContainers. A pod needing nothing skips the
plugin; a node missing a feature is UnschedulableAndUnresolvable (preemption cannot add it).
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.types import Pod
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import ClusterEventWithHint, EnqueueExtensions, FilterPlugin, PreFilterPlugin
from scheduler_core.framework.plugins import names
from scheduler_core.framework.status import SKIP, Code, Status
from scheduler_core.framework.types import (
    ActionType,
    ClusterEvent,
    EventResource,
    NodeInfo,
    PreFilterResult,
    QueueingHint,
)

PRE_FILTER_STATE_KEY = "PreFilter" + names.NODE_DECLARED_FEATURES
RESTART_ALL_CONTAINERS_ON_CONTAINER_EXITS = "RestartAllContainersOnContainerExits"


def infer_for_scheduling(pod: Pod) -> frozenset[str]:
    """The node features `pod` needs to be scheduled (InferForPodScheduling; regular containers only)."""
    for c in pod.containers:
        if "RestartAllContainers" in c.restart_rule_actions:
            return frozenset({RESTART_ALL_CONTAINERS_ON_CONTAINER_EXITS})
    return frozenset()


class NodeDeclaredFeatures(PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    name = names.NODE_DECLARED_FEATURES

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        reqs = infer_for_scheduling(pod)
        if not reqs:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, reqs)
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        reqs = state.get(PRE_FILTER_STATE_KEY)
        if reqs is None:
            return Status.error(f'error reading "{PRE_FILTER_STATE_KEY}" from cycle-state: not found')
        declared = set(node_info.node.declared_features)
        missing = sorted(r for r in reqs if r not in declared)
        if missing:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                          "node declared features check failed - unsatisfied requirements: " + ", ".join(missing))
        return None

    def sign_pod(self, pod: Pod) -> dict[str, Any]:
        """This plugin's fragment of the pod's batching signature (upstream SignPod): the node
        features the pod needs, the only thing its Filter reads from the pod."""
        return {"features": tuple(sorted(infer_for_scheduling(pod)))}

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_DECLARED_FEATURE),
                                 self.is_schedulable_after_node_change),
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.UPDATE),
                                 self.is_schedulable_after_pod_update),
        ]

    def is_schedulable_after_node_change(self, pod: Pod, old: Any, new: Any) -> int:
        if old is not None and tuple(old.declared_features) == tuple(new.declared_features):
            return QueueingHint.SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_pod_update(self, pod: Pod, old: Any, new: Any) -> int:
        if new is None or new.uid != pod.uid:
            return QueueingHint.SKIP
        if old is not None and infer_for_scheduling(old) == infer_for_scheduling(new):
            return QueueingHint.SKIP
        return QueueingHint.QUEUE
