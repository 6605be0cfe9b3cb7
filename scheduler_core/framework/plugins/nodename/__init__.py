from scheduler_core.framework.plugins.nodename.node_name import NodeName

__all__ = ["NodeName"]
