"""The functions a DRA selector can call, with the runtime cost cel-go charges for each:
CEL's operators and standard functions, and the Kubernetes library's quantity and semver
functions (`quantity("1Gi")`, `isQuantity`, `.compareTo`, `.isGreaterThan`, `.add`, ...,
`semver("1.2.3")`, `isSemver`, `.major`, ...).

Each implementation takes the activation first (unused, so all share one calling convention)
and returns a Python value or raises CelRuntimeError; `call_cost` gives the size-based cost
of the calls whose cost is not 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from typing import Any

from scheduler_core.dra.cel_ast import CelUint
from scheduler_core.dra.cel_values import (
    _SEMVER,
    CelQuantity,
    CelRuntimeError,
    CelSemver,
    _compare,
    _num,
    _overload,
    _size,
    _tname,
    cel_eq,
)

__all__ = ["FUNCTIONS", "call_cost"]

_I64 = (-(2 ** 63), 2 ** 63 - 1)
MAX_LIST = 2 ** 20


def _ceil(n: float) -> int:
    return math.ceil(n)


def _int_result(v: int) -> int:
    if not _I64[0] <= v <= _I64[1]:
        raise CelRuntimeError("integer overflow")
    return v


def _arith(op: str) -> Callable[..., Any]:
    def f(_: list, x: Any, y: Any) -> Any:
        tx, ty = type(x), type(y)
        if tx is not ty:
            raise _overload(op, x, y)
        if tx is int:
            if op == "_+_":
                return _int_result(x + y)
            if op == "_-_":
                return _int_result(x - y)
            if op == "_*_":
                return _int_result(x * y)
            if y == 0:
                raise CelRuntimeError("division by zero" if op == "_/_" else "modulus by zero")
            q = abs(x) // abs(y) * (1 if (x >= 0) == (y >= 0) else -1)
            return _int_result(q) if op == "_/_" else x - q * y
        if tx is CelUint:
            if op == "_+_":
                r = x + y
            elif op == "_-_":
                r = x - y
            elif op == "_*_":
                r = x * y
            else:
                if y == 0:
                    raise CelRuntimeError("division by zero" if op == "_/_" else "modulus by zero")
                r = x // y if op == "_/_" else x % y
            if not 0 <= r < 2 ** 64:
                raise CelRuntimeError("unsigned integer overflow")
            return CelUint(r)
        if tx is float and op != "_%_":
            if op == "_+_":
                return x + y
            if op == "_-_":
                return x - y
            if op == "_*_":
                return x * y
            return x / y if y else (math.copysign(math.inf, x * y) if x else math.nan)
        if op == "_+_" and tx is list and len(x) + len(y) > MAX_LIST:
            # cel-go joins lists lazily at a cost of 1, so doubling a list in nested binds is
            # cheap there; here it would be built: refused past a million elements instead
            raise CelRuntimeError(f"list of {len(x) + len(y)} elements exceeds {MAX_LIST}")
        if op == "_+_" and tx in (str, bytes, list):
            return x + y
        raise _overload(op, x, y)
    return f


def _neg(_: list, x: Any) -> Any:
    if type(x) is int:
        return _int_result(-x)
    if type(x) is float:
        return -x
    raise _overload("-_", x)


def _not(_: list, x: Any) -> Any:
    if type(x) is bool:
        return not x
    raise _overload("!_", x)


def _in(_: list, x: Any, c: Any) -> Any:
    if isinstance(c, list):
        return any(cel_eq(x, v) for v in c)
    if isinstance(c, dict):
        try:
            return x in c
        except TypeError:
            return False
    raise _overload("@in", x, c)


def _size_fn(_: list, x: Any) -> Any:
    if isinstance(x, (str, bytes, list, dict)):
        return len(x)
    raise _overload("size", x)


def _str_fn(name: str, op: Callable[[str, str], bool]) -> Callable[..., Any]:
    def f(_: list, s: Any, t: Any) -> Any:
        if type(s) is str and type(t) is str:
            return op(s, t)
        raise _overload(name, s, t)
    return f


@lru_cache(maxsize=256)
def _regex(pattern: str) -> Any:
    """RE2, as cel-go uses: linear in the input, so a pattern cannot backtrack for hours within
    a cost budget that charges it by its length."""
    import re2

    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        msg = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise CelRuntimeError(f"error parsing regexp: {msg}") from None


def _matches(_: list, s: Any, pattern: Any) -> Any:
    if type(s) is not str or type(pattern) is not str:
        raise _overload("matches", s, pattern)
    return _regex(pattern).search(s) is not None


def _string_method(name: str, op: Callable[[str], str]) -> Callable[..., Any]:
    def f(_: list, s: Any) -> Any:
        if type(s) is not str:
            raise _overload(name, s)
        return op(s)
    return f


def _ascii_case(upper: bool) -> Callable[[str], str]:
    def op(s: str) -> str:  # only ASCII letters change, as the Kubernetes library's
        return "".join((c.upper() if upper else c.lower()) if c.isascii() else c for c in s)
    return op


def _find(_: list, s: Any, pattern: Any) -> Any:
    if type(s) is not str or type(pattern) is not str:
        raise _overload("find", s, pattern)
    m = _regex(pattern).search(s)
    return m.group(0) if m is not None else ""


def _to_int(_: list, v: Any) -> Any:
    if type(v) is int:
        return v
    if type(v) is CelUint:
        return _int_result(int(v))
    if type(v) is float:
        if v != v or not -9.223372036854776e18 < v < 9.223372036854776e18:
            raise CelRuntimeError("double out of range for int")
        return int(v)
    if type(v) is str:
        try:
            return _int_result(int(v, 10))
        except ValueError:
            raise CelRuntimeError(f"cannot convert {v!r} to int") from None
    raise _overload("int", v)


def _to_uint(_: list, v: Any) -> Any:
    if type(v) in (int, CelUint) or type(v) is float and v == v:
        r = int(v)
        if not 0 <= r < 2 ** 64:
            raise CelRuntimeError("uint out of range")
        return CelUint(r)
    if type(v) is str:
        try:
            return _to_uint(_, int(v, 10))
        except ValueError:
            raise CelRuntimeError(f"cannot convert {v!r} to uint") from None
    raise _overload("uint", v)


def _to_double(_: list, v: Any) -> Any:
    if _num(v):
        return float(v)
    if type(v) is str:
        try:
            return float(v)
        except ValueError:
            raise CelRuntimeError(f"cannot convert {v!r} to double") from None
    raise _overload("double", v)


def _to_string(_: list, v: Any) -> Any:
    if type(v) is str:
        return v
    if type(v) is bool:
        return "true" if v else "false"
    if type(v) in (int, CelUint):
        return str(int(v))
    if type(v) is float:
        return repr(v)
    if type(v) is bytes:
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            raise CelRuntimeError("invalid UTF-8 in bytes") from None
    raise _overload("string", v)


def _to_bool(_: list, v: Any) -> Any:
    if type(v) is bool:
        return v
    if type(v) is str and v in ("true", "false", "True", "False", "TRUE", "FALSE", "t", "f", "1", "0"):
        return v in ("true", "True", "TRUE", "t", "1")
    raise _overload("bool", v)


def _to_bytes(_: list, v: Any) -> Any:
    if type(v) is bytes:
        return v
    if type(v) is str:
        return v.encode("utf-8")
    raise _overload("bytes", v)


def _dyn(_: list, v: Any) -> Any:
    return v


# --- Kubernetes library: quantity and semver ------------------------------------------------
def _quantity(_: list, s: Any) -> Any:
    from scheduler_core.api.quantity import QuantityError, parse_quantity

    if type(s) is not str:
        raise _overload("quantity", s)
    try:
        return CelQuantity(parse_quantity(s))
    except QuantityError as exc:
        raise CelRuntimeError(f"invalid quantity {s!r}: {exc}") from None


def _is_quantity(_: list, s: Any) -> Any:
    from scheduler_core.api.quantity import QuantityError, parse_quantity

    if type(s) is not str:
        raise _overload("isQuantity", s)
    try:
        parse_quantity(s)
    except QuantityError:
        return False
    return True


def _semver(_: list, s: Any) -> Any:

    if type(s) is not str:
        raise _overload("semver", s)
    try:
        return CelSemver(s)
    except ValueError as exc:
        raise CelRuntimeError(str(exc)) from None


def _is_semver(_: list, s: Any) -> Any:

    if type(s) is not str:
        raise _overload("isSemver", s)
    return _SEMVER.match(s) is not None


def _kcmp(name: str, x: Any, y: Any) -> int:

    if isinstance(x, CelQuantity) and isinstance(y, CelQuantity):
        return (x.value > y.value) - (x.value < y.value)
    if isinstance(x, CelSemver) and isinstance(y, CelSemver):
        return x.compare(y)
    raise _overload(name, x, y)


def _qty(name: str, x: Any) -> Any:

    if not isinstance(x, CelQuantity):
        raise _overload(name, x)
    return x


def _qadd(sign: int, name: str) -> Callable[..., Any]:
    def f(_: list, x: Any, y: Any) -> Any:

        q = _qty(name, x)
        if isinstance(y, CelQuantity):
            return CelQuantity(q.value + sign * y.value)
        if type(y) is int:
            return CelQuantity(q.value + sign * Fraction(y))
        raise _overload(name, x, y)
    return f


def _as_integer(_: list, x: Any) -> Any:
    v = _qty("asInteger", x).value
    if v.denominator != 1 or not _I64[0] <= v <= _I64[1]:
        raise CelRuntimeError("cannot convert value to integer")
    return int(v)


def _semver_part(name: str) -> Callable[..., Any]:
    def f(_: list, x: Any) -> Any:

        if not isinstance(x, CelSemver):
            raise _overload(name, x)
        return getattr(x, name)
    return f


FUNCTIONS: dict[tuple[str, bool, int], Callable[..., Any]] = {
    ("_==_", False, 2): lambda _, x, y: cel_eq(x, y),
    ("_!=_", False, 2): lambda _, x, y: not cel_eq(x, y),
    ("_<_", False, 2): lambda _, x, y: _compare("_<_", x, y) < 0,
    ("_<=_", False, 2): lambda _, x, y: _compare("_<=_", x, y) <= 0,
    ("_>_", False, 2): lambda _, x, y: _compare("_>_", x, y) > 0,
    ("_>=_", False, 2): lambda _, x, y: _compare("_>=_", x, y) >= 0,
    ("@in", False, 2): _in,
    ("!_", False, 1): _not,
    ("-_", False, 1): _neg,
    ("size", False, 1): _size_fn,
    ("size", True, 1): _size_fn,
    ("contains", True, 2): _str_fn("contains", lambda s, t: t in s),
    ("startsWith", True, 2): _str_fn("startsWith", lambda s, t: s.startswith(t)),
    ("endsWith", True, 2): _str_fn("endsWith", lambda s, t: s.endswith(t)),
    ("matches", True, 2): _matches,
    ("matches", False, 2): _matches,
    ("lowerAscii", True, 1): _string_method("lowerAscii", _ascii_case(False)),
    ("upperAscii", True, 1): _string_method("upperAscii", _ascii_case(True)),
    ("trim", True, 1): _string_method("trim", lambda s: s.strip(" \t\n\v\f\r\x85\xa0\u1680\u2000\u2001\u2002"
                                                          "\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
                                                          "\u2028\u2029\u202f\u205f\u3000")),
    ("find", True, 2): _find,
    ("int", False, 1): _to_int,
    ("uint", False, 1): _to_uint,
    ("double", False, 1): _to_double,
    ("string", False, 1): _to_string,
    ("bool", False, 1): _to_bool,
    ("bytes", False, 1): _to_bytes,
    ("dyn", False, 1): _dyn,
    ("quantity", False, 1): _quantity,
    ("isQuantity", False, 1): _is_quantity,
    ("semver", False, 1): _semver,
    ("isSemver", False, 1): _is_semver,
    ("compareTo", True, 2): lambda _, x, y: _kcmp("compareTo", x, y),
    ("isGreaterThan", True, 2): lambda _, x, y: _kcmp("isGreaterThan", x, y) > 0,
    ("isLessThan", True, 2): lambda _, x, y: _kcmp("isLessThan", x, y) < 0,
    ("add", True, 2): _qadd(1, "add"),
    ("sub", True, 2): _qadd(-1, "sub"),
    ("asInteger", True, 1): _as_integer,
    ("asApproximateFloat", True, 1): lambda _, x: float(_qty("asApproximateFloat", x).value),
    ("isInteger", True, 1): lambda _, x: _qty("isInteger", x).value.denominator == 1,
    ("sign", True, 1): lambda _, x: (lambda v: (v > 0) - (v < 0))(_qty("sign", x).value),
    ("major", True, 1): _semver_part("major"),
    ("minor", True, 1): _semver_part("minor"),
    ("patch", True, 1): _semver_part("patch"),
}
for _op in ("_+_", "_-_", "_*_", "_/_", "_%_"):
    FUNCTIONS[(_op, False, 2)] = _arith(_op)


def _eq_cost(x: Any, y: Any) -> int:

    if isinstance(x, (CelQuantity, CelSemver)):
        return 1
    return _ceil(min(_size(x), _size(y)) * 0.1)


def _cmp_cost(x: Any, y: Any) -> int:
    if type(x) in (str, bytes) and type(y) is type(x):
        return _ceil(min(len(x), len(y)) * 0.1)
    return 1


def _add_cost(x: Any, y: Any) -> int:
    if type(x) in (str, bytes) and type(y) is type(x):
        return _ceil((len(x) + len(y)) * 0.1)
    return 1


def _in_cost(x: Any, c: Any) -> int:
    return len(c) if isinstance(c, list) else 1


def _string_cost(s: Any) -> int:
    return _ceil(_size(s) * 0.1)


def _prefix_cost(s: Any, _t: Any) -> int:
    return _ceil(_size(s) * 0.1)


def _contains_cost(s: Any, t: Any) -> int:
    return _ceil(_size(s) * 0.1) * _ceil(_size(t) * 0.1)


def _matches_cost(s: Any, r: Any) -> int:
    return _ceil((1 + _size(s)) * 0.1) * _ceil(_size(r) * 0.25)


_COSTS: dict[tuple[str, bool], Callable[..., int]] = {
    ("_==_", False): _eq_cost, ("_!=_", False): _eq_cost,
    ("_<_", False): _cmp_cost, ("_<=_", False): _cmp_cost,
    ("_>_", False): _cmp_cost, ("_>=_", False): _cmp_cost,
    ("_+_", False): _add_cost, ("@in", False): _in_cost,
    ("quantity", False): _string_cost, ("isQuantity", False): _string_cost,
    ("semver", False): _string_cost, ("isSemver", False): _string_cost,
    ("startsWith", True): _prefix_cost, ("endsWith", True): _prefix_cost,
    ("contains", True): _contains_cost, ("matches", True): _matches_cost,
    ("lowerAscii", True): _string_cost, ("upperAscii", True): _string_cost, ("trim", True): _string_cost,
    ("find", True): _matches_cost,
}


def call_cost(fn: str, member: bool) -> Callable[..., int] | None:
    """The runtime cost of one call from its argument values (target first), or None for 1."""
    return _COSTS.get((fn, member))


def describe(v: Any) -> str:
    """A value's CEL type name, for messages."""
    return _tname(v)
