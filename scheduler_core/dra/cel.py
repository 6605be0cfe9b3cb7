"""CEL device selectors (upstream k8s.io/dynamic-resource-allocation/cel) with the limits the
API server and the scheduler put on them.

The environment is the one Kubernetes gives DeviceClass and ResourceClaim selectors: one
variable `device` with `driver`, `attributes` (domain -> attribute id -> string, int, bool or
semver; an unknown domain reads as an empty map), `capacity` (domain -> capacity id -> quantity)
and `allowMultipleAllocations`, plus the Kubernetes CEL library functions such selectors use
(scheduler_core.dra.cel_functions).

An expression is parsed (cel_ast), checked and costed as the API server does (cel_cost: longer
than 10 KiB, or an estimate over resource.k8s.io's 1,000,000, is refused),
then compiled into closures that count cel-go's runtime cost (cel_program: an evaluation whose
actual cost passes the same budget stops with cel-go's error). Compiled selectors are shared by
expression text in a cache bounded by bytes.
"""

from __future__ import annotations

import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from scheduler_core.api.resource_types import Device, qualified
from scheduler_core.dra.cel_ast import CelSyntaxError, parse_with_depth
from scheduler_core.dra.cel_cost import MAX_COST, CelCheckError, estimate
from scheduler_core.dra.cel_program import compile_tree
from scheduler_core.dra.cel_values import (
    COST_LIMIT_MESSAGE,
    CelQuantity,
    CelRuntimeError,
    CelSemver,
    CostLimitExceeded,
    DefaultEmptyMap,
)

__all__ = ["CompiledSelector", "compile_selector", "device_activation", "CelQuantity", "CelSemver"]


# resource.k8s.io's limits on one selector: its length, then the worst-case cost estimated when
# it is validated (refused as "too complex, exceeds cost limit"), then the actual cost counted
# while it is evaluated (which stops it with cel-go's cost error).
MAX_EXPRESSION_LENGTH = 10 * 1024
MAX_ESTIMATED_COST = MAX_COST
RUNTIME_COST_LIMIT = MAX_COST
TOO_COMPLEX = "too complex, exceeds cost limit"


class CompiledSelector:
    """One compiled expression: `error` (why it is refused, with `error_kind` "invalid",
    "forbidden" or "too_long" as the API server classes it) or a program to run."""

    __slots__ = ("expression", "error", "error_kind", "max_cost", "cost_limit", "nbytes", "_program", "_slots",
                 "_deep")

    def __init__(self, expression: str, cost_limit: int = RUNTIME_COST_LIMIT) -> None:
        # cost_limit: the runtime budget (upstream's Options.CostLimit; the default is
        # resource.k8s.io's CELSelectorExpressionMaxCost)
        self.expression = expression
        self.cost_limit = cost_limit
        self.error: str | None = None
        self.error_kind: str | None = None
        self.max_cost = 0
        self._program: Any = None
        self._slots = 2
        self._deep = False
        self.nbytes = 200 + len(expression)
        if len(expression.encode()) > MAX_EXPRESSION_LENGTH:
            self.error_kind = "too_long"
            self.error = f"may not be more than {MAX_EXPRESSION_LENGTH} bytes"
            return
        if not expression.strip():
            self.error_kind, self.error = "invalid", "expression is empty"
            return
        try:
            with _deep_recursion():
                tree, depth = parse_with_depth(expression)
                self.max_cost = estimate(tree)
                if self.max_cost <= MAX_ESTIMATED_COST:
                    self._program, self._slots, nodes = compile_tree(tree, self.cost_limit)
        except RecursionError:
            self.error_kind, self.error = "invalid", "expression recursion limit exceeded"
            return
        except CelSyntaxError as exc:
            self.error_kind = "invalid"
            self.error = _syntax_error(expression, str(exc), exc.line, exc.column)
            return
        except CelCheckError as exc:
            self.error_kind = "invalid"
            self.error = _located(expression, str(exc), exc.line, exc.column)
            return
        except CelRuntimeError as exc:
            self.error_kind, self.error = "invalid", str(exc)
            return
        if self.max_cost > MAX_ESTIMATED_COST:
            self.error_kind, self.error = "forbidden", TOO_COMPLEX
            return
        # a shallow tree's closures run within the default stack limit
        self._deep = depth > _SHALLOW
        # closures and their cells: ~0.4 KB a node (tracemalloc, bench/cel_selectors.py)
        self.nbytes += nodes * _BYTES_PER_NODE

    def evaluate(self, activation: dict[str, Any]) -> tuple[Any, int, str | None]:
        """(result, actual cost, runtime error text)."""
        a: list[Any] = [None] * self._slots
        a[0], a[1] = 0, activation["device"]
        try:
            if self._deep:
                with _deep_recursion():
                    out = self._program(a)
            else:
                out = self._program(a)
        except CostLimitExceeded as exc:
            return None, a[0], str(exc)
        except CelRuntimeError as exc:
            if a[0] > self.cost_limit:
                return None, a[0], COST_LIMIT_MESSAGE
            return None, a[0], str(exc)
        except RecursionError:
            return None, a[0], "expression recursion limit exceeded"
        if a[0] > self.cost_limit:
            return None, a[0], COST_LIMIT_MESSAGE
        return out, a[0], None

    def device_matches(self, activation: dict[str, Any]) -> tuple[bool, str | None]:
        """(matches, runtime error text): the expression must yield a bool."""
        out, _, err = self.evaluate(activation)
        if err is not None:
            return False, err
        if type(out) is not bool:
            return False, f"CEL result of type {_type_name(out)} could not be converted to bool"
        return out, None


