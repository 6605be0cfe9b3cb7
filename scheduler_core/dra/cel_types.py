"""The few static types the selector cost estimate (cel_cost) tracks, and how cel-go names them.

Why apart: cel-python has no type checker, and the estimate depends on only a little of one:
which overload a call may take (an int, a double or a string argument), whether a select is on
a map, what the `device` variable's fields hold, and the Kubernetes library functions' result
types. A type is a name ("int", "quantity", ...) or a tuple led by one (("map", key, value)).
"""

from __future__ import annotations

from typing import Any

from scheduler_core.dra.cel_ast import CelUint

__all__ = ["ATTRS_T", "CAPS_T", "CONVERSIONS", "DEVICE_FIELDS", "K8S_ONE", "K8S_RESULT", "NUMERIC", "SCALARS",
           "common_type", "is_kind", "literal_type", "type_name"]

ATTRS_T = ("map", "string", ("map", "string", "dyn"))
CAPS_T = ("map", "string", ("map", "string", "quantity"))
DEVICE_FIELDS = {"driver": "string", "attributes": ATTRS_T, "capacity": CAPS_T,
                 "allowMultipleAllocations": "bool"}
SCALARS = frozenset({"bool", "int", "uint", "double"})
NUMERIC = frozenset({"int", "uint", "double"})
CONVERSIONS = {"int": "int", "uint": "uint", "double": "double", "string": "string",
               "bool": "bool", "bytes": "bytes", "dyn": "dyn", "type": "type"}
K8S_ONE = frozenset({"sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan",
                     "isLessThan", "compareTo", "add", "sub", "major", "minor", "patch"})
K8S_RESULT = {"sign": "int", "asInteger": "int", "isInteger": "bool", "asApproximateFloat": "double",
              "isGreaterThan": "bool", "isLessThan": "bool", "compareTo": "int", "major": "int",
              "minor": "int", "patch": "int", "quantity": "quantity", "semver": "semver",
              "isQuantity": "bool", "isSemver": "bool", "size": "int", "contains": "bool",
              "startsWith": "bool", "endsWith": "bool", "matches": "bool"}


def is_kind(t: Any, *kinds: str) -> bool:
    """Whether static type `t` (a name, or a tuple led by one) is of one of `kinds`."""
    k = t[0] if isinstance(t, tuple) else t
    return k in kinds


def literal_type(v: Any) -> str:
    """The static type of a literal's value."""
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, CelUint):
        return "uint"
    return {int: "int", float: "double", str: "string", bytes: "bytes", type(None): "null"}[type(v)]


def common_type(types: list) -> Any:
    """The one type all of `types` share, else dyn (a list or map literal's element type)."""
    if not types:
        return "dyn"
    first = types[0]
    return first if all(t == first for t in types) else "dyn"


def type_name(t: Any) -> str:
    """A static type as cel-go's messages name it."""
    if isinstance(t, tuple):
        return f"{t[0]}({', '.join(type_name(x) for x in t[1:])})"
    return {"device": "kubernetes.DRADevice", "quantity": "kubernetes.Quantity",
            "semver": "kubernetes.Semver"}.get(t, t)
