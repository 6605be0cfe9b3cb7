from scheduler_core.framework.plugins.volumerestrictions.volume_restrictions import VolumeRestrictions

__all__ = ["VolumeRestrictions"]
