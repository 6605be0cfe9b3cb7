from scheduler_core.framework.plugins.nodeunschedulable.node_unschedulable import NodeUnschedulable

__all__ = ["NodeUnschedulable"]
