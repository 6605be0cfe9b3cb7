"""Controllers that act on the cluster alongside the scheduler, on the virtual clock.

The NoExecute taint eviction controller (kube-controller-manager's taint-eviction-controller)
deletes pods from nodes whose NoExecute taints they do not tolerate (long enough). The storage
controllers the volume plugins rely on react to the API writes that concern them
(scheduler_core/apiserver/storage.py): `persistentvolume` (the PV controller completing VolumeBinding's
bindings, and a provisioner for WaitForFirstConsumer claims) and `ephemeral` (the ephemeral volume
controller). The workload controllers (`workloads`) expand Deployments, StatefulSets, ... at load.
"""

from scheduler_core.controllers.tainteviction import (
    DELETED_BY,
    EVENT_REASON,
    Eviction,
    PendingEviction,
    TaintEvictionController,
    add_default_toleration_seconds,
    cancelling_deletion_message,
    get_matching_tolerations,
    get_min_toleration_time,
    get_no_execute_taints,
    marking_for_deletion_message,
)

__all__ = [
    "DELETED_BY",
    "EVENT_REASON",
    "Eviction",
    "PendingEviction",
    "TaintEvictionController",
    "add_default_toleration_seconds",
    "cancelling_deletion_message",
    "get_matching_tolerations",
    "get_min_toleration_time",
    "get_no_execute_taints",
    "marking_for_deletion_message",
]
