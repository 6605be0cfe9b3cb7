from scheduler_core.framework.plugins.defaultbinder.default_binder import DefaultBinder

__all__ = ["DefaultBinder"]
