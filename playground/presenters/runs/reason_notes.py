"""Plain-language notes for the volume and device reasons, and for what the binding cycle's
Reserve and PreBind steps did with storage and devices.

Why: upstream's reasons are terse ("node(s) had no available volume zone"); a learner meeting
them in the filter matrix or a pod's "why pending" needs one sentence on what was compared. The
texts are keyed by upstream's exact reason strings (the ones the plugins emit), so a note is
shown only for a reason that really occurred; the Reserve/PreBind notes are built from the
cycle's own events (storage changes, claim allocations), never assumed.
"""

from __future__ import annotations

from typing import Any

__all__ = ["REASON_NOTES", "notes_for", "reserve_note", "prebind_note"]

# (plugin, upstream reason or its fixed start) -> what it means, in plain words.
REASON_NOTES: list[tuple[str, str, str]] = [
    ("VolumeBinding", "pod has unbound immediate PersistentVolumeClaims",
     "a claim of the pod uses an Immediate StorageClass and is not bound yet: the PV controller must bind it "
     "before any node can be chosen, so every node fails at PreFilter"),
    ("VolumeBinding", "node(s) didn't match PersistentVolume's node affinity",
     "a claim of the pod is bound to a PersistentVolume whose nodeAffinity (a local disk, a zonal volume) "
     "does not include this node"),
    ("VolumeBinding", "node(s) didn't find available persistent volumes to bind",
     "a WaitForFirstConsumer claim found no unbound PersistentVolume of its class, access modes and size "
     "usable on this node, and its class cannot provision one here (no provisioner, or allowedTopologies "
     "excludes the node)"),
    ("VolumeBinding", "node(s) did not have enough free storage",
     "the claim's class provisions with storage capacity tracking and this node's capacity is too small"),
    ("VolumeBinding", "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)",
     "a claim names a PersistentVolume that does not exist"),
    ("VolumeZone", "node(s) had no available volume zone",
     "a volume the pod uses is labelled with a zone or region (topology.kubernetes.io/zone) that differs "
     "from this node's label"),
    ("VolumeRestrictions", "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode",
     "the claim is ReadWriteOncePod and another pod already uses it: PreFilter counts the other users, and "
     "Filter refuses every node while there is one; preemption may remove a lower-priority holder"),
    ("VolumeRestrictions", "node(s) had no available disk",
     "a pod on this node already mounts the same in-tree disk (GCE PD, AWS EBS, RBD, iSCSI) in a "
     "conflicting way"),
    ("NodeVolumeLimits", "node(s) exceed max volume count",
     "the CSI volumes of the pods on this node plus this pod's would pass the driver's allocatable count "
     "in the node's CSINode"),
    ("DynamicResources", "cannot allocate all claims",
     "the allocator found no free devices in this node's ResourceSlices that satisfy every request of the "
     "pod's claims (DeviceClass and request CEL selectors, counts, constraints); devices other claims hold "
     "are not free. With DRAExtendedResource this includes the claim the scheduler makes for an extended "
     "resource (e.g. example.com/gpu) that a DeviceClass serves and the node does not advertise"),
    ("DynamicResources", "cannot schedule extended resource claim",
     "the claim the scheduler made for the pod's extended resources in an earlier attempt still exists; "
     "PostFilter deletes it and the pod starts anew"),
    ("DynamicResources", "cannot fit resource",
     "the pod asks for an extended resource that neither this node's allocatable nor any DeviceClass "
     "provides"),
    ("DynamicResources", "resourceclaim not available on the node",
     "the claim is already allocated, and its devices are reachable only from other nodes"),
    ("DynamicResources", "device class",
     "a request names a DeviceClass the cluster does not have"),
]


# DynamicResources' PostFilter when its PreFilter never ran for the pod: upstream reads its cycle
# state, finds none, and answers with the state's own error text, "not found".
POSTFILTER_NOT_FOUND = "not found"
POSTFILTER_NOT_FOUND_NOTE = (
    "upstream's own text, not a fault of the playground: an earlier PreFilter plugin (here "
    "typically VolumeBinding, for an unbound Immediate claim) rejected the pod, so DynamicResources' "
    "PreFilter never ran; its PostFilter then finds no state of its own and kube-scheduler reports "
    "that lookup's error, \"not found\", as an Error status and as the end of the FailedScheduling "
    "message. Nothing is missing from the cluster; fix the first reason"
)


