"""Reading a DeschedulerPolicy document strictly: unknown fields, unknown plugins, a plugin
enabled at the wrong extension point and invalid args are refused with the document and field
path; at most one policy per scenario. The loader takes it out of the document stream (like a
Lesson), so the other documents keep their numbers."""

from __future__ import annotations

import re
from typing import Any

from scheduler_core.api.errors import ScenarioError

from . import argsreader as ar
from .argsregistry import ARGS, NOT_MODELLED
from .policy import API_VERSION, KIND, DeschedulerPolicy, DeschedulerProfile, PluginConfig, Plugins, PluginSet

TOP_FIELDS = ("apiVersion", "kind", "profiles", "nodeSelector", "maxNoOfPodsToEvictPerNode",
              "maxNoOfPodsToEvictPerNamespace", "maxNoOfPodsToEvictTotal", "deschedulingInterval")
EXTENSION_POINTS = {"deschedule": "deschedule", "balance": "balance", "filter": "evictor",
                    "preEvictionFilter": "evictor"}
MIN_INTERVAL = 1.0  # virtual seconds
_DURATION = re.compile(r"^(\d+(?:\.\d+)?(?:h|m|s|ms))+$")
_PART = re.compile(r"(\d+(?:\.\d+)?)(h|ms|m|s)")
_UNIT = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


