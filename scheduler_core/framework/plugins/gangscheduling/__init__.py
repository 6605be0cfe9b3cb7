from scheduler_core.framework.plugins.gangscheduling.gang_scheduling import GangScheduling

__all__ = ["GangScheduling"]
