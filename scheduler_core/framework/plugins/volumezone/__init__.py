from scheduler_core.framework.plugins.volumezone.volume_zone import VolumeZone

__all__ = ["VolumeZone"]
