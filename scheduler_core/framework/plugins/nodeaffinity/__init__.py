from scheduler_core.framework.plugins.nodeaffinity.node_affinity import NodeAffinity

__all__ = ["NodeAffinity"]
