"""The compiler and the cost estimator walk a CEL tree through one dispatch (dra/cel_walk.py):
every kind the parser builds has a method in both, and a kind neither knows is refused in each
walk's own words, as their separate chains of `if kind == ...` refused it before."""

from __future__ import annotations

import pytest

from scheduler_core.dra.cel_ast import Node, parse
from scheduler_core.dra.cel_cost import CelCheckError, _Estimator, estimate
from scheduler_core.dra.cel_program import _Compiler, compile_tree
from scheduler_core.dra.cel_values import CelRuntimeError
from scheduler_core.dra.cel_walk import KINDS

# Between them these use every kind of node the parser builds.
EXPRESSIONS = [
    'device.driver == "gpu.example.com" && has(device.attributes["example.com"].model)',
    'device.attributes["example.com"].count > 2 || device.capacity["example.com"].mem.isGreaterThan(quantity("1Gi"))',
    '[1, 2, 3].all(x, x > 0) ? {"a": 1}["a"] == 1 : false',
    'cel.bind(n, [1, 2].size(), n == 2)',
]


def _kinds(n: object, out: set[str]) -> set[str]:
    if isinstance(n, Node):
        out.add(n.kind)
        for child in (n.a, n.b, n.c, n.d):
            _kinds(child, out)
    elif isinstance(n, (list, tuple)):
        for child in n:
            _kinds(child, out)
    return out


def test_the_parser_builds_only_kinds_the_walk_dispatches_and_all_of_them():
    seen: set[str] = set()
    for text in EXPRESSIONS:
        _kinds(parse(text), seen)
    assert seen == set(KINDS)


@pytest.mark.parametrize("walk", [_Compiler, _Estimator])
def test_each_walk_has_a_method_for_every_kind(walk):
    assert [k for k in KINDS if not callable(getattr(walk, f"on_{k}", None))] == []


def test_an_unknown_kind_is_refused_in_each_walks_words():
    stray = Node("lambda", None, line=3, column=7)
    with pytest.raises(CelRuntimeError, match=r"unsupported expression \(lambda\)"):
        compile_tree(stray, 1_000_000)
    with pytest.raises(CelCheckError, match=r"unsupported expression \(lambda\)") as info:
        estimate(stray)
    assert (info.value.line, info.value.column) == (3, 7)


@pytest.mark.parametrize("text", EXPRESSIONS)
def test_every_expression_compiles_and_has_an_estimate(text):
    tree = parse(text)
    fn, slots, nodes = compile_tree(tree, 1_000_000)
    assert nodes > 0 and slots >= 2 and callable(fn)
    assert estimate(tree) >= 0
