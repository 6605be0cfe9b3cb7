"""PrioritySort: the active queue pops higher-priority pods first, then the earlier-queued one."""

from __future__ import annotations

from scheduler_core.framework.interface import QueueSortPlugin
from scheduler_core.framework.plugins import names
from scheduler_core.framework.types import QueuedPodInfo


def priority_sort_total_less(a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
    """The active queue's order with this plugin, ties included: PrioritySort's `less` in both
    directions, then the order the timestamps were taken in (what the queue adds for pods the
    plugin finds equal). One comparison instead of two calls through the framework: the heap
    makes ~15 of them per pop (tests/engine/perf/test_queue_sort_fast_less.py)."""
    p1 = a.pod_info.pod.priority
    p2 = b.pod_info.pod.priority
    if p1 != p2:
        return p1 > p2
    t1, t2 = a.timestamp, b.timestamp
    if t1 != t2:
        return t1 < t2
    return a.timestamp_seq < b.timestamp_seq


class PrioritySort(QueueSortPlugin):
    name = names.PRIORITY_SORT
    total_less = staticmethod(priority_sort_total_less)

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        p1 = a.pod_info.pod.priority
        p2 = b.pod_info.pod.priority
        return p1 > p2 or (p1 == p2 and a.timestamp < b.timestamp)

