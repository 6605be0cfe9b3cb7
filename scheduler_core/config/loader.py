"""KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) -> `config.types` objects.

Mirrors what kube-scheduler does with its --config file: strict decoding (unknown fields are
errors), v1 defaulting (a single profile without schedulerName becomes "default-scheduler",
backoffs 1 s / 10 s, parallelism 16, percentageOfNodesToScore 0 = adaptive, extender HTTP timeout
5 s), upstream's validation.go checks, and the framework's refusal of plugin names that are not
in the in-tree registry or do not implement the extension point they are enabled at.

`Profile.plugins` keeps the user's custom sets as written (None when absent); merging them over
the v1.35 default plugin set and expanding multiPoint is the framework runtime's job. Plugin args
stay raw mappings (camelCase keys) for each plugin to default and validate.
"""

from __future__ import annotations

import re
from typing import Any

from scheduler_core.config.types import (
    DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE,
    DEFAULT_POD_INITIAL_BACKOFF_SECONDS,
    DEFAULT_POD_MAX_BACKOFF_SECONDS,
    EXTENSION_POINTS,
    Extender,
    KubeSchedulerConfiguration,
    PluginRef,
    Plugins,
    PluginSet,
    Profile,
)

__all__ = ["ConfigError", "parse_config", "IN_TREE_PLUGINS", "DEFAULT_EXTENDER_TIMEOUT_SECONDS"]

DEFAULT_EXTENDER_TIMEOUT_SECONDS = 5.0
DEFAULT_PARALLELISM = 16

# The in-tree registry of v1.35 and the extension points each plugin implements.
IN_TREE_PLUGINS: dict[str, frozenset[str]] = {
    "SchedulingGates": frozenset({"preEnqueue"}),
    "PrioritySort": frozenset({"queueSort"}),
    "NodeUnschedulable": frozenset({"filter"}),
    "NodeName": frozenset({"filter"}),
    "TaintToleration": frozenset({"filter", "preScore", "score"}),
    "NodeAffinity": frozenset({"preFilter", "filter", "preScore", "score"}),
    "NodePorts": frozenset({"preFilter", "filter"}),
    "NodeResourcesFit": frozenset({"preFilter", "filter", "preScore", "score"}),
    "NodeResourcesBalancedAllocation": frozenset({"preScore", "score"}),
    "VolumeRestrictions": frozenset({"preFilter", "filter"}),
    "NodeVolumeLimits": frozenset({"preFilter", "filter"}),
    "VolumeBinding": frozenset({"preFilter", "filter", "reserve", "preBind", "preScore", "score"}),
    "VolumeZone": frozenset({"preFilter", "filter"}),
    "PodTopologySpread": frozenset({"preFilter", "filter", "preScore", "score"}),
    "InterPodAffinity": frozenset({"preFilter", "filter", "preScore", "score"}),
    "DefaultPreemption": frozenset({"preEnqueue", "postFilter"}),
    "ImageLocality": frozenset({"score"}),
    "DefaultBinder": frozenset({"bind"}),
    "DynamicResources": frozenset({"preEnqueue", "preFilter", "filter", "postFilter", "reserve",
                                   "preBind", "score"}),
    "NodeDeclaredFeatures": frozenset({"preFilter", "filter"}),
    "GangScheduling": frozenset({"preEnqueue", "reserve", "permit"}),
}

# Plugins removed from the v1 API; naming them is an error of its own.
_REMOVED_PLUGINS = ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")

_GO_INTERFACE = {
    "preEnqueue": "PreEnqueuePlugin", "queueSort": "QueueSortPlugin",
    "preFilter": "PreFilterPlugin", "filter": "FilterPlugin", "postFilter": "PostFilterPlugin",
    "preScore": "PreScorePlugin", "score": "ScorePlugin", "reserve": "ReservePlugin",
    "permit": "PermitPlugin", "preBind": "PreBindPlugin", "bind": "BindPlugin",
    "postBind": "PostBindPlugin",
}
# The framework expands multiPoint in this order, so an unknown name is reported for the first.
_MULTIPOINT_ORDER = ("preFilter", "filter", "postFilter", "reserve", "preScore", "score",
                     "preBind", "bind", "postBind", "permit", "preEnqueue", "queueSort")

