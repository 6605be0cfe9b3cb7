"""The other kinds a scenario holds: PriorityClass, PodDisruptionBudget, Namespace, the
workload objects whose selectors default spreading follows, and KubeSchedulerConfiguration."""

from __future__ import annotations

import re
from typing import Any

from scheduler_core.api.types import (
    PREEMPT_LOWER_PRIORITY,
    PREEMPT_NEVER,
    LabelSelector,
    Namespace,
    PodDisruptionBudget,
    PriorityClass,
    WorkloadSelector,
)
from scheduler_core.api.validation import (
    dns1035_label_error,
    dns1123_label_error,
    dns1123_subdomain_error,
)
from scheduler_core.config.types import KubeSchedulerConfiguration
from scheduler_core.loader.admission import (
    HIGHEST_USER_DEFINABLE_PRIORITY,
    SYSTEM_PRIORITY_CLASSES,
)
from scheduler_core.loader.metadata import parse_metadata
from scheduler_core.loader.reader import FieldReader
from scheduler_core.loader.selectors import label_selector

__all__ = ["parse_priority_class", "parse_pdb", "parse_namespace", "parse_workload",
           "parse_config_document"]


def parse_priority_class(r: FieldReader, obj: dict[str, Any]) -> PriorityClass:
    name, _, _, _ = parse_metadata(r, obj, namespaced=False)
    if obj.get("value") is None:
        raise r.err("value", "Required value")
    value = r.integer(obj.get("value"), "value")
    global_default = r.boolean(obj.get("globalDefault"), "globalDefault")
    policy = r.string(obj.get("preemptionPolicy"), "preemptionPolicy") or PREEMPT_LOWER_PRIORITY
    if policy not in (PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER):
        raise r.err("preemptionPolicy", f'Unsupported value: "{policy}": supported values: '
                                        '"Never", "PreemptLowerPriority"')
    description = r.string(obj.get("description"), "description")
    if name.startswith("system-"):
        known = SYSTEM_PRIORITY_CLASSES.get(name)
        if known is None or known.value != value or global_default:
            raise r.err("metadata.name", f'Invalid value: "{name}": priority class names with '
                                         "'system-' prefix are reserved for system use only")
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        raise r.err("value", "Forbidden: maximum allowed value of a user defined priority is "
                             f"{HIGHEST_USER_DEFINABLE_PRIORITY}")
    return PriorityClass(name=name, value=value, global_default=global_default,
                         preemption_policy=policy, description=description)


_PERCENT_RE = re.compile(r"^[0-9]+%$")


def _int_or_percent(r: FieldReader, obj: Any, path: str) -> int | str | None:
    if obj is None:
        return None
    if isinstance(obj, str):
        if not _PERCENT_RE.match(obj):
            raise r.err(path, f'Invalid value: "{obj}": a valid percent string must be a '
                              "numeric string followed by an ending '%' (e.g. '1%',  or '93%', "
                              "regex used for validation is '[0-9]+%')")
        if int(obj[:-1]) > 100:
            raise r.err(path, f'Invalid value: "{obj}": must not be greater than 100%')
        return obj
    v = r.integer(obj, path)
    if v < 0:
        raise r.err(path, f"Invalid value: {v}: must be greater than or equal to 0")
    return v


def parse_pdb(r: FieldReader, obj: dict[str, Any]) -> PodDisruptionBudget:
    name, namespace, _, _ = parse_metadata(r, obj, namespaced=True)
    spec = r.mapping(obj.get("spec"), "spec")
    selector = label_selector(r, spec.get("selector"), "spec.selector")
    min_available = _int_or_percent(r, spec.get("minAvailable"), "spec.minAvailable")
    max_unavailable = _int_or_percent(r, spec.get("maxUnavailable"), "spec.maxUnavailable")
    if min_available is not None and max_unavailable is not None:
        raise r.err("spec", "Invalid value: minAvailable and maxUnavailable cannot be both set")
    return PodDisruptionBudget(name=name, namespace=namespace, selector=selector,
                               min_available=min_available, max_unavailable=max_unavailable)


def parse_namespace(r: FieldReader, obj: dict[str, Any]) -> Namespace:
    name, _, labels, _ = parse_metadata(r, obj, namespaced=False, name_check=dns1123_label_error)
    labels = dict(labels)
    labels["kubernetes.io/metadata.name"] = name
    return Namespace(name=name, labels=labels)


def parse_workload(r: FieldReader, obj: dict[str, Any], kind: str) -> WorkloadSelector:
    check = dns1035_label_error if kind == "Service" else dns1123_subdomain_error
    name, namespace, _, _ = parse_metadata(r, obj, namespaced=True, name_check=check)
    spec = r.mapping(obj.get("spec"), "spec")
    selector: LabelSelector | None
    if kind in ("Service", "ReplicationController"):
        raw = spec.get("selector")
        if kind == "ReplicationController" and not raw:
            tmpl = r.mapping(spec.get("template"), "spec.template")
            tmeta = r.mapping(tmpl.get("metadata"), "spec.template.metadata")
            raw = tmeta.get("labels")
            path = "spec.template.metadata.labels"
        else:
            path = "spec.selector"
        selector = None if raw is None else LabelSelector(match_labels=r.labels(raw, path))
        if kind == "ReplicationController" and (selector is None or selector.is_empty()):
            raise r.err("spec.selector", "Required value")
    else:
        if spec.get("selector") is None:
            raise r.err("spec.selector", "Required value")
        selector = label_selector(r, spec.get("selector"), "spec.selector")
        if selector is not None and selector.is_empty():
            raise r.err("spec.selector", "Invalid value: empty selector is invalid for "
                                         "deployment")
    return WorkloadSelector(kind=kind, name=name, namespace=namespace, selector=selector)



def parse_config_document(r: FieldReader, obj: dict[str, Any]) -> KubeSchedulerConfiguration:
    from scheduler_core.loader.scheduler_config import ConfigError, parse_config

    try:
        return parse_config(obj)
    except ConfigError as exc:
        raise r.err(exc.field, exc.reason) from None

