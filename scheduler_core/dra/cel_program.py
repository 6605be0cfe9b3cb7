"""A CEL tree (scheduler_core.dra.cel_ast) compiled into nested Python closures that count
cel-go's runtime cost as they go.

Why closures: cel-python walks its parse tree for every step (~50 µs per comprehension step), so
the costliest selector upstream's budget allows took ~15 s; a closure per node costs about a
microsecond per step. Why counting: upstream stops an evaluation whose *actual* cost passes
resource.k8s.io's CELSelectorExpressionMaxCost, and the count here is the one cel-go's cost
tracker keeps (a variable or field access 1, a constant 0, a call 1 or its size-based cost, a
non-constant list 10, the macros' expanded condition and step per element; constant lists and
conversions of constants are folded away first, as the optimizing planner folds them), so an
expression just under the budget finishes and one just over fails at the same place.

Calls (operators and functions) are compiled in cel_calls.py; this module compiles the rest:
attributes, literals, the logical operators, `?:`, the macros and cel.bind.

Activation slots: a[0] is the running cost, a[1] the `device` variable, then one slot per
comprehension variable, accumulator or binding.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.dra.cel_ast import ACCU, Node
from scheduler_core.dra.cel_calls import Fn, compile_call, const, is_const
from scheduler_core.dra.cel_values import (
    CelRuntimeError,
    CostLimitExceeded,
    DefaultEmptyMap,
    _go_type,
    _overload,
    _qualify,
    _tname,
)
from scheduler_core.dra.cel_walk import CelWalk

__all__ = ["CelRuntimeError", "CostLimitExceeded", "compile_tree", "DefaultEmptyMap"]


class _Compiler(CelWalk):
    """One closure per node; calls are compiled by cel_calls.compile_call."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.slots: dict[str, list[int]] = {"device": [1]}
        self.nslots = 2
        self.nodes = 0

    def slot(self, name: str) -> int:
        i = self.nslots
        self.nslots += 1
        self.slots.setdefault(name, []).append(i)
        return i

    def unslot(self, name: str) -> None:
        self.slots[name].pop()

    def compile(self, n: Node) -> Fn:
        self.nodes += 1
        return self.walk(n)

    def unsupported(self, n: Node) -> Exception:
        return CelRuntimeError(f"unsupported expression ({n.kind})")

    def on_lit(self, n: Node) -> Fn:
        return const(n.a)

    def on_and(self, n: Node) -> Fn:
        return self._logical(self.compile(n.a), self.compile(n.b), False, "_&&_")

    def on_or(self, n: Node) -> Fn:
        return self._logical(self.compile(n.a), self.compile(n.b), True, "_||_")

    # attributes: a root then qualifiers; the root costs 1 if it is a variable (or wraps a
    # computed value), each constant qualifier 1, a variable key 1 (its own access), a
    # computed key 1 plus its cost
    def _attribute(self, n: Node) -> Fn:
        quals: list[tuple[str, Any, Fn | None, bool]] = []  # (kind, const key, key fn, key is attr)
        test_only = False
        while n.kind in ("select", "index"):
            if n.kind == "select":
                if n.c:
                    test_only = True
                quals.append(("c", n.b, None, False))
            else:
                key = n.b
                kf = self.compile(key)
                if is_const(kf):
                    quals.append(("c", kf.const, None, False))  # type: ignore[attr-defined]
                else:
                    quals.append(("v", None, kf, key.kind in ("ident", "select", "index")))
            n = n.a
        quals.reverse()
        if n.kind == "ident":
            idx = self.slots.get(n.a)
            if not idx:
                raise CelRuntimeError(f"undeclared reference to '{n.a}'")
            si = idx[-1]

            def root(a: list, si: int = si) -> Any:
                return a[si]
            root_cost = 0 if test_only else 1
        else:
            root = self.compile(n)
            root_cost = 1  # a relative attribute around a computed value
        if not quals:
            def ident(a: list, si: int = si) -> Any:
                a[0] += 1
                return a[si]
            return ident
        qcost = root_cost + sum(1 for q in quals if q[0] == "c" or not q[3])
        if test_only:
            last = quals.pop()
            field = last[1]

            def has(a: list) -> Any:
                obj = root(a)
                a[0] += qcost
                for kind, key, kf, _ in quals:
                    obj = _qualify(obj, key if kind == "c" else kf(a))  # type: ignore[misc]
                if isinstance(obj, dict):
                    return field in obj
                raise CelRuntimeError(f"invalid type for field selection: {_tname(obj)}")
            return has
        if all(q[0] == "c" for q in quals):
            keys = tuple(q[1] for q in quals)
            if len(keys) == 1:
                k0 = keys[0]

                def select1(a: list) -> Any:
                    obj = root(a)
                    a[0] += qcost
                    if type(obj) is dict:
                        try:
                            return obj[k0]
                        except KeyError:
                            pass
                    return _qualify(obj, k0)
                return select1

            def select(a: list) -> Any:
                obj = root(a)
                a[0] += qcost
                for k in keys:
                    obj = _qualify(obj, k)
                return obj
            return select

        def qualify(a: list) -> Any:
            obj = root(a)
            a[0] += qcost
            for kind, key, kf, _ in quals:
                obj = _qualify(obj, key if kind == "c" else kf(a))  # type: ignore[misc]
            return obj
        return qualify

    on_ident = on_select = on_index = _attribute

    def on_list(self, n: Node) -> Fn:
        items = [self.compile(x) for x in n.a]
        if all(is_const(f) for f in items):
            return const([f.const for f in items])  # type: ignore[attr-defined]

        def make(a: list) -> Any:
            try:
                out = [f(a) for f in items]
            finally:  # the list's cost is counted even when an element fails
                a[0] += 10
            return out
        return make

    def on_map(self, n: Node) -> Fn:
        entries = [(self.compile(k), self.compile(v)) for k, v in n.a]
        if all(is_const(k) and is_const(v) for k, v in entries):
            return const({k.const: v.const for k, v in entries})  # type: ignore[attr-defined]

        def make(a: list) -> Any:
            out = {}
            try:
                for kf, vf in entries:
                    key = kf(a)
                    if key in out:
                        raise CelRuntimeError(f"Failed with repeated key: {key}")
                    out[key] = vf(a)
            finally:  # the map's cost is counted even when an entry fails
                a[0] += 30
            return out
        return make

    @staticmethod
    def _logical(lf: Fn, rf: Fn, absorbing: bool, name: str) -> Fn:
        """`&&` (absorbing False) and `||` (absorbing True) as cel-go evaluates them: a side that
        gives the absorbing value decides, whatever error the other side raised."""
        other = not absorbing

        def f(a: list) -> Any:
            try:
                lhs = lf(a)
            except CelRuntimeError as exc:
                lhs = exc
            if lhs is absorbing:
                return absorbing
            try:
                rhs = rf(a)
            except CelRuntimeError as exc:
                rhs = exc
            if rhs is absorbing:
                return absorbing
            if lhs is other and rhs is other:
                return other
            if isinstance(lhs, CelRuntimeError):
                raise lhs
            if isinstance(rhs, CelRuntimeError):
                raise rhs
            raise _overload(name, lhs, rhs)
        return f

    def on_cond(self, n: Node) -> Fn:
        cf, tf, ff = self.compile(n.a), self.compile(n.b), self.compile(n.c)

        def f(a: list) -> Any:
            c = cf(a)
            if c is True:
                return tf(a)
            if c is False:
                return ff(a)
            raise _overload("_?_:_", c)
        return f

    def on_bind(self, n: Node) -> Fn:
        init = self.compile(n.b)
        si = self.slot(n.a)
        body = self.compile(n.c)
        self.unslot(n.a)

        def f(a: list) -> Any:
            a[si] = init(a)
            return body(a)
        return f

    def on_comp(self, n: Node) -> Fn:  # noqa: C901 - one branch per macro, as cel-go expands them
        macro, var, args = n.a, n.b, n.d
        rng = self.compile(n.c)
        limit = self.limit
        vi = self.slot(var)
        self.slot(ACCU)
        body = [self.compile(x) for x in args]
        self.unslot(ACCU)
        self.unslot(var)

        def items(a: list) -> Any:
            r = rng(a)
            if isinstance(r, (list, dict)):
                return r
            raise CelRuntimeError(f"got '{_go_type(r)}', expected iterable type")

        if macro == "all":
            p = body[0]

            def f_all(a: list) -> Any:
                accu: Any = True
                for x in items(a):
                    a[0] += 2  # @not_strictly_false(accu)
                    if accu is False:
                        break
                    a[vi] = x
                    a[0] += 1  # accu in `accu && p`
                    try:
                        v = p(a)
                    except CelRuntimeError as exc:
                        v = exc
                    if v is False:
                        accu = False
                    elif v is not True and accu is True:
                        accu = v if isinstance(v, CelRuntimeError) else _overload("_&&_", True, v)
                    if a[0] > limit:
                        raise CostLimitExceeded()
                a[0] += 1  # result: accu
                if isinstance(accu, CelRuntimeError):
                    raise accu
                return accu
            return f_all
        if macro == "exists":
            p = body[0]

            def f_exists(a: list) -> Any:
                accu: Any = False
                for x in items(a):
                    a[0] += 3  # @not_strictly_false(!accu)
                    if accu is True:
                        break
                    a[vi] = x
                    a[0] += 1
                    try:
                        v = p(a)
                    except CelRuntimeError as exc:
                        v = exc
                    if v is True:
                        accu = True
                    elif v is not False and accu is False:
                        accu = v if isinstance(v, CelRuntimeError) else _overload("_||_", False, v)
                    if a[0] > limit:
                        raise CostLimitExceeded()
                a[0] += 1
                if isinstance(accu, CelRuntimeError):
                    raise accu
                return accu
            return f_exists
        if macro == "exists_one":
            p = body[0]

            def f_one(a: list) -> Any:
                accu: Any = 0
                for x in items(a):
                    a[vi] = x
                    try:
                        v = p(a)
                    except CelRuntimeError as exc:
                        v = exc
                    if v is True:
                        a[0] += 2
                        if not isinstance(accu, CelRuntimeError):
                            accu += 1
                    elif v is False:
                        a[0] += 1
                    elif not isinstance(accu, CelRuntimeError):
                        accu = v if isinstance(v, CelRuntimeError) else _overload("_?_:_", v)
                    if a[0] > limit:
                        raise CostLimitExceeded()
                a[0] += 2  # accu == 1
                if isinstance(accu, CelRuntimeError):
                    raise accu
                return accu == 1
            return f_one
        # map / filter: the accumulator grows by `accu + [elem]`
        pred = body[0] if (macro == "filter" or len(body) == 2) else None
        tf = body[-1] if macro == "map" else None
        elem_const = tf is not None and is_const(tf)
        step_cost = 1 + (0 if elem_const else 10) + 1

        def f_map(a: list) -> Any:
            accu: Any = []
            for x in items(a):
                a[vi] = x
                if pred is not None:
                    try:
                        v = pred(a)
                    except CelRuntimeError as exc:
                        v = exc
                    if v is not True:
                        if v is False:
                            a[0] += 1
                        elif not isinstance(accu, CelRuntimeError):
                            accu = v if isinstance(v, CelRuntimeError) else _overload("_?_:_", v)
                        if a[0] > limit:
                            raise CostLimitExceeded()
                        continue
                if tf is not None:
                    try:
                        item = tf(a)
                    except CelRuntimeError as exc:
                        item = exc
                else:
                    item = x
                    a[0] += 1  # the variable in [x]
                a[0] += step_cost
                if isinstance(item, CelRuntimeError):
                    if not isinstance(accu, CelRuntimeError):
                        accu = item
                elif not isinstance(accu, CelRuntimeError):
                    accu.append(item)
                if a[0] > limit:
                    raise CostLimitExceeded()
            a[0] += 1
            if isinstance(accu, CelRuntimeError):
                raise accu
            return accu
        return f_map

    def on_call(self, n: Node) -> Fn:
        fn, target, args = n.a, n.b, n.c
        fns = ([self.compile(target)] if target is not None else []) + [self.compile(x) for x in args]
        return compile_call(fn, target is not None, fns)


def compile_tree(tree: Node, limit: int) -> tuple[Fn, int, int]:
    """(program, activation size, node count): program(a) evaluates with a[0] the running cost;
    it raises CostLimitExceeded when the cost passes `limit`, CelRuntimeError for CEL errors."""
    c = _Compiler(limit)
    fn = c.compile(tree)
    return fn, c.nslots, c.nodes
