"""A small CEL syntax tree, built from cel-python's parse tree, with the standard macros
expanded the way cel-go's parser expands them (`all`, `exists`, `exists_one`, `map`, `filter`,
`has`, and `cel.bind` from the bindings extension).

Why a tree of our own: cel-python's Lark tree keeps ~9 nested grammar nodes (with position
metadata) for every literal, so a 9 KB expression's tree and program weighed ~15 MB; this tree
has one small node per operation and is dropped once the expression is compiled into closures
(scheduler_core.dra.cel_program) and costed (scheduler_core.dra.cel_cost).
"""

from __future__ import annotations

from typing import Any

__all__ = ["Node", "CelSyntaxError", "parse"]

ACCU = "@result"


class CelSyntaxError(Exception):
    """A parse or macro error, located (1-based line and column)."""

    def __init__(self, message: str, line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.line, self.column = line, column


class Node:
    """One operation. `kind` is one of: lit (value), ident (name), select (operand, field,
    test_only), index (operand, key), call (fn, target, args), list (items), map (entries),
    and / or (lhs, rhs), cond (c, t, f), comp (macro, var, range, args), bind (var, init, body).
    """

    __slots__ = ("kind", "a", "b", "c", "d", "line", "column")

    def __init__(self, kind: str, a: Any = None, b: Any = None, c: Any = None, d: Any = None,
                 line: int = 0, column: int = 0) -> None:
        self.kind, self.a, self.b, self.c, self.d = kind, a, b, c, d
        self.line, self.column = line, column

    def __repr__(self) -> str:
        return f"Node({self.kind}, {self.a!r}, {self.b!r}, {self.c!r}, {self.d!r})"


_PARSER: Any = None
_BINARY = {
    "relation_lt": "_<_", "relation_le": "_<=_", "relation_gt": "_>_", "relation_ge": "_>=_",
    "relation_eq": "_==_", "relation_ne": "_!=_", "relation_in": "@in",
    "addition_add": "_+_", "addition_sub": "_-_",
    "multiplication_mul": "_*_", "multiplication_div": "_/_", "multiplication_mod": "_%_",
}
_MACROS = {"all": 2, "exists": 2, "exists_one": 2, "filter": 2}


def parse(text: str) -> Node:
    """The tree of `text`; CelSyntaxError if it does not parse or a macro is malformed."""
    global _PARSER
    import lark
    from celpy.celparser import CELParser

    if _PARSER is None:
        _PARSER = CELParser()
    try:
        tree = _PARSER.parse(text)
    except lark.exceptions.UnexpectedInput as exc:
        raise CelSyntaxError("syntax error", getattr(exc, "line", 0) or 0,
                             getattr(exc, "column", 0) or 0) from None
    except Exception as exc:  # celpy's own CELParseError carries line and column
        raise CelSyntaxError(str(exc).splitlines()[0] if str(exc) else "syntax error",
                             getattr(exc, "line", 0) or 0, getattr(exc, "column", 0) or 0) from None
    return _Builder().build(tree)


class _Builder:
    """Walks the Lark tree iteratively enough for deep chains (`a && b && ...` nests left)."""

    def build(self, t: Any) -> Node:
        while True:
            data = t.data
            ch = t.children
            line, col = getattr(t.meta, "line", 0), getattr(t.meta, "column", 0)
            if data in ("expr", "conditionalor", "conditionaland", "relation", "addition",
                        "multiplication", "unary", "member", "primary") and len(ch) == 1:
                t = ch[0]
                continue
            if data == "paren_expr":
                t = ch[0]
                continue
            break
        if data == "expr":
            return Node("cond", self.build(ch[0]), self.build(ch[1]), self.build(ch[2]), line=line, column=col)
        if data in ("conditionalor", "conditionaland"):
            return self._chain(t, "or" if data == "conditionalor" else "and")
        if data in ("relation", "addition", "multiplication"):
            return self._binary(t)
        if data == "unary":
            op, operand = ch
            fn = "!_" if op.data == "unary_not" else "-_"
            inner = self.build(operand)
            if fn == "-_" and inner.kind == "lit" and type(inner.a) in (int, float) \
                    and not isinstance(inner.a, bool):
                return Node("lit", -inner.a, line=line, column=col)
            return Node("call", fn, None, [inner], line=line, column=col)
        if data == "member_dot":
            return Node("select", self.build(ch[0]), str(ch[1]), False, line=line, column=col)
        if data == "member_index":
            return Node("index", self.build(ch[0]), self.build(ch[1]), line=line, column=col)
        if data == "member_dot_arg":
            target, name = ch[0], str(ch[1])
            args = ch[2].children if len(ch) > 2 else []
            return self._member_call(target, name, args, line, col)
        if data == "member_object":
            raise CelSyntaxError("message construction is not supported", line, col)
        if data in ("ident_arg", "dot_ident_arg"):
            name = str(ch[0])
            args = ch[1].children if len(ch) > 1 else []
            if name == "has" and data == "ident_arg":
                return self._has(args, line, col)
            return Node("call", name, None, [self.build(a) for a in args], line=line, column=col)
        if data in ("ident", "dot_ident"):
            return Node("ident", str(ch[0]), line=line, column=col)
        if data == "list_lit":
            items = ch[0].children if ch else []
            return Node("list", [self.build(x) for x in items], line=line, column=col)
        if data == "map_lit":
            flat = ch[0].children if ch else []
            return Node("map", [(self.build(flat[i]), self.build(flat[i + 1]))
                                for i in range(0, len(flat), 2)], line=line, column=col)
        if data == "literal":
            return Node("lit", _literal(ch[0], line, col), line=line, column=col)
        raise CelSyntaxError(f"unsupported syntax ({data})", line, col)

    def _chain(self, t: Any, kind: str) -> Node:
        # Left-nested: flatten iteratively, then fold left so evaluation order is preserved.
        rights = []
        node = t
        while node.data == t.data and len(node.children) == 2:
            rights.append(node.children[1])
            node = node.children[0]
        out = self.build(node)
        for r in reversed(rights):
            out = Node(kind, out, self.build(r), line=out.line, column=out.column)
        return out

    def _binary(self, t: Any) -> Node:
        ops = []
        node = t
        while node.data == t.data and len(node.children) == 2:
            op = node.children[0]
            ops.append((_BINARY[op.data], node.children[1], op))
            node = op.children[0]
        out = self.build(node)
        for fn, rhs, op in reversed(ops):
            out = Node("call", fn, None, [out, self.build(rhs)],
                       line=getattr(op.meta, "line", 0), column=getattr(op.meta, "column", 0))
        return out

    def _has(self, args: list, line: int, col: int) -> Node:
        if len(args) != 1:
            raise CelSyntaxError("invalid argument to has() macro", line, col)
        inner = self.build(args[0])
        if inner.kind != "select":
            raise CelSyntaxError("invalid argument to has() macro", line, col)
        inner.c = True
        return inner

    def _member_call(self, target: Any, name: str, args: list, line: int, col: int) -> Node:
        nargs = len(args)
        if (name in _MACROS and nargs == _MACROS[name]) or (name == "map" and nargs in (2, 3)):
            var = self.build(args[0])
            if var.kind != "ident":
                raise CelSyntaxError("argument must be a simple name", var.line, var.column)
            if var.a in (ACCU, "__result__"):
                raise CelSyntaxError("iteration variable overwrites accumulator variable", var.line, var.column)
            return Node("comp", name, var.a, self.build(target), [self.build(a) for a in args[1:]],
                        line=line, column=col)
        tnode = self.build(target)
        if name == "bind" and nargs == 3 and tnode.kind == "ident" and tnode.a == "cel":
            var = self.build(args[0])
            if var.kind != "ident":
                raise CelSyntaxError("cel.bind() variable names must be simple identifiers", var.line, var.column)
            return Node("bind", var.a, self.build(args[1]), self.build(args[2]), line=line, column=col)
        return Node("call", name, tnode, [self.build(a) for a in args], line=line, column=col)


class CelUint(int):
    """A CEL uint (its own type: `1u == 1` holds numerically, but the types differ)."""

    __slots__ = ()


def _literal(tok: Any, line: int, col: int) -> Any:
    from celpy.evaluation import celbytes, celstr

    kind, text = tok.type, tok.value
    try:
        if kind == "INT_LIT":
            v = int(text, 0) if "x" in text.lower() else int(text)
            if not -(2 ** 63) <= v < 2 ** 63:
                raise ValueError("integer literal out of range")
            return v
        if kind == "UINT_LIT":
            v = int(text[:-1], 0) if "x" in text.lower() else int(text[:-1])
            if not 0 <= v < 2 ** 64:
                raise ValueError("unsigned integer literal out of range")
            return CelUint(v)
        if kind == "FLOAT_LIT":
            return float(text)
        if kind in ("STRING_LIT", "MLSTRING_LIT"):
            return str(celstr(tok))
        if kind == "BYTES_LIT":
            return bytes(celbytes(tok))
        if kind == "BOOL_LIT":
            return text == "true"
        if kind == "NULL_LIT":
            return None
    except ValueError as exc:
        raise CelSyntaxError(str(exc), line, col) from None
    raise CelSyntaxError(f"unsupported literal {text!r}", line, col)
