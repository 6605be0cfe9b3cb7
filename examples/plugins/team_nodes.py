"""TeamNodes, the smallest useful Filter plugin (docs/plugins.md, steps 2 to 4).

A pod labelled `team: X` may only run on nodes labelled `team: X`; pods without the label go
anywhere. The label key comes from the plugin's args (`labelKey`, default `team`). Such pods are
retried when a node is added or its labels change (EnqueueExtensions).
"""

from __future__ import annotations

from typing import Any

from scheduler_core.framework.api import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EnqueueExtensions,
    EventResource,
    FilterPlugin,
    Handle,
    NodeInfo,
    PluginArgsError,
    Pod,
    Registry,
    Status,
)

NAME = "TeamNodes"


class TeamNodes(FilterPlugin, EnqueueExtensions):
    """A pod labelled team=X runs only on nodes labelled team=X."""

    name = NAME

    def __init__(self, args: dict[str, Any] | None = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        self.key = self.args.get("labelKey", "team")
        if not isinstance(self.key, str) or not self.key:
            raise PluginArgsError(f"{NAME}: labelKey: must be a non-empty string")

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        team = pod.labels.get(self.key)
        if team is None or node_info.node.labels.get(self.key) == team:
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, f"node(s) didn't match the pod's {self.key}")

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL))]


def register(registry: Registry) -> None:
    registry.register(NAME, TeamNodes)
