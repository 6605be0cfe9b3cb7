"""resource.k8s.io/v1 objects as the apiserver stores them: defaults (allocationMode
ExactCount, count 1), validation (names, exactly-one-of fields, limits, CEL that compiles,
non-negative capacity) and, across objects, the references the playground refuses to leave
dangling (a claim or template naming a DeviceClass the scenario does not define).

Each parser takes the `FieldReader` of its document, so every refusal names the document, the
object, the field and why; nothing is stored from a scenario that has any refusal.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.quantity import format_quantity
from scheduler_core.api.resource_types import (
    ALLOCATION_MODE_ALL,
    ALLOCATION_MODE_EXACT_COUNT,
    ALLOCATION_RESULTS_MAX_SIZE,
    FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE,
    AllocationResult,
    CapacityRequestPolicy,
    CounterSet,
    Device,
    DeviceAttribute,
    DeviceClaimSpec,
    DeviceClass,
    DeviceConstraint,
    DeviceCounterConsumption,
    DeviceRequest,
    DeviceRequestAllocationResult,
    DeviceSelector,
    DeviceSubRequest,
    DeviceTaint,
    DeviceTaintRule,
    DeviceToleration,
    ExactDeviceRequest,
    PodResourceClaim,
    ResourceClaim,
    ResourceClaimConsumerReference,
    ResourceClaimTemplate,
    ResourceSlice,
)
from scheduler_core.api.types import NodeSelector
from scheduler_core.api.validation import (
    dns1123_label_error,
    dns1123_subdomain_error,
    label_value_error,
    qualified_name_error,
)
from scheduler_core.dra.cel import compile_selector
from scheduler_core.loader.metadata import parse_metadata, parse_owner_references, stable_uid
from scheduler_core.loader.reader import FieldReader, join_path
from scheduler_core.loader.selectors import node_selector_term

__all__ = ["parse_device_taint_rule", "parse_device_class", "parse_resource_slice", "parse_resource_claim",
           "parse_resource_claim_template", "parse_pod_resource_claims", "check_container_claims",
           "MAX_DEVICES_PER_SLICE", "MAX_ATTRIBUTES_AND_CAPACITY", "MAX_REQUESTS", "MAX_SELECTORS"]

# Limits of the v1 API (k8s.io/api/resource/v1 constants), enforced before anything is built.
MAX_DEVICES_PER_SLICE = 128  # ResourceSliceMaxDevices
MAX_ATTRIBUTES_AND_CAPACITY = 32  # ResourceSliceMaxAttributesAndCapacitiesPerDevice
MAX_REQUESTS = 32  # DeviceRequestsMaxSize
MAX_SELECTORS = 32  # DeviceSelectorsMaxSize
MAX_CONSTRAINTS = 32  # DeviceConstraintsMaxSize
MAX_RESERVED_FOR = 256  # ResourceClaimReservedForMaxSize
MAX_POD_CLAIMS = 128
MAX_ATTRIBUTE_STRING = 64  # DeviceAttributeMaxValueLength
MAX_DEVICES_WITH_TAINTS_OR_COUNTERS = 64  # ResourceSliceMaxDevicesWithTaintsOrConsumesCounters
MAX_TAINTS = 16  # DeviceTaintsMaxLength
MAX_TOLERATIONS = 16  # DeviceTolerationsMaxLength
MAX_COUNTER_SETS = 8  # ResourceSliceMaxCounterSets
MAX_COUNTERS = 32  # ResourceSliceMaxCountersPerCounterSet / ...PerDeviceCounterConsumption
MAX_COUNTER_CONSUMPTIONS = 2  # ResourceSliceMaxDeviceCounterConsumptionsPerDevice
TAINT_EFFECTS = ("NoExecute", "NoSchedule", "None")
MAX_VALID_VALUES = 10  # CapacityRequestPolicyDiscreteMaxOptions


def _qualified_name_error(name: str, *, fully: bool) -> str | None:
    """Attribute/capacity names: `[domain/]identifier`, identifier a C identifier (at most 32)."""
    domain, sep, ident = name.rpartition("/")
    if fully and not sep:
        return "a fully qualified name must be a domain and a name separated by a slash"
    if sep:
        err = dns1123_subdomain_error(domain)
        if err:
            return err
    if not ident:
        return "the name must not be empty"
    if len(ident) > 32:
        return "must be no more than 32 bytes"
    if not (ident[0].isalpha() or ident[0] == "_") or \
            not all(c.isascii() and (c.isalnum() or c == "_") for c in ident):
        return ("a valid C identifier must start with alphabetic character or '_', followed by a "
                "string of alphanumeric characters or '_' (regex used for validation is "
                "'[A-Za-z_][A-Za-z0-9_]*')")
    return None


def _selectors(r: FieldReader, obj: Any, path: str) -> list[DeviceSelector]:
    items = r.seq(obj, path)
    if len(items) > MAX_SELECTORS:
        raise r.err(path, f"Too many: {len(items)}: must have at most {MAX_SELECTORS} items")
    out = []
    for i, s in enumerate(items):
        p = f"{path}[{i}]"
        m = r.mapping(s, p, required=True)
        cel = r.mapping(m.get("cel"), f"{p}.cel", required=True)
        expr = r.string(cel.get("expression"), f"{p}.cel.expression")
        if not expr:
            raise r.err(f"{p}.cel.expression", "Required value")
        compiled = compile_selector(expr)
        if compiled.error_kind == "too_long":
            raise r.err(f"{p}.cel.expression", f"Too long: {compiled.error}")
        if compiled.error_kind == "forbidden":  # the estimated cost is over the budget
            raise r.err(f"{p}.cel.expression", f"Forbidden: {compiled.error}")
        if compiled.error:
            raise r.err(f"{p}.cel.expression", f"Invalid value: {expr!r}: compilation failed: "
                                               f"{compiled.error}")
        out.append(DeviceSelector(cel=expr))
    return out


def _opaque_configs(r: FieldReader, obj: Any, path: str, *, with_requests: bool) -> list[dict]:
    out = []
    for i, c in enumerate(r.seq(obj, path)):
        p = f"{path}[{i}]"
        m = r.mapping(c, p, required=True)
        opaque = r.mapping(m.get("opaque"), f"{p}.opaque", required=True)
        driver = r.string(opaque.get("driver"), f"{p}.opaque.driver")
        if not driver:
            raise r.err(f"{p}.opaque.driver", "Required value")
        err = dns1123_subdomain_error(driver)
        if err:
            raise r.err(f"{p}.opaque.driver", f'Invalid value: "{driver}": {err}')
        entry: dict[str, Any] = {"opaque": {"driver": driver, "parameters": opaque.get("parameters")}}
        if with_requests:
            entry["requests"] = r.string_list(m.get("requests"), f"{p}.requests")
        out.append(entry)
    return out


def _extended_resource_name(r: FieldReader, value: Any, path: str) -> str | None:
    """spec.extendedResourceName (format k8s-extended-resource-name): a domain-prefixed name
    outside kubernetes.io that stays a qualified name behind the quota prefix `requests.`. The
    first of the apiserver's complaints is reported."""
    if value is None:
        return None
    name = r.string(value, path)
    if "/" not in name:
        raise r.err(path, f'Invalid value: "{name}": a name must be a domain-prefixed path, such as '
                          "'example.com/my-prop'")
    if "kubernetes.io/" in name:
        raise r.err(path, f'Invalid value: "{name}": must not have "kubernetes.io/" domain')
    if name.startswith("requests."):
        raise r.err(path, f'Invalid value: "{name}": must not have "requests." prefix')
    err = qualified_name_error("requests." + name)
    if err:
        raise r.err(path, f'Invalid value: "{name}": {err}')
    return name


