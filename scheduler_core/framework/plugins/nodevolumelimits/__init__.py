from scheduler_core.framework.plugins.nodevolumelimits.csi import CSILimits

__all__ = ["CSILimits"]
