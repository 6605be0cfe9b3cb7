from scheduler_core.framework.plugins.imagelocality.image_locality import ImageLocality

__all__ = ["ImageLocality"]
