"""KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) -> `config.types` objects.

Mirrors what kube-scheduler does with its --config file: strict decoding (unknown fields are
errors), v1 defaulting (a single profile without schedulerName becomes "default-scheduler",
backoffs 1 s / 10 s, parallelism 16, percentageOfNodesToScore 0 = adaptive, extender HTTP timeout
5 s), upstream's validation.go and validation_pluginargs.go checks (`config.validation`: all of
them at once, aggregated as upstream reports them), and the framework's refusal of plugin names
that are not in the in-tree registry or do not implement the extension point they are enabled at.

`Profile.plugins` keeps the user's custom sets as written (None when absent); merging them over
the v1.35 default plugin set and expanding multiPoint is the framework runtime's job. Plugin args
stay raw mappings (camelCase keys) for each plugin to default and validate.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from scheduler_core.config.fields import (
    ConfigError,
    as_bool,
    as_int,
    as_list,
    as_map,
    as_str,
    check_known,
    parse_duration,
    type_name,
)
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
from scheduler_core.framework.plugins.registry import out_of_tree_points
from scheduler_core.loader.config_validation import (
    aggregate,
    args_unknown_field,
    check_frameworks,
    validate_client_connection,
    validate_leader_election,
    validate_plugin_args,
)

__all__ = ["ConfigError", "parse_config", "IN_TREE_PLUGINS", "DEFAULT_EXTENDER_TIMEOUT_SECONDS"]

DEFAULT_EXTENDER_TIMEOUT_SECONDS = 5.0
# Upstream has no ceiling; a playground run waits for its extenders, so one that never answers
# must not hold a worker for long.
MAX_EXTENDER_TIMEOUT_SECONDS = 60.0
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


def _plugin_set(v: Any, path: str, point: str, issues: list[ConfigError],
                later: list[ConfigError]) -> PluginSet:
    """One extension point's set. Removed plugins are validation `issues`; unknown names and
    plugins that do not implement the point are the framework's errors, `later`."""
    m = as_map(v, path)
    check_known(m, {"enabled", "disabled"}, path)
    ps = PluginSet()
    for which in ("enabled", "disabled"):
        for i, item in enumerate(as_list(m.get(which), f"{path}.{which}")):
            p = f"{path}.{which}[{i}]"
            im = as_map(item, p)
            check_known(im, {"name", "weight"}, p)
            name = as_str(im.get("name"), f"{p}.name")
            if not name:
                raise ConfigError(f"{p}.name", "Required value")
            weight = None if im.get("weight") is None else as_int(im["weight"], f"{p}.weight")
            ref = PluginRef(name=name, weight=weight)
            if which == "enabled":
                if name in _REMOVED_PLUGINS:
                    issues.append(ConfigError(f"{path}.enabled[{i}]",
                                              f'Invalid value: "{name}": was invalid in version '
                                              '"kubescheduler.config.k8s.io/v1" (KubeSchedulerConfiguration '
                                              'is version "kubescheduler.config.k8s.io/v1")'))
                    continue
                points = IN_TREE_PLUGINS.get(name) or out_of_tree_points(name)
                if point == "multiPoint":
                    if points is None:
                        later.append(ConfigError(f"{p}.name", f'{_GO_INTERFACE[_MULTIPOINT_ORDER[0]]} '
                                                              f'"{name}" does not exist'))
                else:
                    if points is None:
                        later.append(ConfigError(f"{p}.name",
                                                 f'{_GO_INTERFACE[point]} "{name}" does not exist'))
                    elif point not in points:
                        later.append(ConfigError(f"{p}.name", f'plugin "{name}" does not extend '
                                                              f"{_GO_INTERFACE[point]} plugin"))
                    elif any(x.name == name for x in ps.enabled):
                        later.append(ConfigError(f"{p}.name", f'plugin "{name}" already registered as '
                                                              f'"{_GO_INTERFACE[point]}"'))
                ps.enabled.append(ref)
            else:
                ps.disabled.append(PluginRef(name=name))
    return ps


