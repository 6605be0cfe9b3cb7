"""Cluster events the scheduling queue reacts to (upstream `framework/events.go` and the event
helpers of `framework/types.go`).

A pod rejected by some plugins waits in the unschedulable pool until a cluster event that one of
those plugins registered (EventsToRegister) arrives and the plugin's queueing hint says the event
may make the pod schedulable. This module names the predefined events, derives the fine-grained
events a Node or Pod update produces (only the changed properties, so that a label change does not
wake pods rejected for taints), and implements upstream's event matching rules.
"""

from __future__ import annotations

from scheduler_core.api.types import Node, Pod
from scheduler_core.framework.types import (
    ActionType,
    ClusterEvent,
    EventResource,
    milli_value,
    pod_requests,
)

# Special event labels (upstream framework constants, also used as metric labels).
SCHEDULE_ATTEMPT_FAILURE = "ScheduleAttemptFailure"
BACKOFF_COMPLETE = "BackoffComplete"
POP_FROM_BACKOFF_Q = "PopFromBackoffQ"
FORCE_ACTIVATE = "ForceActivate"
UNSCHEDULABLE_TIMEOUT = "UnschedulableTimeout"

_ASSIGNED = EventResource.ASSIGNED_POD
_UNSCHEDULED = EventResource.UNSCHEDULED_POD

EVENT_ASSIGNED_POD_ADD = ClusterEvent(_ASSIGNED, ActionType.ADD)
EVENT_ASSIGNED_POD_UPDATE = ClusterEvent(_ASSIGNED, ActionType.UPDATE)
EVENT_ASSIGNED_POD_DELETE = ClusterEvent(_ASSIGNED, ActionType.DELETE)
EVENT_UNSCHEDULED_POD_ADD = ClusterEvent(_UNSCHEDULED, ActionType.ADD)
EVENT_UNSCHEDULED_POD_UPDATE = ClusterEvent(_UNSCHEDULED, ActionType.UPDATE)
EVENT_UNSCHEDULED_POD_DELETE = ClusterEvent(_UNSCHEDULED, ActionType.DELETE)
EVENT_UNSCHEDULABLE_TIMEOUT = ClusterEvent(EventResource.WILDCARD, ActionType.ALL, UNSCHEDULABLE_TIMEOUT)
EVENT_FORCE_ACTIVATE = ClusterEvent(EventResource.WILDCARD, ActionType.ALL, FORCE_ACTIVATE)
EVENT_NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD)
EVENT_NODE_DELETE = ClusterEvent(EventResource.NODE, ActionType.DELETE)
# A node update that none of the specific extractors recognises (upstream falls back to it in the
# event handlers when NodeSchedulingPropertiesChange returns nothing; it is then not delivered).
EVENT_NODE_UPDATE = ClusterEvent(EventResource.NODE, ActionType.UPDATE)

# What a plugin without EnqueueExtensions is registered for (upstream UnrollWildCardResource;
# the Workload resource is behind the alpha GenericWorkload gate, off in v1.35).
UNROLLED_WILDCARD_EVENTS: tuple[ClusterEvent, ...] = tuple(
    ClusterEvent(r, ActionType.ALL)
    for r in (
        EventResource.POD,
        EventResource.NODE,
        EventResource.PERSISTENT_VOLUME,
        EventResource.PERSISTENT_VOLUME_CLAIM,
        EventResource.CSI_NODE,
        EventResource.CSI_DRIVER,
        "CSIStorageCapacity",
        EventResource.STORAGE_CLASS,
        EventResource.RESOURCE_CLAIM,
        EventResource.DEVICE_CLASS,
    )
)

_ACTION_NAMES = {
    ActionType.ADD: "Add",
    ActionType.DELETE: "Delete",
    ActionType.UPDATE_NODE_ALLOCATABLE: "UpdateNodeAllocatable",
    ActionType.UPDATE_NODE_LABEL: "UpdateNodeLabel",
    ActionType.UPDATE_NODE_TAINT: "UpdateNodeTaint",
    ActionType.UPDATE_NODE_CONDITION: "UpdateNodeCondition",
    ActionType.UPDATE_NODE_ANNOTATION: "UpdateNodeAnnotation",
    ActionType.UPDATE_NODE_DECLARED_FEATURE: "UpdateNodeDeclaredFeature",
    ActionType.UPDATE_POD_LABEL: "UpdatePodLabel",
    ActionType.UPDATE_POD_SCALE_DOWN: "UpdatePodScaleDown",
    ActionType.UPDATE_POD_TOLERATIONS: "UpdatePodToleration",
    ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED: "UpdatePodSchedulingGatesEliminated",
    ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM: "UpdatePodGeneratedResourceClaim",
    ActionType.ALL: "All",
    ActionType.UPDATE: "Update",
}


def action_type_string(a: int) -> str:
    """fwk.ActionType.String(): the name of a single action (or All/Update); "" otherwise."""
    return _ACTION_NAMES.get(a, "")


def event_label(ce: ClusterEvent) -> str:
    """ClusterEvent.Label(): the custom label, else resource + action name (e.g. `NodeAdd`,
    `AssignedPodDelete`, `NodeUpdateNodeTaint`, `UnschedulablePodUpdatePodLabel`)."""
    if ce.label:
        return ce.label
    return f"{ce.resource}{action_type_string(ce.action_type)}"


def cluster_event_is_wildcard(ce: ClusterEvent) -> bool:
    """Upstream ClusterEventIsWildCard: resource `*` and action All (custom label ignored)."""
    return ce.resource == EventResource.WILDCARD and ce.action_type == ActionType.ALL


