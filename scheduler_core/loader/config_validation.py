"""KubeSchedulerConfiguration validation, as upstream's apis/config/validation does it.

Why a module of its own: upstream decodes a configuration (strict: a wrong type or an unknown
field stops there, one error), then validates all of it and reports every problem at once as one
aggregated error, then builds a framework per profile (an unknown plugin, a missing bind plugin,
one error). The loader (`config.loader`) decodes; this module holds what validation adds:

- the component-base checks of `clientConnection` and `leaderElection`;
- each in-tree plugin's typed args: strict fields (`args_unknown_field`), the args' kind, and the
  plugin's own validation (validation_pluginargs.go; the plugins re-implement it, so it is asked
  of them here, with each message placed under its `pluginConfig[i].args` path);
- `aggregate`: upstream's aggregated error (`[a, b]`, identical messages once);
- `check_frameworks`: the framework-building errors, after validation passed.

Field errors read as upstream's field.Error: `path: Invalid value: 101: not in valid range [0, 100]`.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from scheduler_core.config.fields import ConfigError, parse_duration, type_name
from scheduler_core.config.types import KubeSchedulerConfiguration

__all__ = ["aggregate", "validate_client_connection", "validate_leader_election",
           "validate_plugin_args", "args_unknown_field", "check_frameworks", "ARGS_SCHEMA"]

# The fields of each in-tree plugin's typed args (kubescheduler.config.k8s.io/v1 <Plugin>Args), as
# strict decoding knows them: a mapping of field -> its type (None: a value of any shape, checked
# by the plugin; a dict: an object; a one-item list: a list of that). Other plugins' args are
# kept as given (runtime.Unknown).
_RESOURCE_SPEC = {"name": None, "weight": None}
_SHAPE_POINT = {"utilization": None, "score": None}
_SELECTOR_TERM = {"matchExpressions": [{"key": None, "operator": None, "values": None}],
                  "matchFields": [{"key": None, "operator": None, "values": None}]}
_CONSTRAINT = {"maxSkew": None, "topologyKey": None, "whenUnsatisfiable": None, "labelSelector": None,
               "minDomains": None, "nodeAffinityPolicy": None, "nodeTaintsPolicy": None,
               "matchLabelKeys": None}
ARGS_SCHEMA: dict[str, dict[str, Any]] = {
    "DefaultPreemption": {"minCandidateNodesPercentage": None, "minCandidateNodesAbsolute": None},
    "InterPodAffinity": {"hardPodAffinityWeight": None, "ignorePreferredTermsOfExistingPods": None},
    "NodeAffinity": {"addedAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [_SELECTOR_TERM]},
        "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": None, "preference": _SELECTOR_TERM}]}},
    "NodeResourcesBalancedAllocation": {"resources": [_RESOURCE_SPEC]},
    "NodeResourcesFit": {"ignoredResources": None, "ignoredResourceGroups": None, "scoringStrategy": {
        "type": None, "resources": [_RESOURCE_SPEC],
        "requestedToCapacityRatio": {"shape": [_SHAPE_POINT]}}},
    "PodTopologySpread": {"defaultConstraints": [_CONSTRAINT], "defaultingType": None},
    "VolumeBinding": {"bindTimeoutSeconds": None, "shape": [_SHAPE_POINT]},
    "DynamicResources": {"filterTimeout": None, "bindingTimeout": None},
}
TYPED_ARGS = frozenset(ARGS_SCHEMA)
_TYPE_META = frozenset({"apiVersion", "kind"})

# A field error's start inside an aggregated plugin message: "path: <Error type>".
_NEXT_ERROR = re.compile(r", (?=[A-Za-z][\w.\[\]-]*: (?:Invalid value|Unsupported value|Required value"
                         r"|Duplicate value|Forbidden|Too many|Too long|Not found))")


def aggregate(errors: list[ConfigError]) -> ConfigError:
    """One error for many, as utilerrors.Aggregate prints them: the message alone for one,
    `[first, second]` for more, an identical message only once."""
    seen: dict[str, ConfigError] = {}
    for e in errors:
        seen.setdefault(str(e), e)
    if len(seen) == 1:
        return next(iter(seen.values()))
    return ConfigError(None, "[" + ", ".join(seen) + "]", errors=list(seen.values()))


def invalid(path: str, value: Any, detail: str) -> ConfigError:
    """field.Invalid: numbers and booleans as they are, strings quoted."""
    if isinstance(value, bool):
        shown = "true" if value else "false"
    elif isinstance(value, (int, float)):
        shown = str(value)
    else:
        shown = '"' + str(value).replace('"', '\\"') + '"'
    return ConfigError(path, f"Invalid value: {shown}: {detail}")


def validate_client_connection(raw: Any) -> list[ConfigError]:
    """clientConnection.burst must be non-negative (the only check component-base makes)."""
    if not isinstance(raw, dict) or raw.get("burst") is None:
        return []
    burst = raw["burst"]
    if isinstance(burst, bool) or not isinstance(burst, int):
        raise ConfigError("clientConnection.burst", f"expected an integer, got {type_name(burst)} {burst!r}")
    return [invalid("clientConnection.burst", burst, "must be non-negative")] if burst < 0 else []


_LEADER_DEFAULTS = {"leaseDuration": "15s", "renewDeadline": "10s", "retryPeriod": "2s"}


def validate_leader_election(raw: Any) -> list[ConfigError]:
    """leaderElection as defaulted in v1 (leaderElect true, 15s / 10s / 2s, resourceLock
    "leases", kube-system/kube-scheduler), then component-base's checks and the scheduler's own
    (only lease locks)."""
    if raw is None:
        return []
    if not isinstance(raw, dict):
        raise ConfigError("leaderElection", f"expected an object, got {type_name(raw)}")
    path = "leaderElection"
    elect = raw.get("leaderElect", True)
    if not isinstance(elect, bool):
        raise ConfigError(f"{path}.leaderElect", f"expected a boolean, got {type_name(elect)} {elect!r}")
    texts: dict[str, str] = {}
    seconds: dict[str, float] = {}
    for key, default in _LEADER_DEFAULTS.items():
        value = raw.get(key)
        text = default if value in (None, "") else value
        if not isinstance(text, str):
            raise ConfigError(f"{path}.{key}", f"expected a duration string, got {type_name(text)} {text!r}")
        try:
            seconds[key] = parse_duration(text)
        except ValueError as exc:
            raise ConfigError(f"{path}.{key}", str(exc)) from None
        texts[key] = text
    names: dict[str, str] = {}
    for key, default in (("resourceLock", "leases"), ("resourceNamespace", "kube-system"),
                         ("resourceName", "kube-scheduler")):
        value = raw.get(key)
        if value is not None and not isinstance(value, str):
            raise ConfigError(f"{path}.{key}", f"expected a string, got {type_name(value)} {value!r}")
        names[key] = value or default
    errs: list[ConfigError] = []
    if not elect:
        return errs
    for key in ("leaseDuration", "renewDeadline", "retryPeriod"):
        if seconds[key] <= 0:
            errs.append(invalid(f"{path}.{key}", texts[key], "must be greater than zero"))
    if seconds["leaseDuration"] <= seconds["renewDeadline"]:
        errs.append(invalid(f"{path}.leaseDuration", texts["renewDeadline"],
                            "must be greater than `RenewDeadline`"))
    if names["resourceLock"] != "leases":
        errs.append(invalid(f"{path}.resourceLock", names["resourceLock"],
                            'resourceLock value must be "leases"'))
    return errs


def args_unknown_field(name: str, args: dict[str, Any], path: str) -> ConfigError | None:
    """Strict decoding of a typed plugin's args: the first field its type does not have, at any
    depth (values of the wrong shape are left to the plugin's validation)."""
    schema = ARGS_SCHEMA.get(name)
    if schema is None:
        return None
    return _first_unknown(args, schema, path, top=True)


def _first_unknown(value: Any, schema: Any, path: str, top: bool = False) -> ConfigError | None:
    if isinstance(schema, list) and isinstance(value, list):
        for i, item in enumerate(value):
            found = _first_unknown(item, schema[0], f"{path}[{i}]")
            if found is not None:
                return found
    elif isinstance(schema, dict) and isinstance(value, dict):
        for key, item in value.items():
            if top and key in _TYPE_META:
                continue
            if key not in schema:
                return _unknown(f"{path}.{key}", str(key), frozenset(schema))
            found = _first_unknown(item, schema[key], f"{path}.{key}")
            if found is not None:
                return found
    return None


def _unknown(path: str, key: str, known: frozenset[str]) -> ConfigError:
    reason = f'unknown field "{key}"'
    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.7)
    if close:
        reason += f'; did you mean "{close[0]}"?'
    return ConfigError(path, reason)