def _plugins(v: Any, path: str, issues: list[ConfigError], later: list[ConfigError]) -> Plugins | None:
    if v is None:
        return None
    m = as_map(v, path)
    points = ("multiPoint",) + EXTENSION_POINTS
    check_known(m, set(points), path)
    plugins = Plugins()
    for point in points:
        if point in m:
            plugins.sets[point] = _plugin_set(m[point], f"{path}.{point}", point, issues, later)
    return plugins


def _percentage(v: Any, path: str, issues: list[ConfigError]) -> int | None:
    if v is None:
        return None
    pct = as_int(v, path)
    if not 0 <= pct <= 100:
        issues.append(ConfigError(path, f"Invalid value: {pct}: not in valid range [0-100]"))
    return pct


def _profile(v: Any, path: str, single: bool, issues: list[ConfigError],
             later: list[ConfigError]) -> Profile:
    """Decode one profile; its validation errors go to `issues` in upstream's order
    (schedulerName, percentageOfNodesToScore, removed plugins, pluginConfig)."""
    m = as_map(v, path)
    check_known(m, _PROFILE_FIELDS, path)
    if m.get("schedulerName") is None and single:
        name = "default-scheduler"
    else:
        name = as_str(m.get("schedulerName"), f"{path}.schedulerName")
    if not name:
        issues.append(ConfigError(f"{path}.schedulerName", "Required value"))
    prof = Profile(scheduler_name=name)
    prof.percentage_of_nodes_to_score = _percentage(m.get("percentageOfNodesToScore"),
                                                    f"{path}.percentageOfNodesToScore", issues)
    prof.plugins = _plugins(m.get("plugins"), f"{path}.plugins", issues, later)
    for i, pc in enumerate(as_list(m.get("pluginConfig"), f"{path}.pluginConfig")):
        p = f"{path}.pluginConfig[{i}]"
        pm = as_map(pc, p)
        check_known(pm, {"name", "args"}, p)
        pname = as_str(pm.get("name"), f"{p}.name")
        if not pname:
            raise ConfigError(f"{p}.name", "Required value")
        args = pm.get("args")
        if args is not None and not isinstance(args, dict):
            raise ConfigError(f"{p}.args", f"expected an object, got {type_name(args)}")
        args = args if args is not None else {}
        unknown = args_unknown_field(pname, args, f"{p}.args")
        if unknown is not None:
            raise unknown  # strict decoding, before any validation
        if pname in prof.plugin_config:
            issues.append(ConfigError(p, f'Duplicate value: "{pname}"'))
        if pname in _REMOVED_PLUGINS:
            issues.append(ConfigError(p, f'Invalid value: "{pname}": was invalid in version '
                                         '"kubescheduler.config.k8s.io/v1" (KubeSchedulerConfiguration '
                                         'is version "kubescheduler.config.k8s.io/v1")'))
        else:
            issues.extend(validate_plugin_args(pname, args, f"{p}.args"))
        prof.plugin_config.setdefault(pname, args)
    return prof


def _queue_sort_key(prof: Profile) -> tuple[tuple[tuple[str, int | None], ...], ...]:
    ps = prof.plugins.get("queueSort") if prof.plugins else None
    if ps is None:
        return ((), ())
    return (tuple((p.name, p.weight) for p in ps.enabled),
            tuple((p.name, p.weight) for p in ps.disabled))


