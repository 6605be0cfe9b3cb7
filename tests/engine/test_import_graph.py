"""The engine's import graph: no cycles, the framework never reaches up to the scheduler, and
packages import downward only.

Every import counts, including those under `if TYPE_CHECKING:` and inside functions: a cycle
that only type hints close is still two modules that cannot be read one without the other.

"No module cycle" alone let whole packages lean on each other (the loader inside `api/` imported
the controllers and the descheduler, which import `api/`), so the packages are also put in
layers, bottom first, and an import from a lower layer into a higher one fails.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from tests.import_graph import cycles, read_import_graph

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "scheduler_core"
# Modules above the framework: the framework receives their services, it never imports them.
ABOVE_FRAMEWORK = ("scheduler_core.scheduler", "scheduler_core.schedule_one", "scheduler_core.eventhandlers",
                   "scheduler_core.apiserver.server", "scheduler_core.extender", "scheduler_core.simulation")


# The engine's packages, bottom first: a module imports its own package or a lower line, never a
# higher one. A module belongs to the longest entry its name starts with; "" is the root modules
# (the scheduler, the simulation); the questions asked of runs and the command line sit above.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("util", "metrics"),  # helpers of no engine concept
    ("events",),  # the event stream's recorder and readers
    ("featuregate",),  # the gates a run models
    ("config",),  # KubeSchedulerConfiguration types and the default plugins
    ("api",),  # the objects, the scenario, export
    ("apiserver.store",),  # the objects that exist in a run
    ("controllers",),  # what the cluster's controllers do to those objects
    ("framework",),  # the framework's types and extension-point interfaces
    ("backend", "backend.heap"),
    ("backend.cache", "backend.queue", "backend.workloadmanager"),
    ("framework.plugins.helper",),  # what plugins (and DRA's allocator, the batcher) share
    ("dra",),
    ("dra.structured",),  # the structured-parameters allocator
    ("framework.runtime",),
    ("framework.preemption",),
    ("framework.plugins",),
    ("framework.api",),  # the public plugin API: re-exports for out-of-tree plugins
    ("descheduler",),
    ("loader",),  # the one parser of scenarios: above everything it builds or expands
    ("actions",),  # cluster actions: parsed with the loader's readers
    ("apiserver",),  # the simulated API server's writes
    ("extender",),
    ("view",),  # the run's view, read off every part of the engine
    ("",),  # the scheduler, the simulation
    ("questions",),  # capacity, why pending, compare: asked of runs, from outside
    ("__main__",),  # the command line
)
# Upward imports still to remove, by (importing package, imported package): why each remains.
KNOWN_UPWARD: dict[tuple[str, str], str] = {}


@functools.cache
def import_graph() -> dict[str, set[str]]:
    """Each engine module's engine imports (read once per test session; callers do not change it)."""
    return read_import_graph(ROOT, PACKAGE)


def test_the_engine_has_no_import_cycle():
    assert cycles(import_graph()) == []


def _layer_of(module: str) -> str | None:
    """The LAYERS entry a module belongs to: the longest package prefix; "" for root modules;
    None for a module in a package no layer names."""
    rel = module[len(PACKAGE) + 1:] if module != PACKAGE else ""
    best = None
    for layer in LAYERS:
        for pkg in layer:
            if pkg and (rel == pkg or rel.startswith(pkg + ".")) and (best is None or len(pkg) > len(best)):
                best = pkg
    if best is None and "." not in rel:
        return ""
    return best


def upward_imports(graph: dict[str, set[str]]) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """Every import from a layer into the same or a higher one of another package, by package pair."""
    rank = {pkg: i for i, layer in enumerate(LAYERS) for pkg in layer}
    out: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for mod, deps in graph.items():
        a = _layer_of(mod)
        for dep in deps:
            b = _layer_of(dep)
            if a is None or b is None or a == b or rank[a] > rank[b]:
                continue
            out.setdefault((a, b), []).append((mod, dep))
    return {k: sorted(v) for k, v in sorted(out.items())}


def test_every_engine_package_has_a_layer():
    assert sorted(m for m in import_graph() if _layer_of(m) is None) == []


def test_packages_import_downward_only():
    """A new upward import fails here; a removed one must leave KNOWN_UPWARD too."""
    graph = import_graph()
    up = upward_imports(graph)
    assert {k: v for k, v in up.items() if k not in KNOWN_UPWARD} == {}
    present = {_layer_of(m) for m in graph}
    assert sorted(k for k in set(KNOWN_UPWARD) - set(up) if set(k) <= present) == []


def test_layer_check_sees_an_upward_import():
    graph = {f"{PACKAGE}.api.types": {f"{PACKAGE}.loader.load"}, f"{PACKAGE}.loader.load": {f"{PACKAGE}.api.types"},
             f"{PACKAGE}.simulation": {f"{PACKAGE}.api.types"}}
    assert upward_imports(graph) == {("api", "loader"): [(f"{PACKAGE}.api.types", f"{PACKAGE}.loader.load")]}
    assert _layer_of(f"{PACKAGE}.framework.plugins.helper.signing") == "framework.plugins.helper"
    assert _layer_of(f"{PACKAGE}.framework.plugins.nodename.node_name") == "framework.plugins"
    assert _layer_of(f"{PACKAGE}.simulation") == ""
    assert _layer_of(f"{PACKAGE}.nowhere.module") is None


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
