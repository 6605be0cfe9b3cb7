"""CEL device selectors (upstream k8s.io/dynamic-resource-allocation/cel), on the `celpy`
evaluator (the cel-python package) rather than a parser of our own.

The environment is the one Kubernetes gives DeviceClass and ResourceClaim selectors: one
variable `device` with `driver`, `attributes` (domain -> attribute id -> string, int, bool or
semver) and `capacity` (domain -> capacity id -> quantity), plus the Kubernetes CEL library
functions such selectors use: `quantity("1Gi")`, `isQuantity`, and on quantities `compareTo`,
`isGreaterThan`, `isLessThan`, `add`, `sub`, `asInteger`, `asApproximateFloat`, `sign`,
`isInteger`; `semver("1.2.3")`, `isSemver` and on versions `compareTo`, `isGreaterThan`,
`isLessThan`, `major`, `minor`, `patch`.

Each expression is compiled once (`compile_selector`, cached for the process); a compile error
is reported with the parser's message so the loader can refuse the document that holds it.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from typing import Any

from scheduler_core.api.quantity import QuantityError, parse_quantity
from scheduler_core.api.resource_types import Device, qualified

__all__ = ["CompiledSelector", "compile_selector", "device_activation", "CelQuantity", "CelSemver"]


class _Lazy:
    """celpy (and its Lark grammar: a third of a second to build) loaded on first use, so a
    scenario without device selectors never pays for it."""

    __slots__ = ("celpy", "celtypes", "eval_error", "env", "functions")

    def __init__(self) -> None:
        self.env: Any = None

    def load(self) -> _Lazy:
        if self.env is None:
            import celpy
            from celpy import celtypes
            from celpy.evaluation import CELEvalError

            self.celpy, self.celtypes, self.eval_error = celpy, celtypes, CELEvalError
            self.functions = _functions(celtypes)
            self.env = celpy.Environment()
        return self


_CEL = _Lazy()


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


class _CelFunctionError(Exception):
    pass


def _quantity(s: Any) -> CelQuantity:
    try:
        return CelQuantity(parse_quantity(str(s)))
    except QuantityError as exc:
        raise _CelFunctionError(f"invalid quantity {str(s)!r}: {exc}") from None


def _is_quantity(s: Any) -> Any:
    try:
        parse_quantity(str(s))
    except QuantityError:
        return _CEL.celtypes.BoolType(False)
    return _CEL.celtypes.BoolType(True)


def _semver(s: Any) -> CelSemver:
    try:
        return CelSemver(str(s))
    except ValueError as exc:
        raise _CelFunctionError(str(exc)) from None


def _is_semver(s: Any) -> Any:
    return _CEL.celtypes.BoolType(_SEMVER.match(str(s)) is not None)


def _cmp(a: Any, b: Any) -> int:
    if isinstance(a, CelQuantity) and isinstance(b, CelQuantity):
        return (a.value > b.value) - (a.value < b.value)
    if isinstance(a, CelSemver) and isinstance(b, CelSemver):
        return a.compare(b)
    raise _CelFunctionError(f"no such overload: {type(a).__name__}.compareTo({type(b).__name__})")


def _quantity_arg(a: Any, name: str) -> CelQuantity:
    if not isinstance(a, CelQuantity):
        raise _CelFunctionError(f"no such overload: {name} on {type(a).__name__}")
    return a


def _add(a: Any, b: Any) -> CelQuantity:
    q = _quantity_arg(a, "add")
    return CelQuantity(q.value + (b.value if isinstance(b, CelQuantity) else Fraction(int(b))))


def _sub(a: Any, b: Any) -> CelQuantity:
    q = _quantity_arg(a, "sub")
    return CelQuantity(q.value - (b.value if isinstance(b, CelQuantity) else Fraction(int(b))))


def _as_integer(a: Any) -> Any:
    q = _quantity_arg(a, "asInteger")
    if q.value.denominator != 1 or not -(2 ** 63) <= q.value < 2 ** 63:
        raise _CelFunctionError("cannot convert value to integer")
    return _CEL.celtypes.IntType(int(q.value))


def _semver_part(name: str) -> Any:
    def fn(a: Any) -> Any:
        if not isinstance(a, CelSemver):
            raise _CelFunctionError(f"no such overload: {name} on {type(a).__name__}")
        return _CEL.celtypes.IntType(getattr(a, name))
    return fn


def _sign(a: Any) -> Any:
    q = _quantity_arg(a, "sign")
    return _CEL.celtypes.IntType((q.value > 0) - (q.value < 0))


def _functions(celtypes: Any) -> dict[str, Any]:
    return {
        "quantity": _quantity,
        "isQuantity": _is_quantity,
        "semver": _semver,
        "isSemver": _is_semver,
        "compareTo": lambda a, b: celtypes.IntType(_cmp(a, b)),
        "isGreaterThan": lambda a, b: celtypes.BoolType(_cmp(a, b) > 0),
        "isLessThan": lambda a, b: celtypes.BoolType(_cmp(a, b) < 0),
        "add": _add,
        "sub": _sub,
        "asInteger": _as_integer,
        "asApproximateFloat": lambda a: celtypes.DoubleType(float(_quantity_arg(a, "asApproximateFloat").value)),
        "isInteger": lambda a: celtypes.BoolType(_quantity_arg(a, "isInteger").value.denominator == 1),
        "sign": _sign,
        "major": _semver_part("major"),
        "minor": _semver_part("minor"),
        "patch": _semver_part("patch"),
    }


# Upstream bounds a selector's length before compiling it (validation's CEL cost limits).
MAX_EXPRESSION_LENGTH = 10 * 1024
# And its cost: upstream's budget is 1,000,000 units of the compiled Go program. cel-python walks
# its parse tree in Python, so the playground bounds the estimated number of tree nodes visited
# by one evaluation instead (a typical selector visits ~100), keeping one evaluation within tens
# of milliseconds on a shared server.
MAX_ESTIMATED_COST = 100_000
_MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})
# A comprehension over something that is not a list literal (attributes, capacity: at most 32
# entries per device; a map literal) is costed as if it had this many elements.
_UNKNOWN_SIZE = 32


def _estimated_cost(tree: Any) -> int:
    """Tree nodes one evaluation may visit, comprehension bodies counted once per element."""
    children = getattr(tree, "children", None)
    if children is None:
        return 1
    if getattr(tree, "data", None) == "member_dot_arg" and len(children) >= 2 and \
            str(children[1]) in _MACROS:
        target = children[0]
        args = children[2:]
        size = _literal_size(target)
        return 1 + _estimated_cost(target) + size * sum(_estimated_cost(a) for a in args)
    return 1 + sum(_estimated_cost(c) for c in children)


def _literal_size(tree: Any) -> int:
    """Elements of a list literal at the top of `tree` (through the grammar's single-child
    levels), else _UNKNOWN_SIZE."""
    node = tree
    while getattr(node, "children", None):
        if getattr(node, "data", None) == "list_lit":
            exprs = node.children[0] if node.children else None
            return max(1, len(getattr(exprs, "children", []) or []))
        if len(node.children) != 1:
            break
        node = node.children[0]
    return _UNKNOWN_SIZE


class CompiledSelector:
    """One compiled expression: `error` (the compile error text) or a program to run."""

    __slots__ = ("expression", "error", "_program")

    def __init__(self, expression: str) -> None:
        self.expression = expression
        self.error: str | None = None
        self._program: Any = None
        if len(expression) > MAX_EXPRESSION_LENGTH:
            self.error = f"expression too long ({len(expression)} characters, at most {MAX_EXPRESSION_LENGTH})"
            return
        if not expression.strip():
            self.error = "expression is empty"
            return
        cel = _CEL.load()
        try:
            ast = cel.env.compile(expression)
            cost = _estimated_cost(ast)
            if cost > MAX_ESTIMATED_COST:
                self.error = (f"estimated cost {cost:,} exceeds the playground's limit of "
                              f"{MAX_ESTIMATED_COST:,} (nested comprehensions over long lists?)")
                return
            self._program = cel.env.program(ast, functions=cel.functions)
        except Exception as exc:  # celpy's CELParseError, or a program it cannot build
            line, column = getattr(exc, "line", None), getattr(exc, "column", None)
            if line is not None and column is not None:
                near = expression.splitlines()[line - 1][max(column - 1, 0):][:20] if expression else ""
                self.error = (f"Syntax error at line {line}, column {column}"
                              + (f' near "{near}"' if near else ": unexpected end of expression"))
            else:
                self.error = _one_line(str(exc)) or type(exc).__name__

    def device_matches(self, activation: dict[str, Any]) -> tuple[bool, str | None]:
        """(matches, runtime error text): the expression must yield a bool."""
        cel = _CEL.load()
        try:
            out = self._program.evaluate(activation)
        except cel.eval_error as exc:
            return False, _eval_error_text(exc)
        except _CelFunctionError as exc:
            return False, str(exc)
        except Exception as exc:  # a Python error inside the evaluator is a runtime error too
            return False, f"{type(exc).__name__}: {exc}"
        if isinstance(out, cel.eval_error):
            return False, _eval_error_text(out)
        if not isinstance(out, (bool, cel.celtypes.BoolType)):
            return False, "expression must evaluate to bool"
        return bool(out), None


def _one_line(text: str) -> str:
    """celpy's parse errors are the expression with a caret under the position: keep both."""
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip()]
    return " | ".join(lines)