_TOP_FIELDS = {
    "apiVersion", "kind", "parallelism", "leaderElection", "clientConnection",
    "healthzBindAddress", "metricsBindAddress", "enableProfiling", "enableContentionProfiling",
    "percentageOfNodesToScore", "podInitialBackoffSeconds", "podMaxBackoffSeconds", "profiles",
    "extenders", "delayCacheUntilActive", "debuggingConfiguration",
}
_PROFILE_FIELDS = {"schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig"}
_EXTENDER_FIELDS = {
    "urlPrefix", "filterVerb", "preemptVerb", "prioritizeVerb", "weight", "bindVerb",
    "enableHTTPS", "tlsConfig", "httpTimeout", "nodeCacheCapable", "managedResources",
    "ignorable",
}


class ConfigError(ValueError):
    """A configuration problem at `field` (dotted path), with `reason`."""

    def __init__(self, field: str | None, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}" if field else reason)


def _tn(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, dict):
        return "object"
    if isinstance(v, list):
        return "array"
    return type(v).__name__


def _map(v: Any, path: str) -> dict[str, Any]:
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise ConfigError(path, f"expected an object, got {_tn(v)}")
    return v


def _list(v: Any, path: str) -> list[Any]:
    if v is None:
        return []
    if not isinstance(v, list):
        raise ConfigError(path, f"expected an array, got {_tn(v)}")
    return v


def _str(v: Any, path: str) -> str:
    if v is None:
        return ""
    if not isinstance(v, str):
        raise ConfigError(path, f"expected a string, got {_tn(v)} {v!r}")
    return v


def _bool(v: Any, path: str) -> bool:
    if v is None:
        return False
    if not isinstance(v, bool):
        raise ConfigError(path, f"expected a boolean, got {_tn(v)} {v!r}")
    return v


def _int(v: Any, path: str, bits: int = 32) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (
            isinstance(v, float) and (v != v or v != int(v))):
        raise ConfigError(path, f"expected an integer, got {_tn(v)} {v!r}")
    v = int(v)
    if not -(2 ** (bits - 1)) <= v < 2 ** (bits - 1):
        raise ConfigError(path, f"Invalid value: {v}: out of range for int{bits}")
    return v


def _strict(m: dict[str, Any], allowed: set[str], path: str) -> None:
    for k in m:
        if k not in allowed:
            where = f"{path}.{k}" if path else str(k)
            raise ConfigError(where, f'unknown field "{k}"')


_DURATION_RE = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0,
                   "m": 60.0, "h": 3600.0}


def parse_duration(text: str) -> float:
    """Go's time.ParseDuration ("5s", "1m30s", "250ms", "0") in seconds."""
    s = text.strip()
    if not s:
        raise ValueError("invalid duration \"\"")
    sign = 1.0
    if s[0] in "+-":
        sign = -1.0 if s[0] == "-" else 1.0
        s = s[1:]
    if s == "0":
        return 0.0
    pos, total = 0, 0.0
    while pos < len(s):
        m = _DURATION_RE.match(s, pos)
        if not m:
            raise ValueError(f'invalid duration "{text}"')
        total += float(m.group(1)) * _DURATION_UNITS[m.group(2)]
        pos = m.end()
    if pos == 0:
        raise ValueError(f'invalid duration "{text}"')
    return sign * total


