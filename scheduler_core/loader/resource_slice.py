"""ResourceSlices (resource.k8s.io/v1) as the apiserver stores them: a driver's pool of devices
on a node (or a node selection, or all nodes), each device's attributes, capacities and their
request policies, taints, and the counters devices consume from the slice's shared counter sets.

Apart from the other kinds (loader/resource.py) because a slice is the largest of them and
shares only the API's limits and a few validators with them.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.quantity import format_quantity
from scheduler_core.api.resource_types import (
    CapacityRequestPolicy,
    CounterSet,
    Device,
    DeviceAttribute,
    DeviceCounterConsumption,
    ResourceSlice,
)
from scheduler_core.api.validation import dns1123_label_error, dns1123_subdomain_error
from scheduler_core.loader.metadata import parse_metadata, stable_uid
from scheduler_core.loader.reader import FieldReader
from scheduler_core.loader.resource import (
    MAX_ATTRIBUTE_STRING,
    MAX_ATTRIBUTES_AND_CAPACITY,
    MAX_COUNTER_CONSUMPTIONS,
    MAX_COUNTER_SETS,
    MAX_COUNTERS,
    MAX_DEVICES_PER_SLICE,
    MAX_DEVICES_WITH_TAINTS_OR_COUNTERS,
    MAX_VALID_VALUES,
    _node_selector,
    _qualified_name_error,
)
from scheduler_core.loader.resource_taints import _taints

__all__ = ["parse_resource_slice"]


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
