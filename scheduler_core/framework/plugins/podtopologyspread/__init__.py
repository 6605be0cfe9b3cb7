"""PodTopologySpread: spreads a pod group evenly over topology domains (filter + score)."""

from scheduler_core.framework.plugins.podtopologyspread.plugin import PodTopologySpread

__all__ = ["PodTopologySpread"]