def parse_duration(value: Any, path: str, err: ar.Err) -> float | None:
    """A Go duration ("5m", "1h30m", "90s") or a number of seconds."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise err(path, f"Invalid value: {value!r}: expected a duration such as 5m or 300s")
    if isinstance(value, (int, float)):
        seconds = float(value)
    elif isinstance(value, str) and _DURATION.match(value.strip()):
        seconds = sum(float(n) * _UNIT[u] for n, u in _PART.findall(value.strip()))
    else:
        raise err(path, f"Invalid value: {value!r}: expected a duration such as 5m or 300s")
    if seconds < MIN_INTERVAL:
        raise err(path, f"Invalid value: {value!r}: must be at least {MIN_INTERVAL:g}s of virtual time")
    return seconds


def _unknown_plugin(name: str, path: str, err: ar.Err) -> ScenarioError:
    if name in NOT_MODELLED:
        return err(path, f'plugin "{name}" is not supported: {NOT_MODELLED[name]}')
    return err(path, f'Unsupported value: "{name}": not a descheduler plugin '
                     f'(known: {", ".join(sorted(ARGS))})')


def _plugin_set(value: Any, path: str, point: str, err: ar.Err) -> PluginSet:
    m = ar.mapping(value, path, err, ("enabled", "disabled"))
    enabled = ar.names(m.get("enabled"), f"{path}.enabled", err)
    for i, name in enumerate(enabled):
        reg = ARGS.get(name)
        if reg is None:
            raise _unknown_plugin(name, f"{path}.enabled[{i}]", err)
        if reg.extension_point != EXTENSION_POINTS[point]:
            raise err(f"{path}.enabled[{i}]", f'plugin "{name}" does not implement the {point} extension point '
                                              f'(it is a {reg.extension_point} plugin)')
    if len(set(enabled)) != len(enabled):
        raise err(f"{path}.enabled", "a plugin is enabled twice")
    return PluginSet(enabled=enabled, disabled=ar.names(m.get("disabled"), f"{path}.disabled", err))


def _profile(value: Any, path: str, err: ar.Err) -> DeschedulerProfile:
    m = ar.mapping(value, path, err, ("name", "pluginConfig", "plugins"))
    name = ar.text(m.get("name"), f"{path}.name", err)
    if not name:
        raise err(f"{path}.name", "Required value: a profile needs a name")
    pm = ar.mapping(m.get("plugins"), f"{path}.plugins", err, tuple(EXTENSION_POINTS))
    plugins = Plugins(**{("pre_eviction_filter" if k == "preEvictionFilter" else k):
                         _plugin_set(pm.get(k), f"{path}.plugins.{k}", k, err) for k in EXTENSION_POINTS})
    enabled = set(plugins.deschedule.enabled) | set(plugins.balance.enabled) | {"DefaultEvictor"}
    raw_configs = m.get("pluginConfig") or []
    if not isinstance(raw_configs, list):
        raise err(f"{path}.pluginConfig", "expected a list of {name, args}")
    configs: list[PluginConfig] = []
    for i, c in enumerate(raw_configs):
        where = f"{path}.pluginConfig[{i}]"
        cm = ar.mapping(c, where, err, ("name", "args"))
        pname = ar.text(cm.get("name"), f"{where}.name", err)
        reg = ARGS.get(pname)
        if reg is None:
            raise _unknown_plugin(pname, f"{where}.name", err)
        if any(x.name == pname for x in configs):
            raise err(f"{where}.name", f'Duplicate value: "{pname}"')
        if pname not in enabled:
            raise err(f"{where}.name", f'plugin "{pname}" has args but is not enabled at any extension point')
        configs.append(PluginConfig(pname, reg.parse_args(cm.get("args"), f"{where}.args", err)))
    for pname in sorted(enabled - {c.name for c in configs}):
        # A plugin without pluginConfig gets its defaulted args (and upstream's validation); a
        # refusal names where the plugin was enabled.
        point = next((k for k in ("deschedule", "balance") if pname in getattr(plugins, k).enabled), "")
        where = f"{path}.plugins.{point}.enabled[{getattr(plugins, point).enabled.index(pname)}]" if point else path

        def defaulted(_field: str, reason: str, where: str = where, pname: str = pname) -> ScenarioError:
            return err(where, f'"{pname}" has no pluginConfig and its default args are not valid: {reason}')

        configs.append(PluginConfig(pname, ARGS[pname].parse_args(None, where, defaulted)))
    return DeschedulerProfile(name=name, plugin_configs=tuple(configs), plugins=plugins)


def parse_policy(obj: dict[str, Any], source: str = "<input>", document: int | None = None) -> DeschedulerPolicy:
    err = ar.error_maker(source, document)
    if obj.get("apiVersion") != API_VERSION:
        raise err("apiVersion", f'Unsupported value: {obj.get("apiVersion")!r}: expected "{API_VERSION}"')
    m = ar.mapping(obj, "", err, TOP_FIELDS)
    raw_profiles = m.get("profiles")
    if not isinstance(raw_profiles, list) or not raw_profiles:
        raise err("profiles", "Required value: a list of profiles")
    profiles = []
    for i, p in enumerate(raw_profiles):
        prof = _profile(p, f"profiles[{i}]", err)
        if any(x.name == prof.name for x in profiles):
            raise err(f"profiles[{i}].name", f'Duplicate value: "{prof.name}"')
        profiles.append(prof)
    node_selector = ar.text(m.get("nodeSelector"), "nodeSelector", err)
    ar.node_selector_text(node_selector, "nodeSelector", err)
    return DeschedulerPolicy(
        profiles=tuple(profiles), node_selector=node_selector,
        max_no_of_pods_to_evict_per_node=ar.count(m.get("maxNoOfPodsToEvictPerNode"), "maxNoOfPodsToEvictPerNode", err),
        max_no_of_pods_to_evict_per_namespace=ar.count(m.get("maxNoOfPodsToEvictPerNamespace"),
                                                       "maxNoOfPodsToEvictPerNamespace", err),
        max_no_of_pods_to_evict_total=ar.count(m.get("maxNoOfPodsToEvictTotal"), "maxNoOfPodsToEvictTotal", err),
        descheduling_interval=parse_duration(m.get("deschedulingInterval"), "deschedulingInterval", err))


def split_policies(docs: list[Any], source: str = "<input>") -> tuple[list[Any], DeschedulerPolicy | None]:
    """The documents with the DeschedulerPolicy replaced by None (numbers stay), and the policy."""
    found: DeschedulerPolicy | None = None
    out: list[Any] = []
    for index, doc in enumerate(docs, start=1):
        if isinstance(doc, dict) and doc.get("kind") == KIND:
            if found is not None:
                raise ScenarioError(f"only one {KIND} document is allowed", file=source, document=index, kind=KIND)
            found = parse_policy(doc, source, index)
            out.append(None)
        else:
            out.append(doc)
    return out, found


def check_against_scenario(policy: DeschedulerPolicy, priority_classes: list[Any], source: str) -> None:
    """What needs the scenario: a priorityThreshold.name must be a PriorityClass it has."""
    from scheduler_core.api.system_priority_classes import SYSTEM_PRIORITY_CLASSES

    names = {pc.name for pc in priority_classes} | set(SYSTEM_PRIORITY_CLASSES)
    for i, prof in enumerate(policy.profiles):
        args = prof.args_for("DefaultEvictor")
        if args is not None and args.priority_threshold_name and args.priority_threshold_name not in names:
            j = next(k for k, c in enumerate(prof.plugin_configs) if c.name == "DefaultEvictor")
            raise ScenarioError(f'PriorityClass "{args.priority_threshold_name}" not found', file=source, kind=KIND,
                                field=f"profiles[{i}].pluginConfig[{j}].args.priorityThreshold.name")
