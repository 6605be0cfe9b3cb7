"""ResourceLists (requests, limits, overhead, capacity, allocatable) validated as the apiserver
does: resource names, non-negative quantities rounded up to 1m, integer-only resources."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from scheduler_core.api.quantity import round_up_milli
from scheduler_core.api.validation import qualified_name_error
from scheduler_core.loader.reader import FieldReader

__all__ = ["resource_list"]

_STANDARD_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
_INTEGER_RESOURCES = frozenset({
    "pods", "services", "replicationcontrollers", "resourcequotas", "secrets", "configmaps",
    "persistentvolumeclaims", "services.nodeports", "services.loadbalancers",
})
_STANDARD_RESOURCES = _STANDARD_CONTAINER_RESOURCES | _INTEGER_RESOURCES | {"storage"}


def _is_native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _is_hugepages(name: str) -> bool:
    return name.startswith("hugepages-")


def _is_extended(name: str) -> bool:
    if _is_native(name) or name.startswith("requests."):
        return False
    return qualified_name_error("requests." + name) is None


def _is_integer_resource(name: str) -> bool:
    return name in _INTEGER_RESOURCES or _is_extended(name)


def _resource_name_error(name: str, container: bool) -> str | None:
    e = qualified_name_error(name)
    if e:
        return e
    if "/" not in name:
        if container:
            if name not in _STANDARD_CONTAINER_RESOURCES and not _is_hugepages(name):
                return "must be a standard resource for containers"
        elif name not in _STANDARD_RESOURCES and not _is_hugepages(name):
            return "must be a standard resource type or fully qualified"
    elif container and not _is_native(name) and not _is_extended(name):
        return "doesn't follow extended resource name standard"
    return None


# Successful results by (container?, the list's (name, type, value) triples): a dump repeats a
# handful of requests/limits across every replica, and parsing a quantity costs Fraction
# arithmetic. The value's type is part of the key (1, 1.0 and True are equal in Python, and
# True is an error). Errors are never cached: they come from the full check with their path.
_CACHE: dict[tuple[object, ...], dict[str, Fraction]] = {}
_CACHE_MAX = 4096


def resource_list(r: FieldReader, obj: Any, path: str, *, container: bool) -> dict[str, Fraction]:
    """A validated ResourceList (a new dict the caller may change; the Fractions are shared:
    they are immutable)."""
    m = r.mapping(obj, path)
    if not m:
        return {}
    key: tuple[object, ...] = (container, *((k, v.__class__, v) for k, v in m.items()))
    try:
        hit = _CACHE.get(key)
    except TypeError:  # an unhashable value: the full check reports it
        hit, key = None, ()
    if hit is not None:
        return dict(hit)
    out = _resource_list(r, m, path, container=container)
    if key:
        if len(_CACHE) >= _CACHE_MAX:
            _CACHE.clear()
        _CACHE[key] = dict(out)
    return out


def _resource_list(r: FieldReader, m: dict[Any, Any], path: str, *,
                   container: bool) -> dict[str, Fraction]:
    out: dict[str, Fraction] = {}
    for name, raw in m.items():
        if not isinstance(name, str):
            raise r.err(path, f"resource names must be strings, got {name!r}")
        fpath = f"{path}.{name}"
        e = _resource_name_error(name, container)
        if e:
            raise r.err(fpath, f'Invalid value: "{name}": {e}')
        q = round_up_milli(r.quantity(raw, fpath))
        if q < 0:
            raise r.err(fpath, f'Invalid value: "{raw}": must be greater than or equal to 0')
        if _is_integer_resource(name) and q.denominator != 1:
            raise r.err(fpath, f'Invalid value: "{raw}": must be an integer')
        out[name] = q
    return out
