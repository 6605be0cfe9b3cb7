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
a `timeline_action_failed` event. The names are checked by the one rule of
scheduler_core/actions/names.py on the live cluster; an action's own conflicts (a failBind of a
pod bound already) by its spec. A live action naming a missing object is refused before it is
applied instead, as a form would be (`Simulation.apply_action`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scheduler_core.actions.names import ClusterNames, first_missing

__all__ = ["TimelineRefusal", "timeline_refusal"]

_RESOURCE = {"Pod": "pods", "Node": "nodes", "Deployment": "deployments"}


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


def timeline_refusal(spec: Any, params: dict[str, Any], sim: Any) -> TimelineRefusal | None:
    """The refusal for the action of `spec` (an actions.spec.ActionSpec, which itself names this
    module) on the cluster as it is now, or None when it applies.

    Only the objects' existence (and the spec's own conflicts) are checked here: everything else
    about a timeline action was validated when the scenario was loaded. The messages are the API
    server's (resource in the plural, the object's name without its namespace)."""
    action = spec.name
    missing = first_missing(spec.refs(params), ClusterNames(sim))
    if missing is not None:
        ref = missing.ref
        name = ref.name.rpartition("/")[2]
        if missing.exists:
            return TimelineRefusal(action, ref.kind, ref.name, "AlreadyExists",
                                   f'{_RESOURCE[ref.kind]} "{name}" already exists')
        return TimelineRefusal(action, ref.kind, ref.name, "NotFound", f'{_RESOURCE[ref.kind]} "{name}" not found')
    return spec.conflict(params, sim.scheduler.cluster)