def parse_device_class(r: FieldReader, obj: dict[str, Any]) -> DeviceClass:
    name, _, _, _ = parse_metadata(r, obj, namespaced=False)
    spec = r.mapping(obj.get("spec"), "spec")
    return DeviceClass(
        name=name, uid=stable_uid("DeviceClass", "", name),
        selectors=_selectors(r, spec.get("selectors"), "spec.selectors"),
        config=_opaque_configs(r, spec.get("config"), "spec.config", with_requests=False),
        extended_resource_name=_extended_resource_name(r, spec.get("extendedResourceName"),
                                                       "spec.extendedResourceName"),
    )


def _node_selector(r: FieldReader, obj: Any, path: str) -> NodeSelector | None:
    if obj is None:
        return None
    m = r.mapping(obj, path)
    tpath = join_path(path, "nodeSelectorTerms")
    terms = [node_selector_term(r, t, f"{tpath}[{i}]", allow_invalid_values=False)
             for i, t in enumerate(r.seq(m.get("nodeSelectorTerms"), tpath))]
    if not terms:
        raise r.err(tpath, "Required value: must have at least one node selector term")
    return NodeSelector(node_selector_terms=terms)


def _attribute(r: FieldReader, obj: Any, path: str) -> DeviceAttribute:
    m = r.mapping(obj, path, required=True)
    set_ = [k for k in ("string", "int", "bool", "version") if m.get(k) is not None]
    unknown = [k for k in m if k not in ("string", "int", "bool", "version")]
    if unknown:
        raise r.err(f"{path}.{unknown[0]}", 'unknown field (an attribute has exactly one of '
                                            '"string", "int", "bool", "version")')
    if len(set_) != 1:
        raise r.err(path, "Invalid value: exactly one value must be specified (string, int, "
                          f"bool or version), got {len(set_)}")
    kind = set_[0]
    value = m[kind]
    p = f"{path}.{kind}"
    if kind == "string":
        v = r.string(value, p)
        if len(v) > MAX_ATTRIBUTE_STRING:
            raise r.err(p, f"Too long: may not be more than {MAX_ATTRIBUTE_STRING} bytes")
        return DeviceAttribute("string", v)
    if kind == "int":
        return DeviceAttribute("int", r.integer(value, p, bits=64))
    if kind == "bool":
        return DeviceAttribute("bool", r.boolean(value, p))
    v = r.string(value, p)
    from scheduler_core.dra.cel import CelSemver
    try:
        CelSemver(v)
    except ValueError:
        raise r.err(p, f'Invalid value: "{v}": must be a string compatible with semver.org spec '
                       "2.0.0") from None
    return DeviceAttribute("version", v)


