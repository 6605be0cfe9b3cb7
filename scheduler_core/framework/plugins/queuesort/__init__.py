from scheduler_core.framework.plugins.queuesort.priority_sort import PrioritySort

__all__ = ["PrioritySort"]
