"""The v1.35 default plugin set and how a profile's custom plugins merge over it
(upstream apis/config/v1/default_plugins.go).

The defaults are one multiPoint list; DynamicResources (DRA is GA and on by default) sits right
before DefaultPreemption so that deallocating an idle claim is tried before evicting pods —
which is why every default FailedScheduling message carries its PostFilter text.
"""

from __future__ import annotations

from scheduler_core.config.types import EXTENSION_POINTS, PluginRef, Plugins, PluginSet
from scheduler_core.featuregate.features import DEFAULT_GATES, FeatureGates

DEFAULT_MULTI_POINT: tuple[tuple[str, int | None], ...] = (
    ("SchedulingGates", None),
    ("PrioritySort", None),
    ("NodeUnschedulable", None),
    ("NodeName", None),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", None),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", None),
    ("NodeVolumeLimits", None),
    ("VolumeBinding", None),
    ("VolumeZone", None),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DynamicResources", 2),
    ("DefaultPreemption", None),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", None),
)


def default_plugins(gates: FeatureGates = DEFAULT_GATES) -> Plugins:
    """The default multiPoint set; DynamicResources only with its feature gate (upstream's
    applyFeatureGates drops it when DynamicResourceAllocation is off, as in v1.30)."""
    enabled = [PluginRef(n, w) for n, w in DEFAULT_MULTI_POINT
               if n != "DynamicResources" or gates.dynamic_resource_allocation]
    # upstream's applyFeatureGates appends the alpha plugins of enabled gates (a run with
    # --feature-gates; see scheduler_core.featuregate).
    if gates.overrides:
        if gates.enabled("NodeDeclaredFeatures"):
            enabled.append(PluginRef("NodeDeclaredFeatures", None))
        if gates.enabled("GangScheduling"):
            enabled.append(PluginRef("GangScheduling", None))
    return Plugins({"multiPoint": PluginSet(enabled=enabled)})


def merge_plugin_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    """upstream mergePluginSet: custom disables remove defaults ("*" removes all); a custom
    enabled plugin with a default's name replaces it in place (keeping order); the remaining
    custom plugins are appended."""
    disabled_names = {p.name for p in custom.disabled} | {p.name for p in default.disabled}
    disabled = [PluginRef(p.name) for p in custom.disabled] + [PluginRef(p.name) for p in default.disabled]
    custom_by_name = {}
    for i, p in enumerate(custom.enabled):
        custom_by_name[p.name] = (i, p)
    replaced: set[int] = set()
    enabled: list[PluginRef] = []
    if "*" not in disabled_names:
        for p in default.enabled:
            if p.name in disabled_names:
                continue
            if p.name in custom_by_name:
                i, cp = custom_by_name[p.name]
                p = cp
                replaced.add(i)
            enabled.append(p)
    for i, p in enumerate(custom.enabled):
        if i not in replaced:
            enabled.append(p)
    return PluginSet(enabled=enabled, disabled=disabled)


def merged_plugins(custom: Plugins | None, gates: FeatureGates = DEFAULT_GATES) -> Plugins:
    """A profile's effective plugin sets per extension point (defaults merged with custom)."""
    base = default_plugins(gates)
    if custom is None:
        return base
    out = Plugins()
    for point in ("multiPoint", *EXTENSION_POINTS):
        out.sets[point] = merge_plugin_set(base.get(point), custom.get(point))
    return out
