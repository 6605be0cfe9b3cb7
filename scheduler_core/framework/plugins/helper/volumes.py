"""What the volume plugins share about a pod's volumes.

Pods in this playground carry no volumes yet (`Pod` has no `volumes` field), so these read it
defensively; the volume plugins still run in upstream's pipeline with upstream's statuses.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.types import Pod
from scheduler_core.framework.types import QueueingHint


def pod_volumes(pod: Pod) -> list:
    """The pod's volumes (none unless the API types grow them)."""
    return getattr(pod, "volumes", None) or []


def is_schedulable_after_pvc_change(pod: Pod, old: Any, new: Any) -> int:
    """Queueing hint shared by VolumeBinding and VolumeZone: a PersistentVolumeClaim change
    matters only when it is one of the pod's own claims."""
    if getattr(new, "namespace", None) != pod.namespace:
        return QueueingHint.SKIP
    name = getattr(new, "name", None)
    for v in pod_volumes(pod):
        if getattr(v, "claim_name", None) == name:
            return QueueingHint.QUEUE
    return QueueingHint.SKIP
