"""The engine's import graph: no cycles, and the framework never reaches up to the scheduler.

Every import counts, including those under `if TYPE_CHECKING:` and inside functions: a cycle
that only type hints close is still two modules that cannot be read one without the other.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "scheduler_core"
# Modules above the framework: the framework receives their services, it never imports them.
ABOVE_FRAMEWORK = ("scheduler_core.scheduler", "scheduler_core.schedule_one", "scheduler_core.eventhandlers",
                   "scheduler_core.apiserver.server", "scheduler_core.extender", "scheduler_core.simulation")


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The most specific engine module that `name` (a module or a name in one) denotes."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for mod, path in modules.items():
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    pkg = mod if is_pkg else mod.rpartition(".")[0]
                    for _ in range(node.level - 1):
                        pkg = pkg.rpartition(".")[0]
                    base = f"{pkg}.{base}" if base else pkg
                targets = [f"{base}.{a.name}" for a in node.names]
            for t in targets:
                dep = _resolve(t, modules)
                if dep is not None and dep != mod:
                    graph[mod].add(dep)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_engine_has_no_import_cycle():
    assert cycles(import_graph()) == []


def test_the_framework_never_imports_the_scheduler():
    bad = sorted((m, d) for m, deps in import_graph().items() if m.startswith(f"{PACKAGE}.framework")
                 for d in deps if d.startswith(ABOVE_FRAMEWORK))
    assert bad == []


@pytest.mark.parametrize("graph, want", [
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ({"a": {"b"}, "b": set()}, []),
])
def test_cycle_finder_finds_cycles(graph, want):
    assert cycles(graph) == want


def test_graph_sees_type_checking_and_function_local_imports():
    graph = import_graph()
    # framework.runtime.framework imports the snapshot only for type hints.
    assert "scheduler_core.backend.cache.snapshot" in graph["scheduler_core.framework.runtime.framework"]
    # the signing helper imports the cache's image normaliser inside a function.
    assert "scheduler_core.backend.cache.cache" in graph["scheduler_core.framework.plugins.helper.signing"]
