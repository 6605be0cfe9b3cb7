"""The worst-case cost estimate of a DRA device selector, as the API server computes it before
it accepts a DeviceClass or ResourceClaim (cel-go's checker cost estimator with the Kubernetes
library's call costs and DRA's size estimator for the `device` variable).

Why it is ours: cel-python has no type checker and no estimator. This walks the tree of
scheduler_core.dra.cel_ast with the few static types the estimate depends on (which overload a
call may take, whether a select is on a map) and follows the estimator's rules: a comprehension
costs its range's size times (condition + step); a loop variable's size comes from its source
(an element of a list literal is as big as that literal's largest element, a key of
`device.attributes` as long as a domain), so nested loops over long literals grow as N^k and are
refused, as upstream refuses them. It also reports the errors the checker would: an undeclared
name, a result that is not bool. The sizes and cost ranges it computes with are in cel_sizes.py,
the static types in cel_types.py.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.dra.cel_ast import ACCU, Node
from scheduler_core.dra.cel_sizes import (
    DEVICE,
    ONE,
    U64,
    UNKNOWN,
    ZERO,
    device_size,
    range_add,
    range_by_factor,
    range_mul,
    range_union,
)
from scheduler_core.dra.cel_types import (
    CONVERSIONS,
    DEVICE_FIELDS,
    K8S_ONE,
    K8S_RESULT,
    NUMERIC,
    SCALARS,
    common_type,
    is_kind,
    literal_type,
    type_name,
)
from scheduler_core.dra.cel_walk import CelWalk

__all__ = ["CelCheckError", "estimate", "MAX_COST"]

# resource.k8s.io CELSelectorExpressionMaxCost
MAX_COST = 1_000_000
STRING_FACTOR = 0.1  # common.StringTraversalCostFactor
REGEX_FACTOR = 0.25  # common.RegexStringLengthCostFactor
LIST_CREATE, MAP_CREATE = 10, 30


class CelCheckError(Exception):
    """What the checker refuses (undeclared name, wrong result type), located."""

    def __init__(self, message: str, line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.line, self.column = line, column




class _Var:
    __slots__ = ("type", "path", "size", "entry")

    def __init__(self, t: Any, path: tuple | None, size: tuple | None, entry: tuple | None) -> None:
        self.type, self.path, self.size, self.entry = t, path, size, entry


class _Estimator(CelWalk):
    """One walk of the tree: per node its type, path, size and (for literals) entry size."""

    def __init__(self) -> None:
        self.scopes: dict[str, list[_Var]] = {}
        self.types: dict[int, Any] = {}
        self.paths: dict[int, tuple] = {}
        self.sizes: dict[int, tuple] = {}
        self.entries: dict[int, tuple] = {}  # id -> (container kind, key size, value size)

    # scopes
    def push(self, name: str, v: _Var) -> None:
        self.scopes.setdefault(name, []).append(v)

    def pop(self, name: str) -> None:
        self.scopes[name].pop()

    def peek(self, name: str) -> _Var | None:
        s = self.scopes.get(name)
        return s[-1] if s else None

    # per-node facts
    def type(self, n: Node) -> Any:
        return self.types.get(id(n), "dyn")

    def path(self, n: Node) -> tuple | None:
        if n.kind == "ident":
            v = self.peek(n.a)
            if v is not None:
                return v.path
        return self.paths.get(id(n))

    def size(self, n: Node) -> tuple | None:
        s = self.sizes.get(id(n))
        if s is not None:
            return s
        if n.kind == "lit":
            v = n.a
            if isinstance(v, str):
                return (len(v), len(v))
            if isinstance(v, bytes):
                return (len(v), len(v))
            return ONE
        if n.kind in ("list", "map"):
            return (len(n.a), len(n.a))
        path = self.path(n)
        if path and path[0] in (ACCU,):
            path = None
        s = device_size(path)
        if s is not None:
            self.sizes[id(n)] = s
            return s
        if self.type(n) in SCALARS:
            return ONE
        if n.kind == "ident":
            v = self.peek(n.a)
            if v is not None and v.size is not None:
                return v.size
        return None

    def size_or_unknown(self, n: Node) -> tuple:
        s = self.size(n)
        return s if s is not None else UNKNOWN

    def entry(self, n: Node) -> tuple | None:
        e = self.entries.get(id(n))
        if e is not None:
            return e
        if n.kind == "ident":
            v = self.peek(n.a)
            if v is not None:
                return v.entry
        return None

    # the walk
    def cost(self, n: Node) -> tuple:
        return self.walk(n)

    def unsupported(self, n: Node) -> Exception:
        return CelCheckError(f"unsupported expression ({n.kind})", n.line, n.column)

    def on_lit(self, n: Node) -> tuple:
        self.types[id(n)] = literal_type(n.a)
        return ZERO

    def on_and(self, n: Node) -> tuple:
        lhs, rhs = self.cost(n.a), self.cost(n.b)
        self.types[id(n)] = "bool"
        return (lhs[0], range_add(lhs, rhs)[1])

    on_or = on_and

    def on_cond(self, n: Node) -> tuple:
        c, t, f = self.cost(n.a), self.cost(n.b), self.cost(n.c)
        tt, ft = self.type(n.b), self.type(n.c)
        self.types[id(n)] = tt if tt == ft else "dyn"
        self.sizes[id(n)] = range_union(self.size_or_unknown(n.b), self.size_or_unknown(n.c))
        return range_add(c, range_union(t, f))

    def on_ident(self, n: Node) -> tuple:
        v = self.peek(n.a)
        if v is not None:
            self.types[id(n)] = v.type
        elif n.a == DEVICE:
            self.types[id(n)] = "device"
            self.paths[id(n)] = (DEVICE,)
        else:
            raise CelCheckError(f"undeclared reference to '{n.a}' (in container '')", n.line, n.column)
        return ONE

    def on_select(self, n: Node) -> tuple:
        operand_cost = self.cost(n.a)
        ot = self.type(n.a)
        if ot == "device":
            ft = DEVICE_FIELDS.get(n.b)
            if ft is None:
                raise CelCheckError(f"undefined field '{n.b}'", n.line, n.column)
        elif is_kind(ot, "map"):
            ft = ot[2]
        elif ot == "dyn":
            ft = "dyn"
        else:
            raise CelCheckError(f"type '{type_name(ot)}' does not support field selection", n.line, n.column)
        p = self.path(n.a)
        self.paths[id(n)] = (p or ()) + (n.b,)
        if n.c:  # has(): presence tests are free in Kubernetes' environment
            self.types[id(n)] = "bool"
            return operand_cost
        self.types[id(n)] = ft
        if is_kind(ot, "map", "device"):
            return range_add(operand_cost, ONE)
        return operand_cost

    def on_index(self, n: Node) -> tuple:
        c = range_add(self.cost(n.a), self.cost(n.b))
        ot = self.type(n.a)
        p = self.path(n.a) or ()
        if is_kind(ot, "list"):
            self.types[id(n)] = ot[1]
            suffix = "@items"
        elif is_kind(ot, "map"):
            self.types[id(n)] = ot[2]
            suffix = "@values"
        elif ot == "dyn":
            self.types[id(n)] = "dyn"
            suffix = "@values"
        else:
            raise CelCheckError(f"found no matching overload for '_[_]' applied to "
                                f"'({type_name(ot)}, {type_name(self.type(n.b))})'", n.line, n.column)
        e = self.entry(n.a)
        self.paths[id(n)] = p + (suffix,)
        size = e[2] if e is not None else self.size(n)
        if size is not None:
            self.sizes[id(n)] = size
        return range_add(c, ONE)

    def on_list(self, n: Node) -> tuple:
        total = ZERO
        item = (U64, 0) if n.a else (0, 0)
        for x in n.a:
            total = range_add(total, self.cost(x))
            item = range_union(item, self.size_or_unknown(x))
        self.types[id(n)] = ("list", common_type([self.type(x) for x in n.a]))
        self.entries[id(n)] = ("list", ONE, item)
        return range_add(total, (LIST_CREATE, LIST_CREATE))

    def on_map(self, n: Node) -> tuple:
        total = ZERO
        ks = vs = (U64, 0) if n.a else (0, 0)
        for k, v in n.a:
            total = range_add(range_add(total, self.cost(k)), self.cost(v))
            ks = range_union(ks, self.size_or_unknown(k))
            vs = range_union(vs, self.size_or_unknown(v))
        self.types[id(n)] = ("map", common_type([self.type(k) for k, _ in n.a]),
                             common_type([self.type(v) for _, v in n.a]))
        self.entries[id(n)] = ("map", ks, vs)
        return range_add(total, (MAP_CREATE, MAP_CREATE))

    def _iter_var(self, name: str, rng: Node) -> None:
        e = self.entry(rng)
        rt = self.type(rng)
        kind = e[0] if e is not None else ("list" if is_kind(rt, "list") else "map")
        if kind == "list":
            size, sub = (e[2] if e is not None else None), "@items"
            vt = rt[1] if is_kind(rt, "list") else "dyn"
        else:
            size, sub = (e[1] if e is not None else None), "@keys"
            vt = rt[1] if is_kind(rt, "map") else "dyn"
        self.push(name, _Var(vt, (self.path(rng) or ()) + (sub,), size, None))

    def on_comp(self, n: Node) -> tuple:
        macro, var, rng, args = n.a, n.b, n.c, n.d
        total = self.cost(rng)
        rt = self.type(rng)
        if not is_kind(rt, "list", "map", "dyn"):
            raise CelCheckError(f"expression of type '{type_name(rt)}' cannot be range of a comprehension "
                                "(must be list, map, or dynamic)", rng.line, rng.column)
        # accumulator init, loop condition, step and result, as the macro expands
        if macro in ("all", "exists"):
            init_t, init_cost, init_size = "bool", ZERO, ONE
        elif macro == "exists_one":
            init_t, init_cost, init_size = "int", ZERO, ONE
        else:
            init_t, init_cost, init_size = ("list", "dyn"), (LIST_CREATE, LIST_CREATE), ZERO
        total = range_add(total, init_cost)
        self.push(ACCU, _Var(init_t, None, init_size, ("list", ONE, (U64, 0)) if macro in ("map", "filter") else None))
        self._iter_var(var, rng)
        body = [self.cost(a) for a in args]
        body_types = [self.type(a) for a in args]
        if macro == "all":
            loop = (2, 2)  # @not_strictly_false(accu)
            step = (1, 1 + body[0][1])  # accu && p
        elif macro == "exists":
            loop = (3, 3)  # @not_strictly_false(!accu)
            step = (1, 1 + body[0][1])
        elif macro == "exists_one":
            loop = ZERO
            step = range_add(body[0], (1, 2))  # p ? accu + 1 : accu
        elif macro == "map" and len(args) == 1:
            loop = ZERO
            step = range_add((1, 1), range_add((LIST_CREATE, LIST_CREATE), body[0]))
            step = range_add(step, ONE)  # accu + [f]
        elif macro == "map":
            loop = ZERO
            step = range_add(body[0], (1, 1 + LIST_CREATE + body[1][1] + 1))
        else:  # filter: p ? accu + [x] : accu
            loop = ZERO
            step = range_add(body[0], (1, 1 + LIST_CREATE + 1 + 1))
        self.pop(var)
        if macro in ("all", "exists"):
            result = ONE
            self.types[id(n)] = "bool"
        elif macro == "exists_one":
            result = range_add(ONE, ONE)  # accu == 1
            self.types[id(n)] = "bool"
        else:
            result = ONE
            self.types[id(n)] = ("list", body_types[-1] if macro == "map" else
                                 (rt[1] if is_kind(rt, "list", "map") else "dyn"))
        self.pop(ACCU)
        total = range_add(total, result)
        count = self.size_or_unknown(rng)
        total = range_add(total, range_mul(count, range_add(step, loop)))
        if macro in ("all", "exists", "exists_one"):
            self.sizes[id(n)] = ONE
        else:
            self.sizes[id(n)] = count
        return total

    def on_bind(self, n: Node) -> tuple:
        var, init, body = n.a, n.b, n.c
        total = range_add((LIST_CREATE, LIST_CREATE), self.cost(init))  # the empty range literal
        self.push(var, _Var(self.type(init), self.path(init), self.size(init), self.entry(init)))
        total = range_add(total, self.cost(body))
        self.pop(var)
        self.types[id(n)] = self.type(body)
        s = self.size(body)
        if s is not None:
            self.sizes[id(n)] = s
        e = self.entry(body)
        if e is not None:
            self.entries[id(n)] = e
        return total

    def on_call(self, n: Node) -> tuple:
        fn, target, args = n.a, n.b, n.c
        arg_costs = [self.cost(a) for a in args]
        arg_sum = ZERO
        for c in arg_costs:
            arg_sum = range_add(arg_sum, c)
        total = ZERO
        tt = None
        if target is not None:
            total = self.cost(target)
            tt = self.type(target)
        at = [self.type(a) for a in args]
        if fn == "dyn" and target is None and len(args) == 1:
            self.types[id(n)] = "dyn"
            s = self.size(args[0])
            if s is not None:
                self.sizes[id(n)] = s
            return range_add(ONE, arg_costs[0])
        self.types[id(n)] = self._result_type(n, fn, tt, at)
        return range_add(total, self._fn_cost(n, fn, target, args, at, arg_sum))

    def _result_type(self, n: Node, fn: str, tt: Any, at: list) -> Any:
        if fn in ("_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_", "@in", "!_"):
            return "bool"
        if fn in ("_+_", "_-_", "_*_", "_/_", "_%_", "-_"):
            a = at[0]
            b = at[1] if len(at) > 1 else a
            if a == b and not (a == "dyn"):
                return a
            if is_kind(a, "list") or is_kind(b, "list"):
                return ("list", "dyn")
            return a if a != "dyn" else b
        if fn in CONVERSIONS and tt is None:
            return CONVERSIONS[fn]
        if fn in ("add", "sub"):
            return "quantity"
        if fn in K8S_RESULT:
            return K8S_RESULT[fn]
        if fn in ("lowerAscii", "upperAscii", "trim", "find") and tt is not None:
            return "string"
        raise CelCheckError(f"undeclared reference to '{fn}' (in container '')", n.line, n.column)

    def _check_operands(self, n: Node, fn: str, at: list) -> None:
        """The checker's overload resolution for the comparison operators, where it refuses
        two known types that no overload takes (`device.driver > 1`)."""
        a, b = at
        if a == "dyn" or b == "dyn" or a == b or (a in NUMERIC and b in NUMERIC):
            return
        if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] and fn in ("_==_", "_!=_"):
            return
        if a == "null" or b == "null":
            if fn in ("_==_", "_!=_"):
                return
        raise CelCheckError(f"found no matching overload for '{fn}' applied to '({type_name(a)}, {type_name(b)})'",
                            n.line, n.column)

    def _fn_cost(self, n: Node, fn: str, target: Node | None, args: list[Node], at: list, arg_sum: tuple) -> tuple:
        if fn in ("quantity", "isQuantity", "semver", "isSemver") and args:
            return range_add(range_by_factor(self.size_or_unknown(args[0]), STRING_FACTOR), arg_sum)
        if fn in K8S_ONE:
            return range_add(ONE, arg_sum)
        if fn in ("_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_"):
            self._check_operands(n, fn, at)
        if fn in ("_==_", "_!=_"):
            a, b = at
            if fn == "_==_" and a == b and a in ("quantity", "semver"):
                return range_add(ONE, arg_sum)
            la, lb = self.size_or_unknown(args[0]), self.size_or_unknown(args[1])
            smallest = min(la[1], lb[1])
            return range_add(range_by_factor((1 if smallest > 0 else 0, smallest), STRING_FACTOR), arg_sum)
        if fn in ("_<_", "_<=_", "_>_", "_>=_"):
            a, b = at
            if all(is_kind(t, "string", "dyn") for t in at) or all(is_kind(t, "bytes", "dyn") for t in at):
                la, lb = self.size_or_unknown(args[0]), self.size_or_unknown(args[1])
                smallest = min(la[1], lb[1])
                c = range_by_factor((1 if smallest > 0 else 0, smallest), STRING_FACTOR)
                if not (is_kind(a, "string", "bytes") or is_kind(b, "string", "bytes")):
                    c = range_union(c, ONE)  # a dyn pair may also take a numeric overload
                return range_add(c, arg_sum)
            return range_add(ONE, arg_sum)
        if fn == "_+_":
            a, b = at
            la, lb = self.size_or_unknown(args[0]), self.size_or_unknown(args[1])
            rs = range_add(la, lb)
            options = []
            if all(is_kind(t, "string", "dyn") for t in at) or all(is_kind(t, "bytes", "dyn") for t in at):
                options.append(range_by_factor(rs, STRING_FACTOR))
            if all(is_kind(t, "list", "dyn") for t in at):
                options.append(ONE)
                ea, eb = self.entry(args[0]), self.entry(args[1])
                if ea is not None and eb is not None:
                    self.entries[id(n)] = (ea[0], range_union(ea[1], eb[1]), range_union(ea[2], eb[2]))
            if not options or (a == "dyn" and b == "dyn"):
                options.append(ONE)
            if is_kind(a, "string", "bytes", "list") or is_kind(b, "string", "bytes", "list") or a == b == "dyn":
                self.sizes[id(n)] = rs
            c = options[0]
            for o in options[1:]:
                c = range_union(c, o)
            return range_add(c, arg_sum)
        if fn == "@in":
            rt = at[1]
            options = []
            if is_kind(rt, "list", "dyn"):
                options.append(self.size_or_unknown(args[1]))
            if is_kind(rt, "map", "dyn"):
                options.append(ONE)
            if not options:
                raise CelCheckError(f"found no matching overload for '@in' applied to "
                                    f"'({type_name(at[0])}, {type_name(rt)})'", n.line, n.column)
            c = options[0]
            for o in options[1:]:
                c = range_union(c, o)
            return range_add(c, arg_sum)
        if target is not None and fn in ("lowerAscii", "upperAscii", "trim") and not args:
            size = self.size_or_unknown(target)
            self.sizes[id(n)] = size
            return range_add(range_by_factor(size, STRING_FACTOR), arg_sum)
        if target is not None and fn == "find" and len(args) == 1:
            size = self.size_or_unknown(target)
            s = range_by_factor(range_add(size, ONE), STRING_FACTOR)
            r = range_by_factor(self.size_or_unknown(args[0]), REGEX_FACTOR)
            self.sizes[id(n)] = (0, size[1])
            return range_add(range_mul(s, r), arg_sum)
        if target is not None and fn in ("startsWith", "endsWith") and len(args) == 1:
            return range_add(range_by_factor(self.size_or_unknown(args[0]), STRING_FACTOR), arg_sum)
        if target is not None and fn == "matches" and len(args) == 1:
            s = range_by_factor(range_add(self.size_or_unknown(target), ONE), STRING_FACTOR)
            r = range_by_factor(self.size_or_unknown(args[0]), REGEX_FACTOR)
            return range_add(range_mul(s, r), arg_sum)
        if target is not None and fn == "contains" and len(args) == 1:
            s = range_by_factor(self.size_or_unknown(target), STRING_FACTOR)
            sub = range_by_factor(self.size_or_unknown(args[0]), STRING_FACTOR)
            return range_add(range_mul(s, sub), arg_sum)
        return range_add(ONE, arg_sum)


def estimate(tree: Node) -> int:
    """The worst-case cost of evaluating `tree` (cel-go's estimate's Max); CelCheckError if the
    checker would refuse the expression."""
    est = _Estimator()
    cost = est.cost(tree)
    out = est.type(tree)
    if out not in ("bool", "dyn"):
        raise CelCheckError(f"must evaluate to bool or the unknown type, not {type_name(out)}", 0, 0)
    return cost[1]
