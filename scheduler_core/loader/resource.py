"""resource.k8s.io/v1 objects as the apiserver stores them: defaults (allocationMode
ExactCount, count 1), validation (names, exactly-one-of fields, limits, CEL that compiles,
non-negative capacity) and, across objects, the references the playground refuses to leave
dangling (a claim or template naming a DeviceClass the scenario does not define).

Each parser takes the `FieldReader` of its document, so every refusal names the document, the
object, the field and why; nothing is stored from a scenario that has any refusal.

This module holds the v1 API's limits, the pieces every kind shares (device selectors, opaque
configs, qualified names, node selectors, capacity requests) and the DeviceClass. The other
kinds have a module each: resource_slice.py, resource_claim.py (claims, templates and a pod's
claims), resource_taints.py (DeviceTaintRules and the taints and tolerations they share with
slices and claims).
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.quantity import format_quantity
from scheduler_core.api.resource_types import DeviceClass, DeviceSelector
from scheduler_core.api.types import NodeSelector
from scheduler_core.api.validation import dns1123_subdomain_error, qualified_name_error
from scheduler_core.dra.cel import compile_selector
from scheduler_core.loader.metadata import parse_metadata, stable_uid
from scheduler_core.loader.reader import FieldReader, join_path
from scheduler_core.loader.selectors import node_selector_term

__all__ = ["parse_device_class", "MAX_DEVICES_PER_SLICE", "MAX_ATTRIBUTES_AND_CAPACITY", "MAX_REQUESTS",
           "MAX_SELECTORS", "MAX_CONSTRAINTS", "MAX_RESERVED_FOR", "MAX_POD_CLAIMS", "MAX_ATTRIBUTE_STRING",
           "MAX_DEVICES_WITH_TAINTS_OR_COUNTERS", "MAX_TAINTS", "MAX_TOLERATIONS", "MAX_COUNTER_SETS",
           "MAX_COUNTERS", "MAX_COUNTER_CONSUMPTIONS", "TAINT_EFFECTS", "MAX_VALID_VALUES"]

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