def _device(r: FieldReader, obj: Any, path: str) -> Device:
    m = r.mapping(obj, path, required=True)
    name = r.string(m.get("name"), f"{path}.name")
    if not name:
        raise r.err(f"{path}.name", "Required value")
    err = dns1123_label_error(name)
    if err:
        raise r.err(f"{path}.name", f'Invalid value: "{name}": {err}')
    attrs: dict[str, DeviceAttribute] = {}
    apath = f"{path}.attributes"
    for k, v in r.mapping(m.get("attributes"), apath).items():
        if not isinstance(k, str):
            raise r.err(apath, f"keys must be strings, got {k!r}")
        e = _qualified_name_error(k, fully=False)
        if e:
            raise r.err(apath, f'Invalid value: "{k}": {e}')
        attrs[k] = _attribute(r, v, f"{apath}.{k}")
    caps: dict[str, Any] = {}
    texts: dict[str, str] = {}
    policies: dict[str, CapacityRequestPolicy] = {}
    cpath = f"{path}.capacity"
    for k, v in r.mapping(m.get("capacity"), cpath).items():
        if not isinstance(k, str):
            raise r.err(cpath, f"keys must be strings, got {k!r}")
        e = _qualified_name_error(k, fully=False)
        if e:
            raise r.err(cpath, f'Invalid value: "{k}": {e}')
        cm = r.mapping(v, f"{cpath}.{k}", required=True)
        for extra in cm:
            if extra not in ("value", "requestPolicy"):
                raise r.err(f"{cpath}.{k}.{extra}", 'unknown field (a capacity has "value" and '
                                                    '"requestPolicy")')
        if cm.get("value") is None:
            raise r.err(f"{cpath}.{k}.value", "Required value")
        q = r.quantity(cm["value"], f"{cpath}.{k}.value")
        if q < 0:
            raise r.err(f"{cpath}.{k}.value", f'Invalid value: "{cm["value"]}": must be greater '
                                              "than or equal to 0")
        caps[k] = q
        texts[k] = cm["value"] if isinstance(cm["value"], str) else format_quantity(q)
        if cm.get("requestPolicy") is not None:
            policies[k] = _request_policy(r, cm["requestPolicy"], f"{cpath}.{k}.requestPolicy", q)
    if len(attrs) + len(caps) > MAX_ATTRIBUTES_AND_CAPACITY:
        raise r.err(path, f"Too many: {len(attrs) + len(caps)}: the combined number of "
                          f"attributes and capacities must not exceed {MAX_ATTRIBUTES_AND_CAPACITY}")
    multiple = m.get("allowMultipleAllocations")
    multiple = None if multiple is None else r.boolean(multiple, f"{path}.allowMultipleAllocations")
    if policies and not multiple:
        raise r.err(f"{cpath}.{next(iter(policies))}.requestPolicy",
                    "Forbidden: allowMultipleAllocations must be true to set a requestPolicy")
    return Device(name=name, attributes=attrs, capacity=caps, capacity_text=texts,
                  allow_multiple_allocations=multiple, request_policies=policies,
                  taints=_taints(r, m.get("taints"), f"{path}.taints"),
                  consumes_counters=_consumptions(r, m.get("consumesCounters"), f"{path}.consumesCounters"))


def _policy_quantity(r: FieldReader, value: Any, path: str, capacity: Any) -> Any:
    q = r.quantity(value, path)
    if q < 0:
        raise r.err(path, f'Invalid value: "{value}": must be greater than or equal to 0')
    if q > capacity:
        raise r.err(path, f'Invalid value: "{value}": must be less than or equal to the capacity value')
    return q


def _request_policy(r: FieldReader, obj: Any, path: str, capacity: Any) -> CapacityRequestPolicy:
    """A capacity's requestPolicy (DRAConsumableCapacity): default, and validValues or validRange."""
    m = r.mapping(obj, path, required=True)
    for extra in m:
        if extra not in ("default", "validValues", "validRange"):
            raise r.err(f"{path}.{extra}", 'unknown field (a requestPolicy has "default", '
                                           '"validValues" and "validRange")')
    policy = CapacityRequestPolicy(text=dict(m))
    if m.get("default") is not None:
        policy.default = _policy_quantity(r, m["default"], f"{path}.default", capacity)
    if m.get("validValues") is not None and m.get("validRange") is not None:
        raise r.err(path, "Invalid value: at most one of `validValues` or `validRange` may be set")
    values = r.seq(m.get("validValues"), f"{path}.validValues")
    if len(values) > MAX_VALID_VALUES:
        raise r.err(f"{path}.validValues", f"Too many: {len(values)}: must have at most "
                                           f"{MAX_VALID_VALUES} items")
    for i, v in enumerate(values):
        q = _policy_quantity(r, v, f"{path}.validValues[{i}]", capacity)
        if policy.valid_values and q <= policy.valid_values[-1]:
            raise r.err(f"{path}.validValues[{i}]", f'Invalid value: "{v}": must be sorted in '
                                                    "ascending order and unique")
        policy.valid_values.append(q)
    if values and policy.default is not None and policy.default not in policy.valid_values:
        raise r.err(f"{path}.default", "Invalid value: must be one of validValues")
    if m.get("validRange") is not None:
        rp = f"{path}.validRange"
        rm = r.mapping(m["validRange"], rp, required=True)
        for extra in rm:
            if extra not in ("min", "max", "step"):
                raise r.err(f"{rp}.{extra}", 'unknown field (a validRange has "min", "max" and "step")')
        if rm.get("min") is None:
            raise r.err(f"{rp}.min", "Required value")
        policy.range_min = _policy_quantity(r, rm["min"], f"{rp}.min", capacity)
        if rm.get("max") is not None:
            policy.range_max = _policy_quantity(r, rm["max"], f"{rp}.max", capacity)
            if policy.range_max < policy.range_min:
                raise r.err(f"{rp}.max", "Invalid value: must be greater than or equal to min")
        if rm.get("step") is not None:
            policy.range_step = r.quantity(rm["step"], f"{rp}.step")
            if policy.range_step <= 0:
                raise r.err(f"{rp}.step", "Invalid value: must be greater than zero")
    return policy