def _plugin_set(v: Any, path: str, point: str) -> PluginSet:
    m = _map(v, path)
    _strict(m, {"enabled", "disabled"}, path)
    ps = PluginSet()
    for which in ("enabled", "disabled"):
        for i, item in enumerate(_list(m.get(which), f"{path}.{which}")):
            p = f"{path}.{which}[{i}]"
            im = _map(item, p)
            _strict(im, {"name", "weight"}, p)
            name = _str(im.get("name"), f"{p}.name")
            if not name:
                raise ConfigError(f"{p}.name", "Required value")
            weight = None if im.get("weight") is None else _int(im["weight"], f"{p}.weight")
            ref = PluginRef(name=name, weight=weight)
            if which == "enabled":
                if name in _REMOVED_PLUGINS:
                    raise ConfigError(f"{path}.enabled[{i}]",
                                      f'Invalid value: "{name}": was invalid in version '
                                      '"kubescheduler.config.k8s.io/v1" (KubeSchedulerConfiguration '
                                      'is version "kubescheduler.config.k8s.io/v1")')
                points = IN_TREE_PLUGINS.get(name)
                if point == "multiPoint":
                    if points is None:
                        raise ConfigError(f"{p}.name", f'{_GO_INTERFACE[_MULTIPOINT_ORDER[0]]} '
                                                       f'"{name}" does not exist')
                else:
                    if points is None:
                        raise ConfigError(f"{p}.name",
                                          f'{_GO_INTERFACE[point]} "{name}" does not exist')
                    if point not in points:
                        raise ConfigError(f"{p}.name", f'plugin "{name}" does not extend '
                                                       f"{_GO_INTERFACE[point]} plugin")
                    if any(x.name == name for x in ps.enabled):
                        raise ConfigError(f"{p}.name", f'plugin "{name}" already registered as '
                                                       f'"{_GO_INTERFACE[point]}"')
                ps.enabled.append(ref)
            else:
                ps.disabled.append(PluginRef(name=name))
    return ps


def _plugins(v: Any, path: str) -> Plugins | None:
    if v is None:
        return None
    m = _map(v, path)
    points = ("multiPoint",) + EXTENSION_POINTS
    _strict(m, set(points), path)
    plugins = Plugins()
    for point in points:
        if point in m:
            plugins.sets[point] = _plugin_set(m[point], f"{path}.{point}", point)
    return plugins


def _percentage(v: Any, path: str) -> int | None:
    if v is None:
        return None
    pct = _int(v, path)
    if not 0 <= pct <= 100:
        raise ConfigError(path, f"Invalid value: {pct}: not in valid range [0-100]")
    return pct


def _profile(v: Any, path: str, single: bool) -> Profile:
    m = _map(v, path)
    _strict(m, _PROFILE_FIELDS, path)
    if m.get("schedulerName") is None and single:
        name = "default-scheduler"
    else:
        name = _str(m.get("schedulerName"), f"{path}.schedulerName")
    if not name:
        raise ConfigError(f"{path}.schedulerName", "Required value")
    prof = Profile(scheduler_name=name)
    prof.percentage_of_nodes_to_score = _percentage(m.get("percentageOfNodesToScore"),
                                                    f"{path}.percentageOfNodesToScore")
    prof.plugins = _plugins(m.get("plugins"), f"{path}.plugins")
    for i, pc in enumerate(_list(m.get("pluginConfig"), f"{path}.pluginConfig")):
        p = f"{path}.pluginConfig[{i}]"
        pm = _map(pc, p)
        _strict(pm, {"name", "args"}, p)
        pname = _str(pm.get("name"), f"{p}.name")
        if not pname:
            raise ConfigError(f"{p}.name", "Required value")
        if pname in prof.plugin_config:
            raise ConfigError(p, f'Duplicate value: "{pname}"')
        if pname in _REMOVED_PLUGINS:
            raise ConfigError(p, f'Invalid value: "{pname}": was invalid in version '
                                 '"kubescheduler.config.k8s.io/v1" (KubeSchedulerConfiguration '
                                 'is version "kubescheduler.config.k8s.io/v1")')
        args = pm.get("args")
        if args is not None and not isinstance(args, dict):
            raise ConfigError(f"{p}.args", f"expected an object, got {_tn(args)}")
        prof.plugin_config[pname] = args if args is not None else {}
    return prof


