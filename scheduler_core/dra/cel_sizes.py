"""The sizes and cost ranges the selector cost estimate (cel_cost) computes with.

Why apart: they are the estimate's units, not its walk. A size or a cost is a (min, max) pair,
added and multiplied saturating at 2^64-1 as cel-go's uint64 arithmetic does. A size along a
path from the `device` variable is its declared maximum (DRA's size estimator): resource.k8s.io
bounds the driver name, the attribute and capacity domains and ids, an attribute value's length
and the attributes and capacities per device.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["DEVICE", "ONE", "U64", "UNKNOWN", "ZERO", "device_size", "range_add", "range_by_factor",
           "range_mul", "range_union", "scaled"]

U64 = 2 ** 64 - 1
DEVICE = "device"
# DRA's limits on what a `device` holds (resource.k8s.io): driver name, domain and id lengths,
# attribute value length, attributes and capacities per device.
_DRIVER, _DOMAIN, _ID, _ATTR, _PER_DEVICE = 63, 63, 32, 64, 32


class _Decl:
    __slots__ = ("max", "fields", "key", "elem")

    def __init__(self, mx: int, fields: dict | None = None, key: Any = None, elem: Any = None) -> None:
        self.max, self.fields, self.key, self.elem = mx, fields or {}, key, elem


_ATTR_DECL = _Decl(_ATTR)
_QTY_DECL = _Decl(0)
_DEVICE_DECL = _Decl(0, {
    "driver": _Decl(_DRIVER),
    "allowMultipleAllocations": _Decl(1),
    "attributes": _Decl(_PER_DEVICE, key=_Decl(_DOMAIN), elem=_Decl(_PER_DEVICE, key=_Decl(_ID), elem=_ATTR_DECL)),
    "capacity": _Decl(_PER_DEVICE, key=_Decl(_DOMAIN), elem=_Decl(_PER_DEVICE, key=_Decl(_ID), elem=_QTY_DECL)),
})


def device_size(path: tuple | None) -> tuple[int, int] | None:
    """The (0, declared maximum) size of what `path` (from `device`) denotes; None off `device`."""
    if not path or path[0] != DEVICE:
        return None
    node = _DEVICE_DECL
    for name in path[1:]:
        if name in ("@items", "@values"):
            if node.elem is None:
                return None
            node = node.elem
        elif name == "@keys":
            if node.key is None:
                return None
            node = node.key
        else:
            f = node.fields.get(name)
            if f is None:
                if node.elem is _ATTR_DECL:
                    node = _ATTR_DECL
                    continue
                return None
            node = f
    return (0, node.max)


# --- arithmetic on (min, max) pairs, saturating like the uint64 originals -----------------
def range_add(a: tuple, b: tuple) -> tuple:
    return (min(a[0] + b[0], U64), min(a[1] + b[1], U64))


def range_mul(a: tuple, b: tuple) -> tuple:
    return (min(a[0] * b[0], U64), min(a[1] * b[1], U64))


def scaled(x: int, f: float) -> int:
    if x > 0 and f > 0 and float(x) > U64 / f:
        return U64
    v = math.ceil(float(x) * f)
    return U64 if v >= 2 ** 64 else v


def range_by_factor(a: tuple, f: float) -> tuple:
    return (scaled(a[0], f), scaled(a[1], f))


def range_union(a: tuple, b: tuple) -> tuple:
    return (min(a[0], b[0]), max(a[1], b[1]))


UNKNOWN = (0, U64)
ZERO = (0, 0)
ONE = (1, 1)