def _capacity_requests(r: FieldReader, obj: Any, path: str) -> tuple[dict[str, Any], dict[str, str]]:
    """A request's capacity.requests (DRAConsumableCapacity): capacity name -> amount."""
    m = r.mapping(obj, path)
    for extra in m:
        if extra != "requests":
            raise r.err(f"{path}.{extra}", 'unknown field (a capacity has "requests")')
    values: dict[str, Any] = {}
    texts: dict[str, str] = {}
    rpath = f"{path}.requests"
    for k, v in r.mapping(m.get("requests"), rpath).items():
        if not isinstance(k, str):
            raise r.err(rpath, f"keys must be strings, got {k!r}")
        err = _qualified_name_error(k, fully=False)
        if err:
            raise r.err(rpath, f'Invalid value: "{k}": {err}')
        q = r.quantity(v, f"{rpath}.{k}")
        if q < 0:
            raise r.err(f"{rpath}.{k}", f'Invalid value: "{v}": must be greater than or equal to 0')
        values[k] = q
        texts[k] = v if isinstance(v, str) else format_quantity(q)
    return values, texts


def _device_node_selection(r: FieldReader, obj: dict[str, Any], path: str, dev: Device,
                           per_device: bool) -> None:
    """A device's own nodeName / nodeSelector / allNodes: exactly one when its slice has
    perDeviceNodeSelection, none otherwise."""
    dev.node_name = r.string(obj.get("nodeName"), f"{path}.nodeName")
    if dev.node_name:
        err = dns1123_subdomain_error(dev.node_name)
        if err:
            raise r.err(f"{path}.nodeName", f'Invalid value: "{dev.node_name}": {err}')
    dev.node_selector = _node_selector(r, obj.get("nodeSelector"), f"{path}.nodeSelector")
    dev.all_nodes = r.boolean(obj.get("allNodes"), f"{path}.allNodes")
    chosen = sum(1 for x in (dev.node_name, dev.node_selector is not None, dev.all_nodes) if x)
    if per_device and chosen != 1:
        raise r.err(path, "Invalid value: exactly one of `nodeName`, `nodeSelector`, `allNodes` is "
                          "required when `perDeviceNodeSelection` is set")
    if not per_device and chosen:
        field = "nodeName" if dev.node_name else "nodeSelector" if dev.node_selector else "allNodes"
        raise r.err(f"{path}.{field}", "Forbidden: may only be set when `perDeviceNodeSelection` is true")


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


def _counters(r: FieldReader, obj: Any, path: str, *, required: bool) -> tuple[dict[str, Any], dict[str, str]]:
    """A counters map: DNS-label names, each `{value: quantity}` (non-negative)."""
    m = r.mapping(obj, path, required=required)
    if required and not m:
        raise r.err(path, "Required value")
    if len(m) > MAX_COUNTERS:
        raise r.err(path, f"Too many: {len(m)}: must have at most {MAX_COUNTERS} items")
    values: dict[str, Any] = {}
    texts: dict[str, str] = {}
    for k, v in m.items():
        if not isinstance(k, str):
            raise r.err(path, f"keys must be strings, got {k!r}")
        err = dns1123_label_error(k)
        if err:
            raise r.err(path, f'Invalid value: "{k}": {err}')
        cm = r.mapping(v, f"{path}.{k}", required=True)
        for extra in cm:
            if extra != "value":
                raise r.err(f"{path}.{k}.{extra}", 'unknown field (a counter has "value")')
        if cm.get("value") is None:
            raise r.err(f"{path}.{k}.value", "Required value")
        q = r.quantity(cm["value"], f"{path}.{k}.value")
        if q < 0:
            raise r.err(f"{path}.{k}.value", f'Invalid value: "{cm["value"]}": must be greater '
                                             "than or equal to 0")
        values[k] = q
        texts[k] = cm["value"] if isinstance(cm["value"], str) else format_quantity(q)
    return values, texts


def _consumptions(r: FieldReader, obj: Any, path: str) -> list[DeviceCounterConsumption]:
    """A device's consumesCounters (DRAPartitionableDevices): one entry per counter set."""
    items = r.seq(obj, path)
    if len(items) > MAX_COUNTER_CONSUMPTIONS:
        raise r.err(path, f"Too many: {len(items)}: must have at most {MAX_COUNTER_CONSUMPTIONS} items")
    out = []
    seen: set[str] = set()
    for i, c in enumerate(items):
        p = f"{path}[{i}]"
        m = r.mapping(c, p, required=True)
        name = _counter_set_name(r, m.get("counterSet"), f"{p}.counterSet", seen)
        values, texts = _counters(r, m.get("counters"), f"{p}.counters", required=True)
        out.append(DeviceCounterConsumption(counter_set=name, counters=values, counters_text=texts))
    return out


def _counter_set_name(r: FieldReader, obj: Any, path: str, seen: set[str]) -> str:
    name = r.string(obj, path)
    if not name:
        raise r.err(path, "Required value")
    err = dns1123_label_error(name)
    if err:
        raise r.err(path, f'Invalid value: "{name}": {err}')
    if name in seen:
        raise r.err(path, f'Duplicate value: "{name}"')
    seen.add(name)
    return name


