"""The plugin registry: the in-tree plugins (upstream plugins.NewInTreeRegistry), name -> class,
merged with the out-of-tree ones a process registered (upstream's app.WithPlugin).

In-tree classes are imported lazily by dotted path so that a plugin module that fails to import
(or does not exist yet) only breaks profiles that actually use it. Out-of-tree plugins are
registered once per process, before any scenario is loaded (`scheduler_core.framework.plugins.plugin_modules`
imports the modules named by `--plugins` or PLAYGROUND_PLUGINS); the registry is process-wide
because a run's checkpoints are rebuilt from it in whichever process restores them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

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


class RegistryError(ValueError):
    """A registration upstream's Registry.Register would refuse (the name is taken, say)."""


# name -> factory (a Plugin class, or any callable (args, handle) -> plugin), in registration order.
_OUT_OF_TREE: dict[str, Callable[..., Any]] = {}


class Registry:
    """What an out-of-tree module's `register(registry)` receives (upstream runtime.Registry):
    `register(name, factory)` adds a plugin, refused when the name is already taken."""

    def __init__(self, target: dict[str, Callable[..., Any]] | None = None) -> None:
        self._target = _OUT_OF_TREE if target is None else target

    def register(self, name: str, factory: Callable[..., Any]) -> None:
        if not isinstance(name, str) or not name:
            raise RegistryError(f"a plugin name must be a non-empty string, got {name!r}")
        if not callable(factory):
            raise RegistryError(f"plugin {name!r}: the factory must be a class or a callable "
                                f"(args, handle) -> plugin, got {type(factory).__name__}")
        declared = getattr(factory, "name", None) if isinstance(factory, type) else None
        if declared is not None and declared != name:
            raise RegistryError(f"plugin {name!r}: its class {factory.__name__} declares name = {declared!r}; "
                                f"the registered name and the class's `name` must be the same")
        if name in IN_TREE_PLUGIN_PATHS:
            raise RegistryError(f'a plugin named "{name}" already exists (an in-tree plugin)')
        for taken in (self._target, _OUT_OF_TREE):
            if name in taken and taken[name] is not factory:
                raise RegistryError(f'a plugin named "{name}" already exists')
        self._target[name] = factory

    def names(self) -> list[str]:
        return list(self._target)


def add_out_of_tree(plugins: dict[str, Callable[..., Any]]) -> None:
    """Make plugins a Registry collected (into a dict of its own) known to the process."""
    _OUT_OF_TREE.update(plugins)


def out_of_tree_points(name: str) -> frozenset[str] | None:
    """The extension points (config spelling: `score`, `preFilter`, ...) a registered out-of-tree
    plugin implements, from the interface classes it inherits; None when no such plugin. A
    factory that is not a class could build anything: every point, and the framework checks."""
    factory = _OUT_OF_TREE.get(name)
    if factory is None:
        return None
    from scheduler_core.framework import interface as fi

    bases = {
        "preEnqueue": fi.PreEnqueuePlugin, "queueSort": fi.QueueSortPlugin, "preFilter": fi.PreFilterPlugin,
        "filter": fi.FilterPlugin, "postFilter": fi.PostFilterPlugin, "preScore": fi.PreScorePlugin,
        "score": fi.ScorePlugin, "reserve": fi.ReservePlugin, "permit": fi.PermitPlugin,
        "preBind": fi.PreBindPlugin, "bind": fi.BindPlugin, "postBind": fi.PostBindPlugin,
    }
    if not isinstance(factory, type):
        return frozenset(bases)
    return frozenset(point for point, base in bases.items() if issubclass(factory, base))


def forget_out_of_tree(names: list[str]) -> None:
    """Unregister out-of-tree plugins (tests that load modules put the process back this way)."""
    for name in names:
        _OUT_OF_TREE.pop(name, None)


def out_of_tree_names() -> list[str]:
    """The names of the out-of-tree plugins this process registered, in registration order."""
    return list(_OUT_OF_TREE)


class _MergedRegistry(dict):
    """In-tree and out-of-tree plugins as one name -> factory mapping (upstream's Registry.Merge)."""

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        factory = _OUT_OF_TREE.get(key)
        return factory if factory is not None else IN_TREE_REGISTRY.get(key, default)

    def __getitem__(self, key: str) -> Any:
        factory = self.get(key)
        if factory is None:
            raise KeyError(key)
        return factory

    def __contains__(self, key: object) -> bool:
        return key in _OUT_OF_TREE or key in IN_TREE_PLUGIN_PATHS

    def __iter__(self):  # noqa: ANN204
        yield from IN_TREE_PLUGIN_PATHS
        yield from _OUT_OF_TREE

    def __len__(self) -> int:
        return len(IN_TREE_PLUGIN_PATHS) + len(_OUT_OF_TREE)

    def keys(self):  # noqa: ANN201
        return list(self)


_MERGED = _MergedRegistry()


def get_registry() -> dict[str, type]:
    """Every plugin this process knows: the in-tree registry while nothing else is registered,
    else in-tree merged with out-of-tree. Classes load on first lookup (`.get(name)` is None for
    unknown names)."""
    return _MERGED if _OUT_OF_TREE else IN_TREE_REGISTRY
