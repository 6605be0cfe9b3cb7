from scheduler_core.framework.plugins.nodedeclaredfeatures.node_declared_features import NodeDeclaredFeatures

__all__ = ["NodeDeclaredFeatures"]
