"""Pods parked at Permit (upstream framework/runtime/waiting_pods_map.go).

A Permit plugin may answer Wait: the pod stays assumed on its node and its binding cycle resumes
once every waiting plugin allows it, or fails when one rejects it or its timeout passes on the
virtual clock. No in-tree plugin waits today, so this only shows with a profile that adds one;
the machinery is kept so the cycle's shape (and the run view's "waitingPods") stays upstream's.
"""

from __future__ import annotations

import dataclasses

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