def _queue_sort_key(prof: Profile) -> tuple[tuple[tuple[str, int | None], ...], ...]:
    ps = prof.plugins.get("queueSort") if prof.plugins else None
    if ps is None:
        return ((), ())
    return (tuple((p.name, p.weight) for p in ps.enabled),
            tuple((p.name, p.weight) for p in ps.disabled))


def _extender(v: Any, path: str) -> Extender:
    m = _map(v, path)
    _strict(m, _EXTENDER_FIELDS, path)
    url = _str(m.get("urlPrefix"), f"{path}.urlPrefix")
    ext = Extender(url_prefix=url)
    ext.filter_verb = _str(m.get("filterVerb"), f"{path}.filterVerb")
    ext.preempt_verb = _str(m.get("preemptVerb"), f"{path}.preemptVerb")
    ext.prioritize_verb = _str(m.get("prioritizeVerb"), f"{path}.prioritizeVerb")
    ext.bind_verb = _str(m.get("bindVerb"), f"{path}.bindVerb")
    weight = 0 if m.get("weight") is None else _int(m["weight"], f"{path}.weight", bits=64)
    if ext.prioritize_verb and weight <= 0:
        raise ConfigError(f"{path}.weight",
                          f"Invalid value: {weight}: must have a positive weight applied to it")
    ext.weight = weight if weight > 0 else 1
    ext.enable_https = _bool(m.get("enableHTTPS"), f"{path}.enableHTTPS")
    timeout = m.get("httpTimeout")
    if timeout is None or timeout == "":
        ext.http_timeout = DEFAULT_EXTENDER_TIMEOUT_SECONDS
    else:
        try:
            seconds = parse_duration(_str(timeout, f"{path}.httpTimeout"))
        except ValueError as exc:
            raise ConfigError(f"{path}.httpTimeout", str(exc)) from None
        ext.http_timeout = seconds if seconds != 0 else DEFAULT_EXTENDER_TIMEOUT_SECONDS
    ext.node_cache_capable = _bool(m.get("nodeCacheCapable"), f"{path}.nodeCacheCapable")
    ext.ignorable = _bool(m.get("ignorable"), f"{path}.ignorable")
    for i, mr in enumerate(_list(m.get("managedResources"), f"{path}.managedResources")):
        p = f"{path}.managedResources[{i}]"
        mm = _map(mr, p)
        _strict(mm, {"name", "ignoredByScheduler"}, p)
        ext.managed_resources.append({
            "name": _str(mm.get("name"), f"{p}.name"),
            "ignoredByScheduler": _bool(mm.get("ignoredByScheduler"), f"{p}.ignoredByScheduler"),
        })
    return ext


def _extended_resource_name_error(name: str) -> str | None:
    from scheduler_core.api.validation import qualified_name_error

    err = qualified_name_error(name)
    if err:
        return err
    native = "/" not in name or "kubernetes.io/" in name
    if native or name.startswith("requests.") or qualified_name_error("requests." + name):
        return "is an invalid extended resource name"
    return None