def _shared_counters(r: FieldReader, obj: Any, path: str) -> list[CounterSet]:
    items = r.seq(obj, path)
    if len(items) > MAX_COUNTER_SETS:
        raise r.err(path, f"Too many: {len(items)}: must have at most {MAX_COUNTER_SETS} items")
    out = []
    seen: set[str] = set()
    for i, c in enumerate(items):
        p = f"{path}[{i}]"
        m = r.mapping(c, p, required=True)
        name = _counter_set_name(r, m.get("name"), f"{p}.name", seen)
        values, texts = _counters(r, m.get("counters"), f"{p}.counters", required=True)
        out.append(CounterSet(name=name, counters=values, counters_text=texts))
    return out


def parse_resource_slice(r: FieldReader, obj: dict[str, Any]) -> ResourceSlice:
    name, _, _, _ = parse_metadata(r, obj, namespaced=False)
    spec = r.mapping(obj.get("spec"), "spec", required=True)
    driver = r.string(spec.get("driver"), "spec.driver")
    if not driver:
        raise r.err("spec.driver", "Required value")
    err = dns1123_subdomain_error(driver)
    if err:
        raise r.err("spec.driver", f'Invalid value: "{driver}": {err}')
    pool = r.mapping(spec.get("pool"), "spec.pool", required=True)
    pool_name = r.string(pool.get("name"), "spec.pool.name")
    if not pool_name:
        raise r.err("spec.pool.name", "Required value")
    for part in pool_name.split("/"):
        err = dns1123_subdomain_error(part)
        if err:
            raise r.err("spec.pool.name", f'Invalid value: "{pool_name}": {err}')
    generation = r.integer(pool.get("generation", 0), "spec.pool.generation", bits=64)
    if generation < 0:
        raise r.err("spec.pool.generation", f"Invalid value: {generation}: must be greater than "
                                            "or equal to 0")
    count = pool.get("resourceSliceCount")
    if count is None:
        raise r.err("spec.pool.resourceSliceCount", "Required value")
    count = r.integer(count, "spec.pool.resourceSliceCount", bits=64)
    if count <= 0:
        raise r.err("spec.pool.resourceSliceCount", f"Invalid value: {count}: must be greater "
                                                    "than zero")
    node_name = r.string(spec.get("nodeName"), "spec.nodeName")
    if node_name:
        err = dns1123_subdomain_error(node_name)
        if err:
            raise r.err("spec.nodeName", f'Invalid value: "{node_name}": {err}')
    node_selector = _node_selector(r, spec.get("nodeSelector"), "spec.nodeSelector")
    all_nodes = r.boolean(spec.get("allNodes"), "spec.allNodes")
    per_device = r.boolean(spec.get("perDeviceNodeSelection"), "spec.perDeviceNodeSelection")
    chosen = sum(1 for x in (node_name, node_selector is not None, all_nodes, per_device) if x)
    shared = _shared_counters(r, spec.get("sharedCounters"), "spec.sharedCounters")
    if shared and spec.get("devices"):
        raise r.err("spec", "Invalid value: only one of `devices`, `sharedCounters` may be set")
    # A slice that only publishes counter sets is in the pool of every node, so it may leave
    # the node selection out.
    if chosen != 1 and not (shared and chosen == 0):
        raise r.err("spec", "Invalid value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
                            "`perDeviceNodeSelection` is required")
    raw_devices = r.seq(spec.get("devices"), "spec.devices")
    if len(raw_devices) > MAX_DEVICES_PER_SLICE:
        raise r.err("spec.devices", f"Too many: {len(raw_devices)}: must have at most "
                                    f"{MAX_DEVICES_PER_SLICE} items")
    devices = []
    seen: set[str] = set()
    for i, d in enumerate(raw_devices):
        dev = _device(r, d, f"spec.devices[{i}]")
        _device_node_selection(r, d, f"spec.devices[{i}]", dev, per_device)
        if dev.name in seen:
            raise r.err(f"spec.devices[{i}].name", f'Duplicate value: "{dev.name}"')
        seen.add(dev.name)
        devices.append(dev)
    if len(devices) > MAX_DEVICES_WITH_TAINTS_OR_COUNTERS and \
            any(d.taints or d.consumes_counters for d in devices):
        raise r.err("spec.devices", f"Too many: {len(devices)}: must have at most "
                                    f"{MAX_DEVICES_WITH_TAINTS_OR_COUNTERS} items when a device has "
                                    "taints or consumes counters")
    return ResourceSlice(shared_counters=shared, per_device_node_selection=per_device, name=name, uid=stable_uid("ResourceSlice", "", name), driver=driver,
                         pool_name=pool_name, pool_generation=generation,
                         resource_slice_count=count, node_name=node_name,
                         node_selector=node_selector, all_nodes=all_nodes, devices=devices)


