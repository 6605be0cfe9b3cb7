"""What the API server answers a due Timeline action whose object is gone, or already there.

A Timeline action is a client's API call made at a virtual time. The loader replays the
timeline on names alone, so each action names an object that exists at its time as far as the
timeline itself can tell. Between the load and that time the cluster can still change under it:
a user's live action deletes the node the timeline later marks not-ready, or adds a pod of the
name the timeline adds later; the scheduler preempts or the taint manager evicts a pod the
timeline deletes later; the scheduler binds a pod whose binding the timeline fails later.

A real API server refuses such a call (404 NotFound for a patch or a delete of a missing object,
409 AlreadyExists for a create of a name in use) and the cluster, the scheduler included, goes
on. The run does the same: `Simulation._process_due` skips the action and reports the answer as
a `timeline_action_failed` event (scheduler_core/events/recorder.py). A live action naming a missing
object is still refused before it is applied (`Simulation._check_action`), as a form would be.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["TimelineRefusal", "timeline_refusal"]

# The actions that read-modify-write (or delete) a Node named by `params["node"]`.
_NODE_ACTIONS = frozenset({"deleteNode", "cordon", "uncordon", "addTaint", "removeTaint",
                           "setNodeLabels", "setNodeCondition"})


@dataclass(frozen=True, slots=True)
class TimelineRefusal:
    """The API server's answer to a due timeline action that cannot apply.

    `reason`: upstream's StatusReason (NotFound, AlreadyExists), or AlreadyBound for a failBind
    of a pod the scheduler has bound already (there is no binding left for it to fail);
    `message`: the server's text, e.g. `nodes "worker-2" not found`."""

    action: str
    kind: str  # Pod | Node
    object: str  # the node's name, or the pod's "namespace/name"
    reason: str
    message: str

    def fields(self) -> dict[str, str]:
        """The `timeline_action_failed` event's fields."""
        return {"action": self.action, "kind": self.kind, "object": self.object,
                "reason": self.reason, "message": self.message}


def timeline_refusal(action: str, params: dict[str, Any], cluster: Any) -> TimelineRefusal | None:
    """The refusal for `action` on the cluster as it is now, or None when it applies.

    Only the objects' existence is checked here: everything else about a timeline action was
    validated when the scenario was loaded. The messages are the API server's (resource in the
    plural, the object's name without its namespace)."""
    if action == "addPod":
        pod = params["pod"]
        if pod.key in cluster.pods:
            return TimelineRefusal(action, "Pod", pod.key, "AlreadyExists", f'pods "{pod.name}" already exists')
    elif action in ("deletePod", "failBind"):
        key = _pod_key(params["pod"])
        pod = cluster.pods.get(key)
        if pod is None:
            return TimelineRefusal(action, "Pod", key, "NotFound", f'pods "{_name(key)}" not found')
        if action == "failBind" and pod.node_name:
            return TimelineRefusal(action, "Pod", key, "AlreadyBound",
                                   f'pod "{key}" is already bound to node "{pod.node_name}": '
                                   "there is no binding left to fail")
    elif action == "addNode":
        name = params["node"].name
        if name in cluster.nodes:
            return TimelineRefusal(action, "Node", name, "AlreadyExists", f'nodes "{name}" already exists')
    elif action in _NODE_ACTIONS:
        name = params["node"]
        if name not in cluster.nodes:
            return TimelineRefusal(action, "Node", name, "NotFound", f'nodes "{name}" not found')
    return None


def _pod_key(ref: str) -> str:
    return ref if "/" in ref else f"default/{ref}"


def _name(key: str) -> str:
    return key.rpartition("/")[2]
