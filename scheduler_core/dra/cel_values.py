"""The values a DRA selector computes with, and the checks every operation shares: Kubernetes'
quantity and semver types, cel-go's runtime errors and type names, equality and ordering.

They sit below the compiler (cel_program) and the function library (cel_functions), which both
need them, so neither imports the other's helpers and the package's imports point one way.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any

from scheduler_core.dra.cel_ast import CelUint


class CelQuantity:
    """A Kubernetes resource.Quantity inside CEL (an exact value in base units)."""

    __slots__ = ("value",)

    def __init__(self, value: Fraction) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"quantity({self.value})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelQuantity) and other.value == self.value

    def __hash__(self) -> int:
        return hash(self.value)


_SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
                     r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
                     r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$")


class CelSemver:
    """A semantic version (semver 2.0.0) inside CEL; build metadata does not order."""

    __slots__ = ("major", "minor", "patch", "pre", "text")

    def __init__(self, text: str) -> None:
        m = _SEMVER.match(text)
        if m is None:
            raise ValueError(f"invalid semver: {text!r}")
        self.text = text
        self.major, self.minor, self.patch = int(m.group(1)), int(m.group(2)), int(m.group(3))
        self.pre = tuple(m.group(4).split(".")) if m.group(4) else ()

    def _key(self) -> tuple:
        # A pre-release sorts before its release; numeric identifiers before alphanumeric ones.
        pre = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in self.pre)
        return (self.major, self.minor, self.patch, 0 if self.pre else 1, pre)

    def compare(self, other: CelSemver) -> int:
        a, b = self._key(), other._key()
        return (a > b) - (a < b)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelSemver) and self.compare(other) == 0

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"semver({self.text})"


COST_LIMIT_MESSAGE = "operation cancelled: actual cost limit exceeded"


class CelRuntimeError(Exception):
    """A CEL error value (no such key, no such overload, division by zero, ...)."""


class CostLimitExceeded(Exception):
    """The evaluation's actual cost passed the budget: it stops, whatever else it would do."""

    def __init__(self) -> None:
        super().__init__(COST_LIMIT_MESSAGE)


class DefaultEmptyMap(dict):
    """`device.attributes` / `device.capacity`: an unknown domain reads as an empty map."""

    __slots__ = ()


_EMPTY: dict = {}


def _ceil10(n: int) -> int:
    return math.ceil(float(n) * 0.1)


def _size(v: Any) -> int:
    if isinstance(v, (str, bytes, list, dict)):
        return len(v)
    return 1


def _tname(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, CelUint):
        return "uint"
    if isinstance(v, CelQuantity):
        return "kubernetes.Quantity"
    if isinstance(v, CelSemver):
        return "kubernetes.Semver"
    return {int: "int", float: "double", str: "string", bytes: "bytes", list: "list",
            dict: "map", DefaultEmptyMap: "map", type(None): "null_type"}.get(type(v), type(v).__name__)


def _go_type(v: Any) -> str:
    """cel-go's Go type name of a value, as its messages print it."""
    name = _tname(v)
    return {"int": "types.Int", "uint": "types.Uint", "double": "types.Double", "string": "types.String",
            "bool": "types.Bool", "bytes": "types.Bytes", "null_type": "types.Null",
            "kubernetes.Quantity": "cel.Quantity", "kubernetes.Semver": "cel.Semver"}.get(name, name)


def _overload(fn: str, *vals: Any) -> CelRuntimeError:
    return CelRuntimeError(f"no such overload: {fn}({', '.join(_tname(v) for v in vals)})")


def _num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def cel_eq(a: Any, b: Any) -> bool:
    """CEL's heterogeneous equality: different types are unequal, numbers compare by value."""
    ta, tb = type(a), type(b)
    if ta is tb:
        if ta is list:
            return len(a) == len(b) and all(cel_eq(x, y) for x, y in zip(a, b, strict=True))
        if ta is dict or ta is DefaultEmptyMap:
            return len(a) == len(b) and all(k in b and cel_eq(v, b[k]) for k, v in a.items())
        if ta is float and (a != a or b != b):
            return False
        return a == b
    if _num(a) and _num(b):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return len(a) == len(b) and all(k in b and cel_eq(v, b[k]) for k, v in a.items())
    return False


def _compare(fn: str, a: Any, b: Any) -> int:
    if _num(a) and _num(b) or type(a) is type(b) and isinstance(a, (str, bytes, bool)):
        return (a > b) - (a < b)
    raise _overload(fn, a, b)


def _qualify(obj: Any, key: Any) -> Any:
    if isinstance(obj, dict):
        try:
            return obj[key]
        except (KeyError, TypeError):
            if type(obj) is DefaultEmptyMap:
                return _EMPTY
            raise CelRuntimeError(f"no such key: {key}") from None
    if isinstance(obj, list):
        if not _num(key) or (isinstance(key, float) and key != int(key)):
            raise CelRuntimeError(f"unsupported index type '{_tname(key)}' in list")
        i = int(key)
        if not 0 <= i < len(obj):
            raise CelRuntimeError(f"index out of bounds: {i}")
        return obj[i]
    raise CelRuntimeError(f"no such overload: {_tname(obj)}[{_tname(key)}]")