def _count_and_mode(r: FieldReader, m: dict[str, Any], path: str) -> tuple[str, int]:
    mode = r.string(m.get("allocationMode"), f"{path}.allocationMode") or ALLOCATION_MODE_EXACT_COUNT
    if mode not in (ALLOCATION_MODE_EXACT_COUNT, ALLOCATION_MODE_ALL):
        raise r.err(f"{path}.allocationMode", f'Unsupported value: "{mode}": supported values: '
                                              '"All", "ExactCount"')
    raw = m.get("count")
    if mode == ALLOCATION_MODE_ALL:
        if raw is not None and raw != 0:
            raise r.err(f"{path}.count", f"Invalid value: {raw}: must not be specified when "
                                         "allocationMode is 'All'")
        return mode, 0
    count = 1 if raw is None else r.integer(raw, f"{path}.count", bits=64)
    if count <= 0:
        raise r.err(f"{path}.count", f"Invalid value: {count}: must be greater than zero")
    if count > ALLOCATION_RESULTS_MAX_SIZE:
        raise r.err(f"{path}.count", f"Invalid value: {count}: must be less than or equal to "
                                     f"{ALLOCATION_RESULTS_MAX_SIZE}")
    return mode, count


def _class_name(r: FieldReader, m: dict[str, Any], path: str) -> str:
    name = r.string(m.get("deviceClassName"), f"{path}.deviceClassName")
    if not name:
        raise r.err(f"{path}.deviceClassName", "Required value")
    err = dns1123_subdomain_error(name)
    if err:
        raise r.err(f"{path}.deviceClassName", f'Invalid value: "{name}": {err}')
    return name


def _request_name(r: FieldReader, m: dict[str, Any], path: str, seen: set[str]) -> str:
    name = r.string(m.get("name"), f"{path}.name")
    if not name:
        raise r.err(f"{path}.name", "Required value")
    err = dns1123_label_error(name)
    if err:
        raise r.err(f"{path}.name", f'Invalid value: "{name}": {err}')
    if name in seen:
        raise r.err(f"{path}.name", f'Duplicate value: "{name}"')
    seen.add(name)
    return name


def _capacity_fields(r: FieldReader, obj: Any, path: str) -> dict[str, Any]:
    values, texts = _capacity_requests(r, obj, path)
    return {"capacity_requests": values, "capacity_requests_text": texts}


def _claim_spec(r: FieldReader, obj: Any, path: str) -> DeviceClaimSpec:
    m = r.mapping(obj, path)
    devices = r.mapping(m.get("devices"), join_path(path, "devices"))
    dpath = join_path(path, "devices")
    raw_requests = r.seq(devices.get("requests"), f"{dpath}.requests")
    if len(raw_requests) > MAX_REQUESTS:
        raise r.err(f"{dpath}.requests", f"Too many: {len(raw_requests)}: must have at most "
                                         f"{MAX_REQUESTS} items")
    requests: list[DeviceRequest] = []
    names: set[str] = set()
    valid_refs: set[str] = set()
    for i, rq in enumerate(raw_requests):
        p = f"{dpath}.requests[{i}]"
        rm = r.mapping(rq, p, required=True)
        name = _request_name(r, rm, p, names)
        valid_refs.add(name)
        has_exact = rm.get("exactly") is not None
        has_first = bool(rm.get("firstAvailable"))
        if has_exact == has_first:
            raise r.err(p, "Required value: exactly one of `exactly` or `firstAvailable` is required")
        if has_exact:
            ep = f"{p}.exactly"
            em = r.mapping(rm["exactly"], ep)
            mode, count = _count_and_mode(r, em, ep)
            admin = em.get("adminAccess")
            admin = None if admin is None else r.boolean(admin, f"{ep}.adminAccess")
            requests.append(DeviceRequest(name=name, exactly=ExactDeviceRequest(
                name=name, device_class_name=_class_name(r, em, ep),
                selectors=_selectors(r, em.get("selectors"), f"{ep}.selectors"),
                allocation_mode=mode, count=count, admin_access=admin,
                tolerations=_tolerations(r, em.get("tolerations"), f"{ep}.tolerations"),
                **_capacity_fields(r, em.get("capacity"), f"{ep}.capacity"))))
            continue
        fp = f"{p}.firstAvailable"
        subs_raw = r.seq(rm.get("firstAvailable"), fp)
        if len(subs_raw) > FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE:
            raise r.err(fp, f"Too many: {len(subs_raw)}: must have at most "
                            f"{FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE} items")
        subs = []
        sub_names: set[str] = set()
        for j, sr in enumerate(subs_raw):
            sp = f"{fp}[{j}]"
            sm = r.mapping(sr, sp, required=True)
            sname = _request_name(r, sm, sp, sub_names)
            valid_refs.add(f"{name}/{sname}")
            mode, count = _count_and_mode(r, sm, sp)
            subs.append(DeviceSubRequest(
                name=sname, device_class_name=_class_name(r, sm, sp),
                selectors=_selectors(r, sm.get("selectors"), f"{sp}.selectors"),
                allocation_mode=mode, count=count,
                tolerations=_tolerations(r, sm.get("tolerations"), f"{sp}.tolerations"),
                **_capacity_fields(r, sm.get("capacity"), f"{sp}.capacity")))
        requests.append(DeviceRequest(name=name, first_available=subs))
    constraints = []
    raw_constraints = r.seq(devices.get("constraints"), f"{dpath}.constraints")
    if len(raw_constraints) > MAX_CONSTRAINTS:
        raise r.err(f"{dpath}.constraints", f"Too many: {len(raw_constraints)}: must have at most "
                                            f"{MAX_CONSTRAINTS} items")
    for i, c in enumerate(raw_constraints):
        p = f"{dpath}.constraints[{i}]"
        cm = r.mapping(c, p, required=True)
        reqs = r.string_list(cm.get("requests"), f"{p}.requests")
        for j, ref in enumerate(reqs):
            if ref not in valid_refs:
                raise r.err(f"{p}.requests[{j}]", f'Invalid value: "{ref}": must be the name of a '
                                                  "request in the claim or the name of a request "
                                                  "and a subrequest separated by '/'")
        attr = r.string(cm.get("matchAttribute"), f"{p}.matchAttribute")
        distinct = r.string(cm.get("distinctAttribute"), f"{p}.distinctAttribute")
        if bool(attr) == bool(distinct):
            raise r.err(p, "Invalid value: exactly one of `matchAttribute` or `distinctAttribute` "
                           "is required")
        field = "matchAttribute" if attr else "distinctAttribute"
        err = _qualified_name_error(attr or distinct, fully=True)
        if err:
            raise r.err(f"{p}.{field}", f'Invalid value: "{attr or distinct}": {err}')
        constraints.append(DeviceConstraint(requests=reqs, match_attribute=attr,
                                            distinct_attribute=distinct))
    config = _opaque_configs(r, devices.get("config"), f"{dpath}.config", with_requests=True)
    for i, c in enumerate(config):
        for j, ref in enumerate(c.get("requests") or []):
            if ref not in valid_refs:
                raise r.err(f"{dpath}.config[{i}].requests[{j}]",
                            f'Invalid value: "{ref}": must be the name of a request in the claim '
                            "or the name of a request and a subrequest separated by '/'")
    return DeviceClaimSpec(requests=requests, constraints=constraints, config=config)


