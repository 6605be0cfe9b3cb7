"""NodeResourcesFit and NodeResourcesBalancedAllocation (upstream plugins/noderesources)."""

from scheduler_core.framework.plugins.noderesources.balanced_allocation import BalancedAllocation
from scheduler_core.framework.plugins.noderesources.fit import Fit

__all__ = ["BalancedAllocation", "Fit"]