def parse_config(obj: dict[str, Any]) -> KubeSchedulerConfiguration:
    """Decode, default and validate one KubeSchedulerConfiguration document."""
    m = _map(obj, "")
    _strict(m, _TOP_FIELDS, "")
    cfg = KubeSchedulerConfiguration()
    cfg.parallelism = (DEFAULT_PARALLELISM if m.get("parallelism") is None
                       else _int(m["parallelism"], "parallelism"))
    if cfg.parallelism <= 0:
        raise ConfigError("parallelism", f"Invalid value: {cfg.parallelism}: should be an "
                                         "integer value greater than zero")
    raw_profiles = _list(m.get("profiles"), "profiles") or [{}]
    cfg.profiles = [_profile(p, f"profiles[{i}]", len(raw_profiles) == 1)
                    for i, p in enumerate(raw_profiles)]
    seen: dict[str, int] = {}
    for i, prof in enumerate(cfg.profiles):
        if prof.scheduler_name in seen:
            raise ConfigError(f"profiles[{i}].schedulerName",
                              f'Duplicate value: "{prof.scheduler_name}" (also '
                              f"profiles[{seen[prof.scheduler_name]}].schedulerName)")
        seen[prof.scheduler_name] = i
    first = cfg.profiles[0]
    if first.plugins is not None:
        qs = first.plugins.get("queueSort")
        if len(qs.enabled) > 1:
            raise ConfigError("profiles[0].plugins.queueSort.Enabled",
                              f"Invalid value: {len(qs.enabled)}: only one queue sort plugin "
                              "can be enabled")
    canon = _queue_sort_key(first)
    qs_names = [p.name for p in first.plugins.get("queueSort").enabled] if first.plugins else []
    qs_args = first.plugin_config.get(qs_names[0]) if qs_names else None
    for i, prof in enumerate(cfg.profiles[1:], start=1):
        if _queue_sort_key(prof) != canon:
            raise ConfigError(f"profiles[{i}].plugins.queueSort",
                              "Invalid value: must be the same for all profiles")
        if qs_names and qs_names[0] in prof.plugin_config \
                and prof.plugin_config[qs_names[0]] != qs_args:
            raise ConfigError(f"profiles[{i}].pluginConfig.args",
                              "Invalid value: queueSort must be the same for all profiles")
    pct = _percentage(m.get("percentageOfNodesToScore"), "percentageOfNodesToScore")
    cfg.percentage_of_nodes_to_score = (DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE if pct is None
                                        else pct)
    initial = m.get("podInitialBackoffSeconds")
    cfg.pod_initial_backoff_seconds = (DEFAULT_POD_INITIAL_BACKOFF_SECONDS if initial is None
                                       else _int(initial, "podInitialBackoffSeconds", bits=64))
    if cfg.pod_initial_backoff_seconds <= 0:
        raise ConfigError("podInitialBackoffSeconds",
                          f"Invalid value: {cfg.pod_initial_backoff_seconds}: must be greater "
                          "than 0")
    mx = m.get("podMaxBackoffSeconds")
    cfg.pod_max_backoff_seconds = (DEFAULT_POD_MAX_BACKOFF_SECONDS if mx is None
                                   else _int(mx, "podMaxBackoffSeconds", bits=64))
    if cfg.pod_max_backoff_seconds < cfg.pod_initial_backoff_seconds:
        raise ConfigError("podMaxBackoffSeconds",
                          f"Invalid value: {cfg.pod_max_backoff_seconds}: must be greater than "
                          "or equal to PodInitialBackoffSeconds")
    cfg.extenders = [_extender(e, f"extenders[{i}]")
                     for i, e in enumerate(_list(m.get("extenders"), "extenders"))]
    binders = sum(1 for e in cfg.extenders if e.bind_verb)
    if binders > 1:
        raise ConfigError("extenders", f'Invalid value: "found {binders} extenders implementing '
                                       'bind": only one extender can implement bind')
    managed: set[str] = set()
    for i, ext in enumerate(cfg.extenders):
        for j, mr in enumerate(ext.managed_resources):
            p = f"extenders[{i}].managedResources[{j}].name"
            err = _extended_resource_name_error(mr["name"])
            if err:
                raise ConfigError(p, f'Invalid value: "{mr["name"]}": {err}')
            if mr["name"] in managed:
                raise ConfigError(p, f'Invalid value: "{mr["name"]}": duplicate extender managed '
                                     "resource name")
            managed.add(mr["name"])
    return cfg
