"""Device taints and tolerations (resource.k8s.io/v1): DeviceTaintRules, the taints a
ResourceSlice's devices carry, and the tolerations a claim's requests give.

One module because the three share the taint's shape (key, value, effect) and its validation.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.resource_types import (
    DeviceTaint,
    DeviceTaintRule,
    DeviceToleration,
)
from scheduler_core.api.validation import (
    dns1123_label_error,
    dns1123_subdomain_error,
    label_value_error,
    qualified_name_error,
)
from scheduler_core.loader.metadata import parse_metadata, stable_uid
from scheduler_core.loader.reader import FieldReader
from scheduler_core.loader.resource import MAX_TAINTS, MAX_TOLERATIONS, TAINT_EFFECTS

__all__ = ["parse_device_taint_rule"]


def parse_device_taint_rule(r: FieldReader, obj: dict[str, Any]) -> DeviceTaintRule:
    """A DeviceTaintRule: an optional selector (driver, pool, device) and one taint."""
    name, _, _, _ = parse_metadata(r, obj, namespaced=False)
    spec = r.mapping(obj.get("spec"), "spec", required=True)
    sel = spec.get("deviceSelector")
    if spec.get("taint") is None:
        raise r.err("spec.taint", "Required value")
    rule = DeviceTaintRule(name=name, uid=stable_uid("DeviceTaintRule", "", name),
                           taint=_taint(r, spec["taint"], "spec.taint"))
    if sel is not None:
        m = r.mapping(sel, "spec.deviceSelector")
        rule.has_selector = True
        for field, check in (("driver", dns1123_subdomain_error), ("pool", None), ("device", dns1123_label_error)):
            if m.get(field) is None:
                continue
            value = r.string(m[field], f"spec.deviceSelector.{field}")
            err = check(value) if check else (None if value else "must not be empty")
            if err:
                raise r.err(f"spec.deviceSelector.{field}", f'Invalid value: "{value}": {err}')
            setattr(rule, field, value)
    return rule


def _taints(r: FieldReader, obj: Any, path: str) -> list[DeviceTaint]:
    """Device taints (DRADeviceTaints), at most 16."""
    items = r.seq(obj, path)
    if len(items) > MAX_TAINTS:
        raise r.err(path, f"Too many: {len(items)}: must have at most {MAX_TAINTS} items")
    return [_taint(r, t, f"{path}[{i}]") for i, t in enumerate(items)]


def _taint(r: FieldReader, obj: Any, p: str) -> DeviceTaint:
    """One taint: key a label name, value a label value, a known effect."""
    m = r.mapping(obj, p, required=True)
    key = r.string(m.get("key"), f"{p}.key")
    if not key:
        raise r.err(f"{p}.key", "Required value")
    err = qualified_name_error(key)
    if err:
        raise r.err(f"{p}.key", f'Invalid value: "{key}": {err}')
    value = r.string(m.get("value"), f"{p}.value")
    err = label_value_error(value) if value else None
    if err:
        raise r.err(f"{p}.value", f'Invalid value: "{value}": {err}')
    effect = r.string(m.get("effect"), f"{p}.effect")
    if not effect:
        raise r.err(f"{p}.effect", "Required value")
    if effect not in TAINT_EFFECTS:
        raise r.err(f"{p}.effect", f'Unsupported value: "{effect}": supported values: '
                                   '"NoExecute", "NoSchedule", "None"')
    return DeviceTaint(key=key, value=value, effect=effect,
                       time_added=r.string(m.get("timeAdded"), f"{p}.timeAdded"))


def _tolerations(r: FieldReader, obj: Any, path: str) -> list[DeviceToleration]:
    """A request's tolerations (DRADeviceTaints); the operator defaults to Equal."""
    items = r.seq(obj, path)
    if len(items) > MAX_TOLERATIONS:
        raise r.err(path, f"Too many: {len(items)}: must have at most {MAX_TOLERATIONS} items")
    out = []
    for i, t in enumerate(items):
        p = f"{path}[{i}]"
        m = r.mapping(t, p, required=True)
        key = r.string(m.get("key"), f"{p}.key")
        if key:
            err = qualified_name_error(key)
            if err:
                raise r.err(f"{p}.key", f'Invalid value: "{key}": {err}')
        operator = r.string(m.get("operator"), f"{p}.operator") or "Equal"
        if operator not in ("Equal", "Exists"):
            raise r.err(f"{p}.operator", f'Unsupported value: "{operator}": supported values: '
                                         '"Equal", "Exists"')
        value = r.string(m.get("value"), f"{p}.value")
        if not key and operator != "Exists":
            raise r.err(f"{p}.operator", f'Invalid value: "{operator}": value must be Exists when '
                                         "`key` is empty, which means \"match all values and all keys\"")
        if operator == "Exists" and value:
            raise r.err(f"{p}.operator", f'Invalid value: "{operator}": value must be empty when '
                                         "`operator` is 'Exists'")
        if value:
            err = label_value_error(value)
            if err:
                raise r.err(f"{p}.value", f'Invalid value: "{value}": {err}')
        effect = r.string(m.get("effect"), f"{p}.effect")
        if effect and effect not in TAINT_EFFECTS:
            raise r.err(f"{p}.effect", f'Unsupported value: "{effect}": supported values: '
                                       '"NoExecute", "NoSchedule", "None"')
        seconds = m.get("tolerationSeconds")
        out.append(DeviceToleration(key=key, operator=operator, value=value, effect=effect,
                                    toleration_seconds=None if seconds is None else
                                    r.integer(seconds, f"{p}.tolerationSeconds", bits=64)))
    return out