def _postfilter_not_found(texts: list[str] | str) -> bool:
    """A PostFilter reason list that is exactly "not found", or a FailedScheduling message whose
    last part (the PostFilter's) is."""
    if isinstance(texts, str):
        return texts.endswith(". " + POSTFILTER_NOT_FOUND) or texts == POSTFILTER_NOT_FOUND
    return POSTFILTER_NOT_FOUND in texts or any(_postfilter_not_found(t) for t in texts)


def notes_for(texts: list[str] | str | None) -> list[dict[str, str]]:
    """The notes for the known volume and device reasons in `texts` (reasons or a whole
    FailedScheduling message), once each, in table order; then the note on DynamicResources'
    PostFilter "not found", when that is upstream's answer in `texts`."""
    if not texts:
        return []
    joined = texts if isinstance(texts, str) else "\n".join(texts)
    notes = [{"plugin": plugin, "reason": reason, "note": note}
             for plugin, reason, note in REASON_NOTES if reason in joined]
    if _postfilter_not_found(texts):
        notes.append({"plugin": "DynamicResources", "reason": POSTFILTER_NOT_FOUND, "note": POSTFILTER_NOT_FOUND_NOTE})
    return notes


def _storage_parts(storage: list[dict[str, Any]]) -> list[str]:
    parts = []
    for e in storage:
        change = str(e.get("change", ""))
        if e.get("kind") == "PersistentVolume" and change.startswith("claimRef set to"):
            parts.append(f"claim {change.split('claimRef set to ', 1)[1].split(' for pod')[0]} "
                         f"to PersistentVolume {e.get('name')}")
        elif change.startswith("annotated volume.kubernetes.io/selected-node="):
            node = change.split("=", 1)[1].split(" ", 1)[0]
            parts.append(f"claim {e.get('name')} to a new volume provisioned for node {node}")
    return parts


def reserve_note(storage: list[dict[str, Any]], claims: list[dict[str, Any]]) -> str:
    """What Reserve assumed, in the scheduler's memory only, from what PreBind then wrote."""
    parts = _storage_parts(storage)
    said = []
    if parts:
        said.append("VolumeBinding assumed the bindings " + "; ".join(parts) + " in its cache")
    allocated = [c for c in claims if c.get("action") == "allocated"]
    if allocated:
        said.append("DynamicResources assumed the allocation of " + "; ".join(
            f"{c.get('claim')} ({', '.join(c.get('devices') or [])})" for c in allocated)
                    + ", so the next pods see those devices taken")
    if not said:
        return ""
    return ". ".join(said) + ". Nothing is written to the API yet: a failure later would undo it (Unreserve)."


def prebind_note(storage: list[dict[str, Any]], claims: list[dict[str, Any]]) -> str:
    """What PreBind wrote to the API before the pod was bound."""
    said = []
    for e in storage:
        change = str(e.get("change", ""))
        if change.startswith("annotated volume.kubernetes.io/selected-node="):
            said.append(f"VolumeBinding annotated claim {e.get('name')} with the selected node, asking the "
                        "provisioner to create its volume there, and waited for the claim to be bound")
        elif change.startswith("claimRef set to"):
            said.append(f"VolumeBinding bound PersistentVolume {e.get('name')} to its claim (claimRef) and "
                        "waited for the PV controller to complete the binding")
    for c in claims:
        if c.get("action") == "created":  # DRAExtendedResource: the special claim
            said.append(f"DynamicResources created claim {c.get('claim')} for the extended resources of "
                        f"{c.get('pod')} that DRA serves on this node")
        elif c.get("action") == "allocated":
            said.append(f"DynamicResources wrote the allocation of {c.get('claim')} to its status and "
                        f"reserved it for {c.get('pod')} (reservedFor)")
        elif c.get("action") == "reserved":
            said.append(f"DynamicResources added {c.get('pod')} to the reservedFor of the already allocated "
                        f"claim {c.get('claim')}")
    return "; ".join(said) + "." if said else ""
