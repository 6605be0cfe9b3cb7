"""InterPodAffinity: required and preferred pod affinity / anti-affinity (filter + score)."""

from scheduler_core.framework.plugins.interpodaffinity.plugin import InterPodAffinity

__all__ = ["InterPodAffinity"]
