from scheduler_core.framework.plugins.schedulinggates.scheduling_gates import SchedulingGates

__all__ = ["SchedulingGates"]
