"""The in-tree plugin registry (upstream plugins.NewInTreeRegistry): plugin name -> class.

Classes are imported lazily by dotted path so that a plugin module that fails to import (or does
not exist yet) only breaks profiles that actually use it.
"""

from __future__ import annotations

import importlib

from scheduler_core.framework.plugins import names

_BASE = "scheduler_core.framework.plugins"

IN_TREE_PLUGIN_PATHS: dict[str, str] = {
    names.DYNAMIC_RESOURCES: f"{_BASE}.dynamicresources.dynamicresources:DynamicResources",
    names.IMAGE_LOCALITY: f"{_BASE}.imagelocality.image_locality:ImageLocality",
    names.TAINT_TOLERATION: f"{_BASE}.tainttoleration.taint_toleration:TaintToleration",
    names.NODE_NAME: f"{_BASE}.nodename.node_name:NodeName",
    names.NODE_PORTS: f"{_BASE}.nodeports.node_ports:NodePorts",
    names.NODE_AFFINITY: f"{_BASE}.nodeaffinity.node_affinity:NodeAffinity",
    names.POD_TOPOLOGY_SPREAD: f"{_BASE}.podtopologyspread.plugin:PodTopologySpread",
    names.NODE_UNSCHEDULABLE: f"{_BASE}.nodeunschedulable.node_unschedulable:NodeUnschedulable",
    names.NODE_RESOURCES_FIT: f"{_BASE}.noderesources.fit:Fit",
    names.NODE_RESOURCES_BALANCED_ALLOCATION: f"{_BASE}.noderesources.balanced_allocation:BalancedAllocation",
    names.VOLUME_BINDING: f"{_BASE}.volumebinding.volume_binding:VolumeBinding",
    names.VOLUME_RESTRICTIONS: f"{_BASE}.volumerestrictions.volume_restrictions:VolumeRestrictions",
    names.VOLUME_ZONE: f"{_BASE}.volumezone.volume_zone:VolumeZone",
    names.NODE_VOLUME_LIMITS: f"{_BASE}.nodevolumelimits.csi:CSILimits",
    names.INTER_POD_AFFINITY: f"{_BASE}.interpodaffinity.plugin:InterPodAffinity",
    names.PRIORITY_SORT: f"{_BASE}.queuesort.priority_sort:PrioritySort",
    names.DEFAULT_BINDER: f"{_BASE}.defaultbinder.default_binder:DefaultBinder",
    names.DEFAULT_PREEMPTION: f"{_BASE}.defaultpreemption.default_preemption:DefaultPreemption",
    names.SCHEDULING_GATES: f"{_BASE}.schedulinggates.scheduling_gates:SchedulingGates",
    names.GANG_SCHEDULING: f"{_BASE}.gangscheduling.gang_scheduling:GangScheduling",
    names.NODE_DECLARED_FEATURES: f"{_BASE}.nodedeclaredfeatures.node_declared_features:NodeDeclaredFeatures",
}

_cache: dict[str, type] = {}


def get_plugin_class(name: str) -> type:
    """The class registered under `name`; KeyError for an unknown name, ImportError/AttributeError
    when its module cannot provide it."""
    cls = _cache.get(name)
    if cls is None:
        module_name, _, attr = IN_TREE_PLUGIN_PATHS[name].partition(":")
        cls = getattr(importlib.import_module(module_name), attr)
        _cache[name] = cls
    return cls


class _LazyRegistry(dict):
    """A dict name -> class that imports each class on first access."""

    def __missing__(self, key: str) -> type:
        cls = get_plugin_class(key)
        self[key] = cls
        return cls

    def __contains__(self, key: object) -> bool:
        return key in IN_TREE_PLUGIN_PATHS

    def __iter__(self):  # noqa: ANN204
        return iter(IN_TREE_PLUGIN_PATHS)

    def __len__(self) -> int:
        return len(IN_TREE_PLUGIN_PATHS)

    def keys(self):  # noqa: ANN201
        return IN_TREE_PLUGIN_PATHS.keys()

    def items(self):  # noqa: ANN201
        return [(k, self[k]) for k in IN_TREE_PLUGIN_PATHS]

    def values(self):  # noqa: ANN201
        return [self[k] for k in IN_TREE_PLUGIN_PATHS]

    def get(self, key: str, default: type | None = None) -> type | None:  # type: ignore[override]
        if key not in IN_TREE_PLUGIN_PATHS:
            return default
        return self[key]


IN_TREE_REGISTRY: dict[str, type] = _LazyRegistry()


def get_registry() -> dict[str, type]:
    """The in-tree registry; classes load on first lookup (`.get(name)` is None for unknown names)."""
    return IN_TREE_REGISTRY