def validate_plugin_args(name: str, args: dict[str, Any], path: str) -> list[ConfigError]:
    """The plugin's args validation (validation_pluginargs.go, as each plugin implements it)
    with every message placed under `path` (`profiles[i].pluginConfig[j].args`); the args'
    `kind`, when given, must be the plugin's."""
    if name not in TYPED_ARGS:
        return []
    kind = args.get("kind")
    if kind is not None and kind != f"{name}Args":
        return [invalid(path, kind, "has to match plugin args")]
    from scheduler_core.framework.interface import PluginArgsError
    from scheduler_core.framework.plugins.registry import get_registry

    try:
        get_registry()[name](args, None)
    except PluginArgsError as exc:
        return [_placed(m, path) for m in _split(str(exc), name)]
    except (ImportError, AttributeError):
        return []  # a plugin this build cannot load: the framework reports it when built
    return []


def _split(message: str, name: str) -> list[str]:
    body = message[len(name) + 2:] if message.startswith(f"{name}: ") else message
    if body.startswith("[") and body.endswith("]"):
        return _NEXT_ERROR.split(body[1:-1])
    return [body]


def _placed(message: str, path: str) -> ConfigError:
    field, sep, reason = message.partition(": ")
    if sep and re.fullmatch(r"[A-Za-z][\w.\[\]-]*", field) and not field[0].isupper():
        return ConfigError(f"{path}.{field}", reason)
    return ConfigError(path, message)


def check_frameworks(cfg: KubeSchedulerConfiguration) -> None:
    """Build each profile's framework as kube-scheduler does at start: a queue sort and a bind
    plugin are required, every Score plugin needs a weight. ConfigError at the profile."""
    from scheduler_core.featuregate.features import DEFAULT_GATES, with_overrides
    from scheduler_core.framework.interface import PluginArgsError
    from scheduler_core.framework.plugins.registry import get_registry
    from scheduler_core.framework.runtime.framework import Framework, FrameworkError

    # Args a gate allows (VolumeBinding's shape) pass here; the run's gates decide at its start.
    gates = with_overrides(DEFAULT_GATES, {"StorageCapacityScoring": True})
    registry = get_registry()
    for i, prof in enumerate(cfg.profiles):
        try:
            Framework(prof, registry, feature_gates=gates)
        except (FrameworkError, PluginArgsError) as exc:
            raise ConfigError(f"profiles[{i}]", f"creating profile for scheduler name "
                                                f"{prof.scheduler_name}: {exc}") from None