_BYTES_PER_NODE = 450
_RECURSION = 20_000
_SHALLOW = 40


_DEEP = threading.Lock()
_deep_users = 0
_shallow_limit = 0


@contextmanager
def _deep_recursion() -> Iterator[None]:
    """Room for 250 nested levels of every grammar rule (about a dozen Python frames each
    while parsing); the parser bounds the tree's depth, so this stays bounded. Raised for the
    first user and restored by the last, so threads do not undo each other's room."""
    global _deep_users, _shallow_limit
    with _DEEP:
        if _deep_users == 0:
            _shallow_limit = sys.getrecursionlimit()
            if _shallow_limit < _RECURSION:
                sys.setrecursionlimit(_RECURSION)
        _deep_users += 1
    try:
        yield
    finally:
        with _DEEP:
            _deep_users -= 1
            if _deep_users == 0 and _shallow_limit < _RECURSION:
                sys.setrecursionlimit(_shallow_limit)


def _type_name(v: Any) -> str:
    from scheduler_core.dra.cel_functions import describe

    return describe(v)


def _syntax_error(expression: str, message: str, line: int, column: int) -> str:
    if not line:
        return f"Syntax error: {message}"
    lines = expression.splitlines() or [""]
    near = lines[line - 1][max(column - 1, 0):][:20] if 0 < line <= len(lines) else ""
    return (f"Syntax error at line {line}, column {column}: {message}"
            + (f' (near "{near}")' if near.strip() else ""))


def _located(expression: str, message: str, line: int, column: int) -> str:
    """cel-go's issue format: `ERROR: <input>:line:column: message` and the line with a caret."""
    if not line:
        return message
    lines = expression.splitlines() or [""]
    src = lines[line - 1] if 0 < line <= len(lines) else ""
    return f"ERROR: <input>:{line}:{column}: {message} | {src[:80]} | {' ' * max(column - 1, 0)}^"


class _SelectorCache:
    """Compiled selectors shared by expression text, least recently used evicted once their
    estimated size passes the budget (PLAYGROUND_CEL_CACHE_BYTES, default 64 MiB)."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.used = 0
        self.entries: OrderedDict[str, CompiledSelector] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, expression: str) -> CompiledSelector:
        with self.lock:
            found = self.entries.get(expression)
            if found is not None:
                self.entries.move_to_end(expression)
                return found
        compiled = CompiledSelector(expression)
        with self.lock:
            if expression not in self.entries:
                self.entries[expression] = compiled
                self.used += compiled.nbytes
                while self.used > self.budget and len(self.entries) > 1:
                    _, old = self.entries.popitem(last=False)
                    self.used -= old.nbytes
            return self.entries[expression]

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()
            self.used = 0


def _cache_budget() -> int:
    raw = os.environ.get("PLAYGROUND_CEL_CACHE_BYTES", "")
    try:
        return max(int(raw), 0) if raw.strip() else 64 * 1024 * 1024
    except ValueError:
        return 64 * 1024 * 1024


CACHE = _SelectorCache(_cache_budget())


def compile_selector(expression: str) -> CompiledSelector:
    """The compiled selector for `expression`, shared while it stays in the cache."""
    return CACHE.get(expression)


def _attr_value(a: Any) -> Any:
    if a.kind in ("string", "int", "bool"):
        return a.value
    try:
        return CelSemver(str(a.value))
    except ValueError:
        return str(a.value)


def device_activation(driver: str, device: Device, allow_multiple_allocations: bool = False) -> dict[str, Any]:
    """The `device` variable for one device of a slice published by `driver`."""
    attrs: DefaultEmptyMap = DefaultEmptyMap()
    for name, a in device.attributes.items():
        domain, ident = qualified(name, driver)
        attrs.setdefault(domain, {})[ident] = _attr_value(a)
    caps: DefaultEmptyMap = DefaultEmptyMap()
    for name, q in device.capacity.items():
        domain, ident = qualified(name, driver)
        caps.setdefault(domain, {})[ident] = CelQuantity(q)
    return {"device": {
        "driver": driver,
        "attributes": attrs,
        "capacity": caps,
        "allowMultipleAllocations": bool(allow_multiple_allocations),
    }}
