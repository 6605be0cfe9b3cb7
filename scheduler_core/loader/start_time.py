"""status.startTime of running pods: what preemption's last criterion compares.

A kubelet sets a pod's start time when it starts the pod; the playground has no kubelet, so a
pod it binds has none and upstream's GetPodStartTime answers "now" for it. A scenario may give
the start times a kubelet would have set, on pods that already run (spec.nodeName):

* a number: virtual seconds, usually negative (`-3600`: an hour before the run started);
* an RFC 3339 time, as `kubectl get pods -o yaml` prints it: the scenario's newest such time is
  the run's start (0), the others count back from it, so a dump keeps its pods' order.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from scheduler_core.api.types import Pod
from scheduler_core.loader.reader import FieldReader

__all__ = ["read_start_times"]


def _timestamp(r: FieldReader, value: str) -> float:
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise r.err("status.startTime", f'Invalid value: "{value}": an RFC 3339 time '
                                        "(2025-03-14T09:26:53Z) or virtual seconds (-3600)") from None
    if moment.tzinfo is None:
        raise r.err("status.startTime", f'Invalid value: "{value}": an RFC 3339 time needs a zone (Z)')
    return moment.timestamp()


def read_start_times(pods: list[tuple[FieldReader, Pod, dict[str, Any]]]) -> None:
    """Set `start_time` on the pods whose document gives status.startTime (see the module)."""
    stamped: list[tuple[Pod, float]] = []
    for r, pod, obj in pods:
        status = obj.get("status")
        value = status.get("startTime") if isinstance(status, dict) else None
        if value is None:
            continue
        if not pod.node_name:
            raise r.err("status.startTime", "Forbidden: only a pod that runs on a node (spec.nodeName) "
                                            "has a start time; a kubelet sets it when it starts the pod")
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise r.err("status.startTime", f"Invalid value: {value!r}: an RFC 3339 time or virtual seconds")
        if isinstance(value, str):
            stamped.append((pod, _timestamp(r, value)))
            continue
        if not math.isfinite(value):
            raise r.err("status.startTime", f"Invalid value: {value!r}: a finite number of seconds")
        pod.start_time = float(value)
    if stamped:
        newest = max(t for _, t in stamped)
        for pod, t in stamped:
            pod.start_time = t - newest
