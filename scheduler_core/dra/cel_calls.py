"""A CEL call (an operator or a function) compiled into a closure that counts cel-go's cost.

Why apart from the compiler (cel_program): a call is where most of a selector's time and cost
go, and its closure has its own shortcuts, each giving the same result and the same count as
the general path: `x in [constants]` becomes a membership test, a conversion of a constant is
folded at compile time, and comparisons and + - * on two ints or two doubles skip the overload
lookup (the hot path of arithmetic selectors). Everything else evaluates every argument, counts
the call (1, or its size-based cost), then raises the first error argument or calls the
implementation (cel_functions.FUNCTIONS).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scheduler_core.dra.cel_functions import FUNCTIONS, call_cost
from scheduler_core.dra.cel_values import CelRuntimeError, cel_eq

__all__ = ["Fn", "compile_call", "const", "is_const"]

# A compiled node: called with the activation (a[0] the running cost), returns its value.
Fn = Callable[[list], Any]


def is_const(fn: Any) -> bool:
    """Whether a compiled node is a constant (its value is folded in at compile time)."""
    return hasattr(fn, "const")


def const(v: Any) -> Fn:
    """The closure of a constant: no cost, and its value kept on it as `.const`."""
    def f(a: list) -> Any:
        return v
    f.const = v  # type: ignore[attr-defined]
    return f


def compile_call(fn: str, member: bool, fns: list[Fn]) -> Fn:
    """The closure of call `fn` (a member call when `member`: the target is fns[0]) on the
    compiled arguments `fns`."""
    impl = FUNCTIONS.get((fn, member, len(fns)))
    if impl is None:
        raise CelRuntimeError(f"undeclared reference to '{fn}'")
    # `x in [constants]` becomes a set lookup and conversions of constants are folded
    if fn == "@in" and is_const(fns[1]) and isinstance(fns[1].const, list) and all(  # type: ignore[attr-defined]
            isinstance(v, (bool, int, float, str)) for v in fns[1].const):  # type: ignore[attr-defined]
        lhs, values = fns[0], fns[1].const  # type: ignore[attr-defined]

        def member_of(a: list) -> Any:
            x = lhs(a)
            return any(cel_eq(x, v) for v in values)
        return member_of
    if fn in ("int", "uint", "double", "string", "bool", "bytes") and not member and is_const(fns[0]):
        a0: list = [0]
        return const(impl(a0, fns[0].const))  # type: ignore[attr-defined]
    coster = call_cost(fn, member)
    fast = _FAST.get(fn) if len(fns) == 2 else None
    if fast is not None:
        return _fast_binary(fast, fns[0], fns[1], impl, coster)
    if len(fns) == 1:
        f0 = fns[0]

        def call1(a: list) -> Any:
            try:
                x = f0(a)
            except CelRuntimeError:
                a[0] += 1  # the call is counted with its error argument
                raise
            a[0] += coster(x) if coster is not None else 1
            return impl(a, x)
        return call1

    def calln(a: list) -> Any:
        # every argument is evaluated, and the call counted, before an error argument is
        # the result (cel-go's calls evaluate all their arguments first)
        vals = []
        for f in fns:
            try:
                vals.append(f(a))
            except CelRuntimeError as exc:
                vals.append(exc)
        a[0] += coster(*vals) if coster is not None else 1
        for v in vals:
            if isinstance(v, CelRuntimeError):
                raise v
        return impl(a, *vals)
    return calln




_I64_MIN, _I64_MAX = -(2 ** 63), 2 ** 63 - 1
_FAST: dict[str, Callable[[Any, Any], Any]] = {
    "_<_": lambda x, y: x < y, "_<=_": lambda x, y: x <= y,
    "_>_": lambda x, y: x > y, "_>=_": lambda x, y: x >= y,
    "_==_": lambda x, y: x == y, "_!=_": lambda x, y: x != y,
    "_+_": lambda x, y: x + y, "_-_": lambda x, y: x - y, "_*_": lambda x, y: x * y,
}


def _fast_binary(op: Callable[[Any, Any], Any], f0: Fn, f1: Fn, impl: Callable[..., Any],
                 coster: Callable[..., int] | None) -> Fn:
    """Comparisons and + - * on two ints (or two doubles) cost 1 and need no overload
    lookup: the hot path of arithmetic selectors. Anything else takes the general call."""
    arith = op in (_FAST["_+_"], _FAST["_-_"], _FAST["_*_"])

    def general(a: list, x: Any, y: Any) -> Any:
        a[0] += coster(x, y) if coster is not None else 1
        if isinstance(x, CelRuntimeError):
            raise x
        if isinstance(y, CelRuntimeError):
            raise y
        return impl(a, x, y)

    if is_const(f1):
        yc = f1.const  # type: ignore[attr-defined]
        ty = type(yc)
        if ty is int or ty is float:
            def const_rhs(a: list) -> Any:
                try:
                    x = f0(a)
                except CelRuntimeError as exc:
                    x = exc
                if type(x) is ty:
                    a[0] += 1
                    r = op(x, yc)
                    if arith and ty is int and not _I64_MIN <= r <= _I64_MAX:
                        raise CelRuntimeError("integer overflow")
                    return r
                return general(a, x, yc)
            return const_rhs

    def binary(a: list) -> Any:
        try:
            x = f0(a)
        except CelRuntimeError as exc:
            x = exc
        try:
            y = f1(a)
        except CelRuntimeError as exc:
            y = exc
        tx = type(x)
        if tx is type(y) and (tx is int or tx is float):
            a[0] += 1
            r = op(x, y)
            if arith and tx is int and not _I64_MIN <= r <= _I64_MAX:
                raise CelRuntimeError("integer overflow")
            return r
        return general(a, x, y)
    return binary
