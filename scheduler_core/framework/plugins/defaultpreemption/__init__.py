"""DefaultPreemption plugin (upstream framework/plugins/defaultpreemption)."""

from scheduler_core.framework.plugins.defaultpreemption.default_preemption import NAME, DefaultPreemption

__all__ = ["NAME", "DefaultPreemption"]
