from scheduler_core.framework.plugins.dynamicresources.dynamicresources import DynamicResources

__all__ = ["DynamicResources"]
