"""One dispatch over the node kinds of a CEL tree (scheduler_core.dra.cel_ast), for every walk.

Why one: the closure compiler (cel_program) and the cost estimator (cel_cost) visit the same
kinds of node. Each used to carry its own chain of `if kind == ...` over them, the two chains
copies of each other, so a kind the parser learned had to be added twice, in step. A walk
here has one method per kind, `on_<kind>`; a kind it has no method for is refused with the
error the walk gives (`unsupported`), as each chain refused it before.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.dra.cel_ast import Node

__all__ = ["KINDS", "CelWalk"]

# What the parser builds: literals, names, field selection (and `has()`), indexing, calls
# (operators included), list and map literals, the short-circuit operators, `?:`, the expanded
# macros and cel.bind.
KINDS = ("lit", "ident", "select", "index", "call", "list", "map", "and", "or", "cond", "comp", "bind")
_METHOD = {k: f"on_{k}" for k in KINDS}


class CelWalk:
    """A walk over a CEL tree: `walk(n)` calls the `on_<kind>` method of `n`'s kind."""

    def walk(self, n: Node) -> Any:
        name = _METHOD.get(n.kind)
        method = getattr(self, name, None) if name is not None else None
        if method is None:
            raise self.unsupported(n)
        return method(n)

    def unsupported(self, n: Node) -> Exception:
        """The error for a node of a kind this walk has no method for (subclasses word it)."""
        return NotImplementedError(f"unsupported expression ({n.kind})")
