"""CEL's grammar parsed into a small syntax tree, the standard macros recognised the way
cel-go's parser recognises them (`all`, `exists`, `exists_one`, `map`, `filter`, `has`, and
`cel.bind` from the bindings extension), with cel-go's limit of 250 nested levels per rule.

Why a parser of our own: cel-python's Lark parser kept ~9 nested grammar nodes with position
metadata for every literal (a 9 KB expression's tree and program weighed ~15 MB) and took
~0.4 s for 4 KB; this tree has one small node per operation and is dropped once the expression
is costed (scheduler_core.dra.cel_cost) and compiled into closures
(scheduler_core.dra.cel_program).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Any

__all__ = ["Node", "CelSyntaxError", "CelUint", "parse", "ACCU", "MAX_DEPTH"]

ACCU = "@result"
MAX_DEPTH = 250  # cel-go's parser refuses deeper nesting of one grammar rule


class CelSyntaxError(Exception):
    """A parse or macro error, located (1-based line and column)."""

    def __init__(self, message: str, line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.line, self.column = line, column


class CelUint(int):
    """A CEL uint (its own type: `1u == 1` holds numerically, but the types differ)."""

    __slots__ = ()


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


_STRING = (r"(?:[rR][bB]?|[bB][rR]?)?"
           r'(?:"""[\s\S]*?"""|' r"'''[\s\S]*?'''|"
           r'"(?:\\[\s\S]|[^"\\\n])*"|' r"'(?:\\[\s\S]|[^'\\\n])*')")
_TOKEN = re.compile(
    r"(?P<ws>[\t\n\f\r ]+|//[^\n]*)"
    r"|(?P<float>\d+\.\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)"
    r"|(?P<hex>0[xX][0-9a-fA-F]+[uU]?)"
    r"|(?P<int>\d+[uU]?)"
    rf"|(?P<str>{_STRING})"
    r"|(?P<ident>[_a-zA-Z][_a-zA-Z0-9]*)"
    r"|(?P<op>==|!=|<=|>=|&&|\|\||[<>+\-*/%!?:.,\[\](){}])"
    r"|(?P<bad>[\s\S])")
_RESERVED = frozenset({"as", "break", "const", "continue", "else", "for", "function", "if",
                       "import", "let", "loop", "package", "namespace", "return", "var",
                       "void", "while"})
_REL_FN = {"<": "_<_", "<=": "_<=_", ">": "_>_", ">=": "_>=_", "==": "_==_", "!=": "_!=_", "in": "@in"}
_ADD_FN = {"+": "_+_", "-": "_-_"}
_MUL_FN = {"*": "_*_", "/": "_/_", "%": "_%_"}
_MACROS = {"all": 2, "exists": 2, "exists_one": 2, "filter": 2}


def parse(text: str) -> Node:
    """The tree of `text`; CelSyntaxError (located) if it does not parse or a macro is
    malformed."""
    return _Parser(text).parse()


def parse_with_depth(text: str) -> tuple[Node, int]:
    """The tree and the deepest nesting of one grammar rule in it (what bounds the stack the
    tree's walkers need)."""
    p = _Parser(text)
    return p.parse(), p.deepest


class _Tok:
    __slots__ = ("kind", "text", "pos")

    def __init__(self, kind: str, text: str, pos: int) -> None:
        self.kind, self.text, self.pos = kind, text, pos


class _Parser:
    """Recursive descent over a token list; chains (`a + b + ...`, `a.b.c`) are loops, and the
    depth per rule is counted as cel-go's parser counts it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts: list[int] | None = None
        self.toks: list[_Tok] = []
        n = len(text)
        append = self.toks.append
        for m in _TOKEN.finditer(text):
            kind = m.lastgroup
            if kind == "ws":
                continue
            if kind == "bad":
                self._fail(f"token recognition error at: '{m.group()}'", m.start())
            append(_Tok(kind, m.group(), m.start()))  # type: ignore[arg-type]
        self.toks.append(_Tok("eof", "", n))
        self.i = 0
        self.depth: dict[str, int] = {}
        self.deepest = 0

    # helpers
    def _where(self, pos: int) -> tuple[int, int]:
        if self.line_starts is None:
            self.line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        line = bisect_right(self.line_starts, pos)
        return line, pos - self.line_starts[line - 1] + 1

    def _fail(self, message: str, pos: int) -> None:
        line, col = self._where(pos)
        raise CelSyntaxError(message, line, col)

    def _enter(self, rule: str, pos: int) -> None:
        d = self.depth.get(rule, 0) + 1
        self.depth[rule] = d
        if d > self.deepest:
            self.deepest = d
        if d > MAX_DEPTH:
            self._fail(f"expression recursion limit exceeded: {MAX_DEPTH}", pos)

    def _leave(self, rule: str, by: int = 1) -> None:
        self.depth[rule] -= by

    def _peek(self) -> _Tok:
        return self.toks[self.i]

    def _next(self) -> _Tok:
        t = self.toks[self.i]
        self.i += 1
        return t

    def _is(self, text: str) -> bool:
        t = self.toks[self.i]
        return t.kind in ("op", "ident") and t.text == text

    def _expect(self, text: str) -> _Tok:
        t = self._next()
        if not (t.kind in ("op", "ident") and t.text == text):
            self._unexpected(t)
        return t

    def _unexpected(self, t: _Tok) -> None:
        if t.kind == "eof":
            self._fail("unexpected end of expression", t.pos)
        self._fail(f"mismatched input '{t.text}'", t.pos)

    def _node(self, kind: str, pos: int, a: Any = None, b: Any = None, c: Any = None, d: Any = None) -> Node:
        line, col = self._where(pos)
        return Node(kind, a, b, c, d, line=line, column=col)

    # grammar
    def parse(self) -> Node:
        out = self.expr()
        t = self._peek()
        if t.kind != "eof":
            self._unexpected(t)
        return out

    def expr(self) -> Node:
        start = self._peek().pos
        self._enter("expr", start)
        c = self.logical_or()
        if self._is("?"):
            self._next()
            t = self.logical_or()
            self._expect(":")
            f = self.expr()
            c = self._node("cond", start, c, t, f)
        self._leave("expr")
        return c

    def logical_or(self) -> Node:
        terms = [self.logical_and()]
        while self._is("||"):
            self._next()
            terms.append(self.logical_and())
        return _balance(terms, "or")

    def logical_and(self) -> Node:
        # cel-go balances chains of && / || into a tree of logarithmic depth; evaluation order
        # and cost stay those of the left-to-right chain
        terms = [self.relation()]
        while self._is("&&"):
            self._next()
            terms.append(self.relation())
        return _balance(terms, "and")

    # relation, calc and member are left-recursive rules upstream: each operator or suffix
    # nests one more context of the rule, and an operator's right operand enters it again
    def relation(self, p: int = 0) -> Node:
        self._enter("relation", self._peek().pos)
        pushes = 0
        lhs = self.calc(0)
        while p <= 1:
            t = self._peek()
            if t.kind not in ("op", "ident") or t.text not in _REL_FN:
                break
            self._next()
            pushes += 1
            self._enter("relation", t.pos)
            rhs = self.relation(2)
            lhs = self._node("call", t.pos, _REL_FN[t.text], None, [lhs, rhs])
        self._leave("relation", pushes + 1)
        return lhs

    def calc(self, p: int) -> Node:
        self._enter("calc", self._peek().pos)
        pushes = 0
        lhs = self.unary()
        while True:
            t = self._peek()
            if t.kind == "op" and t.text in _MUL_FN and p <= 2:
                fn, next_p = _MUL_FN[t.text], 3
            elif t.kind == "op" and t.text in _ADD_FN and p <= 1:
                fn, next_p = _ADD_FN[t.text], 2
            else:
                break
            self._next()
            pushes += 1
            self._enter("calc", t.pos)
            rhs = self.calc(next_p)
            lhs = self._node("call", t.pos, fn, None, [lhs, rhs])
        self._leave("calc", pushes + 1)
        return lhs

    def unary(self) -> Node:
        t = self._peek()
        self._enter("unary", t.pos)
        if t.kind == "op" and t.text in ("!", "-"):
            ops = []
            while self._peek().kind == "op" and self._peek().text == t.text:
                ops.append(self._next())
            if len(ops) > self.deepest:  # each operator nests one call in the tree
                self.deepest = len(ops)
            inner = self.member()
            if t.text == "-" and inner.kind == "lit" and type(inner.a) in (int, float, CelUint):
                # a negative numeric literal is a literal (so -9223372036854775808 fits)
                ops.pop()
                if isinstance(inner.a, CelUint):
                    self._fail("invalid uint literal", t.pos)
                inner = self._node("lit", t.pos, -inner.a)
            elif inner.kind == "lit" and type(inner.a) is int and inner.a == 2 ** 63:
                self._fail("invalid int literal", t.pos)
            for op in reversed(ops):
                inner = self._node("call", op.pos, "!_" if op.text == "!" else "-_", None, [inner])
        else:
            inner = self.member()
            if inner.kind == "lit" and type(inner.a) is int and inner.a == 2 ** 63:
                self._fail("invalid int literal", t.pos)
        self._leave("unary")
        return inner

    def member(self) -> Node:
        self._enter("member", self._peek().pos)
        out = self.primary()
        pushes = 0
        while True:
            t = self._peek()
            if t.kind != "op" or t.text not in (".", "[", "{"):
                break
            pushes += 1
            self._enter("member", t.pos)
            self._next()
            if t.text == ".":
                name = self._next()
                if name.kind != "ident":
                    self._unexpected(name)
                if self._is("("):
                    self._next()
                    args = self.args(")")
                    out = self._member_call(out, name.text, args, t.pos)
                else:
                    out = self._node("select", name.pos, out, name.text, False)
            elif t.text == "[":
                key = self.expr()
                self._expect("]")
                out = self._node("index", t.pos, out, key)
            else:
                self._fail("message construction is not supported", t.pos)
        self._leave("member", pushes + 1)
        return out

    def args(self, close: str) -> list[Node]:
        out: list[Node] = []
        if self._is(close):
            self._next()
            return out
        while True:
            out.append(self.expr())
            if self._is(","):
                self._next()
                if close != ")" and self._is(close):  # a trailing comma in a list literal
                    self._next()
                    return out
                continue
            self._expect(close)
            return out

    def primary(self) -> Node:
        self._enter("primary", self._peek().pos)
        out = self._primary()
        self._leave("primary")
        return out

    def _primary(self) -> Node:
        t = self._next()
        k = t.kind
        if k == "op":
            if t.text == "(":
                e = self.expr()
                self._expect(")")
                return e
            if t.text == "[":
                return self._node("list", t.pos, self.args("]"))
            if t.text == "{":
                return self._map(t)
            if t.text == ".":
                name = self._next()
                if name.kind != "ident":
                    self._unexpected(name)
                t, k = name, "ident"
            else:
                self._unexpected(t)
        if k == "ident":
            word = t.text
            if word in ("true", "false"):
                return self._node("lit", t.pos, word == "true")
            if word == "null":
                return self._node("lit", t.pos, None)
            if word in _RESERVED or word == "in":
                self._fail(f"reserved identifier: {word}", t.pos)
            if self._is("("):
                self._next()
                args = self.args(")")
                if word == "has":
                    if len(args) != 1 or args[0].kind != "select":
                        self._fail("invalid argument to has() macro", t.pos)
                    args[0].c = True
                    return args[0]
                return self._node("call", t.pos, word, None, args)
            return self._node("ident", t.pos, word)
        if k in ("int", "hex", "float"):
            return self._node("lit", t.pos, self._number(t))
        if k == "str":
            return self._node("lit", t.pos, self._string(t))
        self._unexpected(t)
        raise AssertionError  # unreachable

    def _map(self, open_tok: _Tok) -> Node:
        entries: list[tuple[Node, Node]] = []
        if self._is("}"):
            self._next()
            return self._node("map", open_tok.pos, entries)
        while True:
            k = self.expr()
            self._expect(":")
            entries.append((k, self.expr()))
            if self._is(","):
                self._next()
                if self._is("}"):
                    self._next()
                    break
                continue
            self._expect("}")
            break
        return self._node("map", open_tok.pos, entries)

    def _member_call(self, target: Node, name: str, args: list[Node], pos: int) -> Node:
        nargs = len(args)
        if (name in _MACROS and nargs == _MACROS[name]) or (name == "map" and nargs in (2, 3)):
            var = args[0]
            if var.kind != "ident":
                raise CelSyntaxError("argument must be a simple name", var.line, var.column)
            if var.a in (ACCU, "__result__"):
                raise CelSyntaxError("iteration variable overwrites accumulator variable", var.line, var.column)
            return self._node("comp", pos, name, var.a, target, args[1:])
        if name == "bind" and nargs == 3 and target.kind == "ident" and target.a == "cel":
            var = args[0]
            if var.kind != "ident":
                raise CelSyntaxError("cel.bind() variable names must be simple identifiers", var.line, var.column)
            return self._node("bind", pos, var.a, args[1], args[2])
        return self._node("call", pos, name, target, args)

    def _number(self, t: _Tok) -> Any:
        text = t.text
        if t.kind == "float":
            return float(text)
        unsigned = text[-1] in "uU"
        digits = text[:-1] if unsigned else text
        v = int(digits, 16) if t.kind == "hex" else int(digits)
        if unsigned:
            if v >= 2 ** 64:
                self._fail("invalid uint literal", t.pos)
            return CelUint(v)
        if v > 2 ** 63:  # 2**63 itself only under a minus sign (checked by unary)
            self._fail("invalid int literal", t.pos)
        return v

    def _string(self, t: _Tok) -> Any:
        text = t.text
        i = 0
        raw = is_bytes = False
        while text[i] in "rRbB":
            raw |= text[i] in "rR"
            is_bytes |= text[i] in "bB"
            i += 1
        q = 3 if text[i:i + 3] in ('"""', "'''") else 1
        body = text[i + q:len(text) - q]
        if raw:
            return body.encode() if is_bytes else body
        out: list[Any] = []
        j, n = 0, len(body)
        while j < n:
            c = body[j]
            if c != "\\":
                out.append(c.encode() if is_bytes else c)
                j += 1
                continue
            e = body[j + 1:j + 2]
            if e in _ESCAPES:
                ch = _ESCAPES[e]
                out.append(ch.encode() if is_bytes else ch)
                j += 2
            elif e in ("x", "X") and _HEX2.fullmatch(body[j + 2:j + 4]):
                v = int(body[j + 2:j + 4], 16)
                out.append(bytes([v]) if is_bytes else chr(v))
                j += 4
            elif e == "u" and not is_bytes and _HEX4.fullmatch(body[j + 2:j + 6]):
                out.append(self._code_point(int(body[j + 2:j + 6], 16), t))
                j += 6
            elif e == "U" and not is_bytes and _HEX8.fullmatch(body[j + 2:j + 10]):
                out.append(self._code_point(int(body[j + 2:j + 10], 16), t))
                j += 10
            elif e and e in "0123" and _OCT3.fullmatch(body[j + 1:j + 4]):
                v = int(body[j + 1:j + 4], 8)
                out.append(bytes([v]) if is_bytes else chr(v))
                j += 4
            else:
                self._fail("invalid escape sequence", t.pos)
        return b"".join(out) if is_bytes else "".join(out)

    def _code_point(self, v: int, t: _Tok) -> str:
        if v > 0x10FFFF or 0xD800 <= v <= 0xDFFF:
            self._fail("invalid unicode code point", t.pos)
        return chr(v)


_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
            '"': '"', "'": "'", "\\": "\\", "`": "`", "?": "?"}
_HEX2 = re.compile(r"[0-9a-fA-F]{2}")
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_HEX8 = re.compile(r"[0-9a-fA-F]{8}")
_OCT3 = re.compile(r"[0-7]{3}")


def _balance(terms: list[Node], kind: str) -> Node:
    if len(terms) == 1:
        return terms[0]
    mid = len(terms) // 2
    lhs, rhs = _balance(terms[:mid], kind), _balance(terms[mid:], kind)
    return Node(kind, lhs, rhs, line=lhs.line, column=lhs.column)
