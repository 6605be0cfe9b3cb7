"""Controllers that act on the cluster alongside the scheduler, on the virtual clock.

Only the NoExecute taint eviction controller (kube-controller-manager's taint-eviction-controller)
is modelled: it deletes pods from nodes whose NoExecute taints they do not tolerate (long enough).
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
