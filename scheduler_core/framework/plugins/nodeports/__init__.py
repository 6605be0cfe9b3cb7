from scheduler_core.framework.plugins.nodeports.node_ports import NodePorts

__all__ = ["NodePorts"]