def _eval_error_text(exc: Any) -> str:
    args = exc.args
    if len(args) >= 3 and args[0] == "no such key" and args[2]:
        return f"no such key: {args[2][0]}"
    if args:
        return str(args[0])
    return "evaluation error"


@lru_cache(maxsize=4096)
def compile_selector(expression: str) -> CompiledSelector:
    """The compiled selector for `expression`, compiled at most once per process."""
    return CompiledSelector(expression)


def _attr_value(a: Any) -> Any:
    celtypes = _CEL.load().celtypes
    if a.kind == "string":
        return celtypes.StringType(a.value)
    if a.kind == "int":
        return celtypes.IntType(a.value)
    if a.kind == "bool":
        return celtypes.BoolType(a.value)
    try:
        return CelSemver(str(a.value))
    except ValueError:
        return celtypes.StringType(str(a.value))


def device_activation(driver: str, device: Device, allow_multiple_allocations: bool = False) -> dict[str, Any]:
    """The `device` variable for one device of a slice published by `driver`."""
    celtypes = _CEL.load().celtypes
    attrs: dict[Any, Any] = {}
    for name, a in device.attributes.items():
        domain, ident = qualified(name, driver)
        attrs.setdefault(celtypes.StringType(domain), celtypes.MapType())[celtypes.StringType(ident)] = _attr_value(a)
    caps: dict[Any, Any] = {}
    for name, q in device.capacity.items():
        domain, ident = qualified(name, driver)
        caps.setdefault(celtypes.StringType(domain), celtypes.MapType())[celtypes.StringType(ident)] = CelQuantity(q)
    return {"device": celtypes.MapType({
        celtypes.StringType("driver"): celtypes.StringType(driver),
        celtypes.StringType("attributes"): celtypes.MapType(attrs),
        celtypes.StringType("capacity"): celtypes.MapType(caps),
        celtypes.StringType("allowMultipleAllocations"): celtypes.BoolType(allow_multiple_allocations),
    })}
