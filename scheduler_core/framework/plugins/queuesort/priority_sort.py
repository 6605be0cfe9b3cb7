"""PrioritySort: the active queue pops higher-priority pods first, then the earlier-queued one."""

from __future__ import annotations

from scheduler_core.framework.interface import QueueSortPlugin
from scheduler_core.framework.plugins import names
from scheduler_core.framework.types import QueuedPodInfo


class PrioritySort(QueueSortPlugin):
    name = names.PRIORITY_SORT

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        p1 = a.pod_info.pod.priority
        p2 = b.pod_info.pod.priority
        return p1 > p2 or (p1 == p2 and a.timestamp < b.timestamp)