def _allocation(r: FieldReader, obj: Any, path: str, spec: DeviceClaimSpec) -> AllocationResult | None:
    if obj is None:
        return None
    m = r.mapping(obj, path)
    devices = r.mapping(m.get("devices"), f"{path}.devices")
    refs = set()
    for rq in spec.requests:
        refs.add(rq.name)
        for sub in rq.first_available:
            refs.add(f"{rq.name}/{sub.name}")
    results = []
    raw = r.seq(devices.get("results"), f"{path}.devices.results")
    if len(raw) > ALLOCATION_RESULTS_MAX_SIZE:
        raise r.err(f"{path}.devices.results", f"Too many: {len(raw)}: must have at most "
                                               f"{ALLOCATION_RESULTS_MAX_SIZE} items")
    for i, res in enumerate(raw):
        p = f"{path}.devices.results[{i}]"
        rm = r.mapping(res, p, required=True)
        vals = {}
        for f in ("request", "driver", "pool", "device"):
            v = r.string(rm.get(f), f"{p}.{f}")
            if not v:
                raise r.err(f"{p}.{f}", "Required value")
            vals[f] = v
        if vals["request"] not in refs:
            raise r.err(f"{p}.request", f'Invalid value: "{vals["request"]}": must be the name of a '
                                        "request in the claim or the name of a request and a "
                                        "subrequest separated by '/'")
        admin = rm.get("adminAccess")
        results.append(DeviceRequestAllocationResult(
            request=vals["request"], driver=vals["driver"], pool=vals["pool"],
            device=vals["device"], admin_access=None if admin is None else r.boolean(admin, f"{p}.adminAccess"),
            tolerations=_tolerations(r, rm.get("tolerations"), f"{p}.tolerations"),
            share_id=r.string(rm["shareID"], f"{p}.shareID") if rm.get("shareID") is not None else None,
            consumed_capacity=_capacity_requests(r, {"requests": rm.get("consumedCapacity")},
                                                 f"{p}.consumedCapacity")[0]))
    config = []
    for i, c in enumerate(r.seq(devices.get("config"), f"{path}.devices.config")):
        cm = r.mapping(c, f"{path}.devices.config[{i}]", required=True)
        config.append(dict(cm))
    return AllocationResult(results=results,
                            node_selector=_node_selector(r, m.get("nodeSelector"), f"{path}.nodeSelector"),
                            config=config)



def parse_resource_claim(r: FieldReader, obj: dict[str, Any]) -> ResourceClaim:
    name, namespace, labels, annotations = parse_metadata(r, obj, namespaced=True)
    spec = _claim_spec(r, obj.get("spec"), "spec")
    status = r.mapping(obj.get("status"), "status")
    allocation = _allocation(r, status.get("allocation"), "status.allocation", spec)
    reserved = []
    raw = r.seq(status.get("reservedFor"), "status.reservedFor")
    if len(raw) > MAX_RESERVED_FOR:
        raise r.err("status.reservedFor", f"Too many: {len(raw)}: must have at most "
                                          f"{MAX_RESERVED_FOR} items")
    for i, ref in enumerate(raw):
        p = f"status.reservedFor[{i}]"
        m = r.mapping(ref, p, required=True)
        resource = r.string(m.get("resource"), f"{p}.resource")
        rname = r.string(m.get("name"), f"{p}.name")
        if not resource or not rname:
            raise r.err(p, "Required value: resource and name")
        reserved.append(ResourceClaimConsumerReference(
            resource=resource, name=rname, uid=r.string(m.get("uid"), f"{p}.uid"),
            api_group=r.string(m.get("apiGroup"), f"{p}.apiGroup")))
    if reserved and allocation is None:
        raise r.err("status.reservedFor", "Forbidden: may not be specified when `allocated` is not set")
    return ResourceClaim(name=name, namespace=namespace,
                         uid=stable_uid("ResourceClaim", namespace, name), spec=spec,
                         allocation=allocation, reserved_for=reserved,
                         owner_references=parse_owner_references(r, obj.get("metadata") or {}),
                         labels=labels, annotations=annotations)