def match_event_resources(r: str, resource: str) -> bool:
    return r == EventResource.WILDCARD or r == resource or (
        r == EventResource.POD and resource in (_ASSIGNED, _UNSCHEDULED)
    )


def match_cluster_events(ce: ClusterEvent, incoming: ClusterEvent) -> bool:
    """Upstream MatchClusterEvents: does the registered event `ce` cover `incoming`? The incoming
    event must be the same or more specific (Node/UpdateNodeLabel matches a registered
    Node/Update, not the other way round). A wildcard incoming event matches only a wildcard
    registration."""
    return cluster_event_is_wildcard(ce) or (
        match_event_resources(ce.resource, incoming.resource)
        and (ce.action_type & incoming.action_type) != 0
        and incoming.action_type <= ce.action_type
    )


def match_any_cluster_event(ce: ClusterEvent, registered: list[ClusterEvent]) -> bool:
    """Upstream MatchAnyClusterEvent: does any registered event cover the incoming `ce`?"""
    return any(match_cluster_events(e, ce) for e in registered)


# --- Pod updates ------------------------------------------------------------------------------

def _pod_scale_down(new: Pod, old: Pod) -> int:
    new_req = pod_requests(new)
    for name, old_q in pod_requests(old).items():
        new_q = new_req.get(name)
        if new_q is None or milli_value(old_q) > milli_value(new_q):
            return ActionType.UPDATE_POD_SCALE_DOWN
    return ActionType.NONE


def _pod_labels(new: Pod, old: Pod) -> int:
    return ActionType.UPDATE_POD_LABEL if (new.labels or {}) != (old.labels or {}) else ActionType.NONE


def _pod_gates_eliminated(new: Pod, old: Pod) -> int:
    if not new.scheduling_gates and old.scheduling_gates:
        return ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED
    return ActionType.NONE


def _pod_tolerations(new: Pod, old: Pod) -> int:
    # The API only allows adding tolerations, so a length change is the whole signal.
    if len(new.tolerations) != len(old.tolerations):
        return ActionType.UPDATE_POD_TOLERATIONS
    return ActionType.NONE


def _pod_generated_claims(new: Pod, old: Pod) -> int:
    # Pods here carry no ResourceClaim statuses; compare them if the API type ever grows them.
    a = getattr(new, "resource_claim_statuses", None)
    b = getattr(old, "resource_claim_statuses", None)
    return ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM if a != b else ActionType.NONE


_POD_EXTRACTORS = (_pod_labels, _pod_scale_down, _pod_gates_eliminated, _pod_tolerations, _pod_generated_claims)


def pod_scheduling_properties_change(new_pod: Pod, old_pod: Pod) -> list[ClusterEvent]:
    """PodSchedulingPropertiesChange: the UpdatePodXYZ events an update produces, on the
    AssignedPod or UnschedulablePod resource; a generic Update when none applies."""
    r = _ASSIGNED if new_pod.node_name else _UNSCHEDULED
    events = []
    for fn in _POD_EXTRACTORS:
        a = fn(new_pod, old_pod)
        if a != ActionType.NONE:
            events.append(ClusterEvent(r, a))
    if not events:
        events.append(ClusterEvent(r, ActionType.UPDATE))
    return events


# --- Node updates -----------------------------------------------------------------------------

def _conditions(node: Node) -> dict:
    conds = getattr(node, "conditions", None)
    if not conds:
        return {}
    if isinstance(conds, dict):
        return dict(conds)
    out = {}
    for c in conds:
        if isinstance(c, dict):
            out[c.get("type")] = c.get("status")
        else:
            out[c.type] = c.status
    return out


def _node_unschedulable(new: Node, old: Node) -> int:
    # Only un-cordoning can make pods schedulable; upstream reports it as a taint change.
    if new.unschedulable != old.unschedulable and not new.unschedulable:
        return ActionType.UPDATE_NODE_TAINT
    return ActionType.NONE


def _node_allocatable(new: Node, old: Node) -> int:
    return ActionType.UPDATE_NODE_ALLOCATABLE if old.allocatable != new.allocatable else ActionType.NONE


def _node_labels(new: Node, old: Node) -> int:
    return ActionType.UPDATE_NODE_LABEL if (new.labels or {}) != (old.labels or {}) else ActionType.NONE


def _node_taints(new: Node, old: Node) -> int:
    return ActionType.UPDATE_NODE_TAINT if list(new.taints) != list(old.taints) else ActionType.NONE


def _node_conditions(new: Node, old: Node) -> int:
    return ActionType.UPDATE_NODE_CONDITION if _conditions(old) != _conditions(new) else ActionType.NONE


def _node_annotations(new: Node, old: Node) -> int:
    a = getattr(new, "annotations", None) or {}
    b = getattr(old, "annotations", None) or {}
    return ActionType.UPDATE_NODE_ANNOTATION if a != b else ActionType.NONE


# NodeDeclaredFeatures is alpha (off) in v1.35, so its extractor is not in the list.
_NODE_EXTRACTORS = (
    _node_unschedulable, _node_allocatable, _node_labels, _node_taints, _node_conditions, _node_annotations,
)


def node_scheduling_properties_change(new_node: Node, old_node: Node) -> list[ClusterEvent]:
    """NodeSchedulingPropertiesChange: one Node/UpdateNodeXYZ event per changed property, in
    upstream's order (spec.unschedulable -> UpdateNodeTaint, allocatable, labels, taints,
    conditions, annotations). Both an un-cordon and a taint change yield UpdateNodeTaint, twice.
    An empty list means no property that matters to scheduling changed."""
    events = []
    for fn in _NODE_EXTRACTORS:
        a = fn(new_node, old_node)
        if a != ActionType.NONE:
            events.append(ClusterEvent(EventResource.NODE, a))
    return events
