"""The scheduling queue (upstream pkg/scheduler/backend/queue) on a virtual clock."""

from scheduler_core.backend.queue.active_queue import pod_uid
from scheduler_core.backend.queue.backoff_queue import ZERO_TIME, calculate_backoff_duration_ns
from scheduler_core.backend.queue.nominator import NominatingInfo, NominatingMode, Nominator, PodRef
from scheduler_core.backend.queue.scheduling_queue import (
    ACTIVE_Q,
    BACKOFF_Q,
    GATED,
    NONE,
    UNSCHEDULABLE_Q,
    PriorityQueue,
    QueueingStrategy,
    build_queueing_hint_entries,
)

__all__ = [
    "ACTIVE_Q",
    "BACKOFF_Q",
    "GATED",
    "NONE",
    "UNSCHEDULABLE_Q",
    "ZERO_TIME",
    "NominatingInfo",
    "NominatingMode",
    "Nominator",
    "PodRef",
    "PriorityQueue",
    "QueueingStrategy",
    "build_queueing_hint_entries",
    "calculate_backoff_duration_ns",
    "pod_uid",
]