def parse_resource_claim_template(r: FieldReader, obj: dict[str, Any]) -> ResourceClaimTemplate:
    name, namespace, labels, annotations = parse_metadata(r, obj, namespaced=True)
    spec = r.mapping(obj.get("spec"), "spec", required=True)
    inner = _claim_spec(r, spec.get("spec"), "spec.spec")
    return ResourceClaimTemplate(name=name, namespace=namespace,
                                 uid=stable_uid("ResourceClaimTemplate", namespace, name),
                                 spec=inner, labels=labels, annotations=annotations)


def parse_pod_resource_claims(r: FieldReader, spec: dict[str, Any],
                              status: Any) -> tuple[list[PodResourceClaim], dict[str, str | None]]:
    """spec.resourceClaims and (from a dump) status.resourceClaimStatuses."""
    if not _any_pod_claims(spec, status):
        return [], {}  # what the reading below gives for neither (most pods: a quick answer)
    raw = r.seq(spec.get("resourceClaims"), "spec.resourceClaims")
    if len(raw) > MAX_POD_CLAIMS:
        raise r.err("spec.resourceClaims", f"Too many: {len(raw)}: must have at most "
                                           f"{MAX_POD_CLAIMS} items")
    out = []
    seen: set[str] = set()
    for i, c in enumerate(raw):
        p = f"spec.resourceClaims[{i}]"
        m = r.mapping(c, p, required=True)
        name = _request_name(r, m, p, seen)
        claim = m.get("resourceClaimName")
        template = m.get("resourceClaimTemplateName")
        if (claim is None) == (template is None):
            raise r.err(p, "Invalid value: must specify one of: `resourceClaimName`, "
                           "`resourceClaimTemplateName`")
        field, value = ("resourceClaimName", claim) if claim is not None else \
            ("resourceClaimTemplateName", template)
        v = r.string(value, f"{p}.{field}")
        err = dns1123_subdomain_error(v)
        if err:
            raise r.err(f"{p}.{field}", f'Invalid value: "{v}": {err}')
        out.append(PodResourceClaim(name=name, resource_claim_name=v if claim is not None else None,
                                    resource_claim_template_name=v if template is not None else None))
    statuses: dict[str, str | None] = {}
    st = status if isinstance(status, dict) else {}
    for i, s in enumerate(r.seq(st.get("resourceClaimStatuses"), "status.resourceClaimStatuses")):
        p = f"status.resourceClaimStatuses[{i}]"
        m = r.mapping(s, p, required=True)
        cname = r.string(m.get("name"), f"{p}.name")
        if cname not in seen:
            raise r.err(f"{p}.name", f'Invalid value: "{cname}": must match the name of an entry '
                                     "in `spec.resourceClaims`")
        generated = m.get("resourceClaimName")
        statuses[cname] = None if generated is None else r.string(generated, f"{p}.resourceClaimName")
    return out, statuses


def check_container_claims(r: FieldReader, spec: dict[str, Any], claims: list[PodResourceClaim]) -> None:
    """containers[].resources.claims name entries of spec.resourceClaims (apiserver validation)."""
    if not _any_container_claims(spec):
        return
    names = {c.name for c in claims}
    for group in ("initContainers", "containers"):
        for i, c in enumerate(r.seq(spec.get(group), f"spec.{group}")):
            if not isinstance(c, dict):
                continue
            res = c.get("resources")
            if not isinstance(res, dict):
                continue
            seen: set[tuple[str, str]] = set()
            for j, cl in enumerate(r.seq(res.get("claims"), f"spec.{group}[{i}].resources.claims")):
                p = f"spec.{group}[{i}].resources.claims[{j}]"
                m = r.mapping(cl, p, required=True)
                cname = r.string(m.get("name"), f"{p}.name")
                if not cname:
                    raise r.err(f"{p}.name", "Required value")
                if cname not in names:
                    raise r.err(f"{p}.name", f'Not found: "{cname}": must be one of the names in '
                                             "pod.spec.resourceClaims"
                                             + (" which are: " + ", ".join(sorted(names)) if names
                                                else " which is empty"))
                key = (cname, r.string(m.get("request"), f"{p}.request"))
                if key in seen:
                    raise r.err(p, f'Duplicate value: "{cname}"')
                seen.add(key)


def _any_pod_claims(spec: dict[str, Any], status: Any) -> bool:
    """Whether `parse_pod_resource_claims` has anything to read: False only when the pod has
    neither spec.resourceClaims nor status.resourceClaimStatuses."""
    return spec.get("resourceClaims") is not None or (
        isinstance(status, dict) and status.get("resourceClaimStatuses") is not None)


def _any_container_claims(spec: dict[str, Any]) -> bool:
    """Whether `check_container_claims` has anything to read: False only when every container
    list is absent or an array, and every container's resources.claims absent or empty, where
    that check reads nothing and refuses nothing (most pods: a quick answer)."""
    for group in ("initContainers", "containers"):
        items = spec.get(group)
        if items is None:
            continue
        if not isinstance(items, list):
            return True
        for c in items:
            if isinstance(c, dict):
                res = c.get("resources")
                if isinstance(res, dict):
                    found = res.get("claims")
                    if found is not None and found != []:
                        return True
    return False
