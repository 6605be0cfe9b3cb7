from scheduler_core.framework.plugins.tainttoleration.taint_toleration import TaintToleration

__all__ = ["TaintToleration"]