def _extender(v: Any, path: str, issues: list[ConfigError]) -> Extender:
    m = as_map(v, path)
    check_known(m, _EXTENDER_FIELDS, path)
    url = as_str(m.get("urlPrefix"), f"{path}.urlPrefix")
    ext = Extender(url_prefix=url)
    ext.filter_verb = as_str(m.get("filterVerb"), f"{path}.filterVerb")
    ext.preempt_verb = as_str(m.get("preemptVerb"), f"{path}.preemptVerb")
    ext.prioritize_verb = as_str(m.get("prioritizeVerb"), f"{path}.prioritizeVerb")
    ext.bind_verb = as_str(m.get("bindVerb"), f"{path}.bindVerb")
    weight = 0 if m.get("weight") is None else as_int(m["weight"], f"{path}.weight", bits=64)
    if ext.prioritize_verb and weight <= 0:
        issues.append(ConfigError(f"{path}.weight",
                                  f"Invalid value: {weight}: must have a positive weight applied to it"))
    ext.weight = weight if weight > 0 else 1
    ext.enable_https = as_bool(m.get("enableHTTPS"), f"{path}.enableHTTPS")
    timeout = m.get("httpTimeout")
    if timeout is None or timeout == "":
        ext.http_timeout = DEFAULT_EXTENDER_TIMEOUT_SECONDS
    else:
        try:
            seconds = parse_duration(as_str(timeout, f"{path}.httpTimeout"))
        except ValueError as exc:
            raise ConfigError(f"{path}.httpTimeout", str(exc)) from None
        if seconds < 0:
            raise ConfigError(f"{path}.httpTimeout", f'Invalid value: "{timeout}": must not be '
                                                     "negative")
        if seconds > MAX_EXTENDER_TIMEOUT_SECONDS:
            raise ConfigError(f"{path}.httpTimeout", f'Invalid value: "{timeout}": must be at '
                                                     f"most {MAX_EXTENDER_TIMEOUT_SECONDS:g}s "
                                                     "(upstream's default is 5s)")
        ext.http_timeout = seconds if seconds != 0 else DEFAULT_EXTENDER_TIMEOUT_SECONDS
    ext.node_cache_capable = as_bool(m.get("nodeCacheCapable"), f"{path}.nodeCacheCapable")
    ext.ignorable = as_bool(m.get("ignorable"), f"{path}.ignorable")
    for i, mr in enumerate(as_list(m.get("managedResources"), f"{path}.managedResources")):
        p = f"{path}.managedResources[{i}]"
        mm = as_map(mr, p)
        check_known(mm, {"name", "ignoredByScheduler"}, p)
        ext.managed_resources.append({
            "name": as_str(mm.get("name"), f"{p}.name"),
            "ignoredByScheduler": as_bool(mm.get("ignoredByScheduler"), f"{p}.ignoredByScheduler"),
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
    """Decode, default and validate one KubeSchedulerConfiguration document, in upstream's
    stages: a decoding error (a wrong type, an unknown field) is raised alone; then every
    validation error at once, aggregated (`validation.aggregate`); then the errors building each
    profile's framework would give; then this playground's own checks of extender URLs."""
    m = as_map(obj, "")
    check_known(m, _TOP_FIELDS, "")
    cfg = KubeSchedulerConfiguration()
    issues: list[ConfigError] = []
    later: list[ConfigError] = []  # the framework's, reported when validation passed
    issues += validate_client_connection(m.get("clientConnection"))
    issues += validate_leader_election(m.get("leaderElection"))
    cfg.parallelism = (DEFAULT_PARALLELISM if m.get("parallelism") is None
                       else as_int(m["parallelism"], "parallelism"))
    if cfg.parallelism <= 0:
        issues.append(ConfigError("parallelism", f"Invalid value: {cfg.parallelism}: should be an "
                                                 "integer value greater than zero"))
    raw_profiles = as_list(m.get("profiles"), "profiles") or [{}]
    seen: dict[str, int] = {}
    cfg.profiles = []
    for i, raw in enumerate(raw_profiles):
        prof = _profile(raw, f"profiles[{i}]", len(raw_profiles) == 1, issues, later)
        if prof.scheduler_name in seen:
            issues.append(ConfigError(f"profiles[{i}].schedulerName",
                                      f'Duplicate value: "{prof.scheduler_name}" (also '
                                      f"profiles[{seen[prof.scheduler_name]}].schedulerName)"))
        seen[prof.scheduler_name] = i
        cfg.profiles.append(prof)
    issues += _common_queue_sort(cfg)
    pct = _percentage(m.get("percentageOfNodesToScore"), "percentageOfNodesToScore", issues)
    cfg.percentage_of_nodes_to_score = (DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE if pct is None
                                        else pct)
    initial = m.get("podInitialBackoffSeconds")
    cfg.pod_initial_backoff_seconds = (DEFAULT_POD_INITIAL_BACKOFF_SECONDS if initial is None
                                       else as_int(initial, "podInitialBackoffSeconds", bits=64))
    if cfg.pod_initial_backoff_seconds <= 0:
        issues.append(ConfigError("podInitialBackoffSeconds",
                                  f"Invalid value: {cfg.pod_initial_backoff_seconds}: must be greater "
                                  "than 0"))
    mx = m.get("podMaxBackoffSeconds")
    cfg.pod_max_backoff_seconds = (DEFAULT_POD_MAX_BACKOFF_SECONDS if mx is None
                                   else as_int(mx, "podMaxBackoffSeconds", bits=64))
    if cfg.pod_max_backoff_seconds < cfg.pod_initial_backoff_seconds:
        issues.append(ConfigError("podMaxBackoffSeconds",
                                  f"Invalid value: {cfg.pod_max_backoff_seconds}: must be greater than "
                                  "or equal to PodInitialBackoffSeconds"))
    cfg.extenders = [_extender(e, f"extenders[{i}]", issues)
                     for i, e in enumerate(as_list(m.get("extenders"), "extenders"))]
    managed: set[str] = set()
    for i, ext in enumerate(cfg.extenders):
        for j, mr in enumerate(ext.managed_resources):
            p = f"extenders[{i}].managedResources[{j}].name"
            err = _extended_resource_name_error(mr["name"])
            if err:
                issues.append(ConfigError(p, f'Invalid value: "{mr["name"]}": {err}'))
            if mr["name"] in managed:
                issues.append(ConfigError(p, f'Invalid value: "{mr["name"]}": duplicate extender '
                                             "managed resource name"))
            managed.add(mr["name"])
    binders = sum(1 for e in cfg.extenders if e.bind_verb)
    if binders > 1:
        issues.append(ConfigError("extenders", f'Invalid value: "found {binders} extenders implementing '
                                               'bind": only one extender can implement bind'))
    if issues:
        raise aggregate(issues)
    if later:
        raise later[0]
    for i, ext in enumerate(cfg.extenders):
        err = _url_prefix_error(ext.url_prefix)
        if err:
            raise ConfigError(f"extenders[{i}].urlPrefix", f'Invalid value: "{ext.url_prefix}": {err}')
    check_frameworks(cfg)
    return cfg


def _common_queue_sort(cfg: KubeSchedulerConfiguration) -> list[ConfigError]:
    """validateCommonQueueSort: one queue sort plugin, the same set and args in every profile."""
    issues: list[ConfigError] = []
    first = cfg.profiles[0]
    if first.plugins is not None:
        qs = first.plugins.get("queueSort")
        if len(qs.enabled) > 1:
            issues.append(ConfigError("profiles[0].plugins.queueSort.Enabled",
                                      f"Invalid value: {len(qs.enabled)}: only one queue sort plugin "
                                      "can be enabled"))
    canon = _queue_sort_key(first)
    qs_names = [p.name for p in first.plugins.get("queueSort").enabled] if first.plugins else []
    qs_args = first.plugin_config.get(qs_names[0]) if qs_names else None
    for i, prof in enumerate(cfg.profiles[1:], start=1):
        if _queue_sort_key(prof) != canon:
            issues.append(ConfigError(f"profiles[{i}].plugins.queueSort",
                                      "Invalid value: must be the same for all profiles"))
        if qs_names and qs_names[0] in prof.plugin_config \
                and prof.plugin_config[qs_names[0]] != qs_args:
            issues.append(ConfigError(f"profiles[{i}].pluginConfig.args",
                                      "Invalid value: queueSort must be the same for all profiles"))
    return issues


def _url_prefix_error(url: str) -> str | None:
    """An extender is reached over HTTP(S) only: an absolute http:// or https:// URL with a
    host (what the scheduler's HTTP client can call; anything else is refused before a run)."""
    if not url:
        return "Required value: the extender's http(s) URL"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return f"not a valid URL ({exc})"
    if parts.scheme not in ("http", "https"):
        return "must be an http:// or https:// URL"
    if not parts.hostname:
        return "must name a host"
    if port == 0:
        return "port must be between 1 and 65535"
    if parts.username is not None or parts.password is not None:
        return "must not carry credentials"
    if parts.query or parts.fragment or any(c.isspace() for c in url):
        return "must be a plain URL prefix (no query, fragment or spaces)"
    return None
