"""The PriorityClasses every cluster has (the API server creates them at start-up).

Why here, beside the types: the Priority admission plugin (the loader) resolves pods' priorities
against them, and the descheduler's evictor and policy check read them too; the descheduler sits
below the loader, so the classes live where both can import them.
"""

from __future__ import annotations

from scheduler_core.api.types import PriorityClass

__all__ = ["SYSTEM_PRIORITY_CLASSES"]

SYSTEM_PRIORITY_CLASSES: dict[str, PriorityClass] = {
    "system-node-critical": PriorityClass("system-node-critical", 2_000_001_000,
                                          description="Used for system critical pods that must "
                                          "not be moved from their current node."),
    "system-cluster-critical": PriorityClass("system-cluster-critical", 2_000_000_000,
                                             description="Used for system critical pods that "
                                             "must run in the cluster, but can be moved to "
                                             "another node if necessary."),
}
