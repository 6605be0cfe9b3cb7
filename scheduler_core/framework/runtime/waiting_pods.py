"""Pods parked at Permit (upstream framework/runtime/waiting_pods_map.go).

A Permit plugin may answer Wait: the pod stays assumed on its node and its binding cycle resumes
once every waiting plugin allows it, or fails when one rejects it or its timeout passes on the
virtual clock. The in-tree plugin that waits is GangScheduling (alpha, behind its gate): a
gang's members wait here until minCount of them are reserved.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.runtime.framework import Framework
from scheduler_core.framework.types import QueuedPodInfo


@dataclasses.dataclass
class WaitingPod:
    """A pod parked at Permit: its cycle state, node and the plugins still to allow it."""

    qpi: QueuedPodInfo
    state: CycleState
    fwk: Framework
    node: str
    pending: dict[str, float]  # plugin -> deadline (virtual seconds)
    timeouts: dict[str, float] = dataclasses.field(default_factory=dict)  # plugin -> timeout asked


def go_duration(seconds: float) -> str:
    """Go's time.Duration String() for whole and fractional seconds ("10s", "1m30s", "1.5s")."""
    if seconds == 0:
        return "0s"
    m, s = divmod(seconds, 60.0)
    h, m = divmod(int(m), 60)
    sec = f"{s:.9f}".rstrip("0").rstrip(".") + "s"
    if h:
        return f"{h}h{m}m{sec}"
    if m:
        return f"{m}m{sec}"
    return sec


def next_deadline(waiting: dict[str, WaitingPod]) -> float | None:
    """The earliest Permit timeout among the waiting pods (None when none waits)."""
    dls = [dl for wp in waiting.values() for dl in wp.pending.values()]
    return min(dls) if dls else None


def waiting_pods_view(sched: Any) -> list[dict[str, Any]]:
    """The run view's "waitingPods": each pod parked at Permit, where, since when, until when,
    for which plugins, and for a gang member its pod group's progress toward minCount."""
    wm = getattr(sched, "workload_manager", None)
    out = []
    for key, wp in sorted(sched.waiting_pods.items()):
        since = min((dl - wp.timeouts.get(p, 0.0) for p, dl in wp.pending.items()), default=None)
        entry: dict[str, Any] = {"pod": key, "node": wp.node, "plugins": dict(wp.pending)}
        if since is not None:
            entry["since"] = since
            entry["deadline"] = min(wp.pending.values())
        info = wm.pod_group_info(wp.qpi.pod) if wm is not None else None
        ref = wp.qpi.pod.workload_ref
        if info is not None and ref is not None:
            wl = sched.cluster.get_workload(wp.qpi.pod.namespace, ref.name)
            group = wl.pod_group(ref.pod_group) if wl is not None else None
            entry["group"] = {
                "workload": ref.name, "podGroup": ref.pod_group, "replicaKey": ref.pod_group_replica_key,
                "minCount": group.gang_min_count if group is not None else None,
                "members": len(info.all_pods), "assumed": len(info.assumed), "bound": len(info.assigned),
                "unscheduled": sorted(info.unscheduled), "deadlineSetter": info.deadline_setter,
            }
        out.append(entry)
    return out
