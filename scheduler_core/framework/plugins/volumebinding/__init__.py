from scheduler_core.framework.plugins.volumebinding.volume_binding import VolumeBinding

__all__ = ["VolumeBinding"]
