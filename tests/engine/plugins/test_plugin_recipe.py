"""docs/architecture.md's recipe for a scheduler plugin, followed step by step with a throwaway one.

In-tree: a module of its own, its name in `names.py`, its dotted path in `registry.py`, its
extension points in `IN_TREE_PLUGINS`, its place in the default profile, typed args in
`ARGS_SCHEMA` and a `sign_pod`. A test cannot add a package under `scheduler_core/`, so the
module is written to a temporary directory and each documented place gets its entry through
monkeypatch; if the recipe missed a place the plugin needs, these tests fail. Out-of-tree: a
module outside the project with `register(registry)`, loaded as `--plugins` loads it, enabled
by a profile. Either way the run must show the plugin's verdicts and scores in its events, the
stream the run page is drawn from (tests/web/test_plugin_recipe_web.py checks the page).
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.config import defaults
from scheduler_core.framework.plugins import names, registry
from scheduler_core.framework.plugins.plugin_modules import load_plugin_modules
from scheduler_core.loader import config_validation, load_scenario_text, scheduler_config
from scheduler_core.simulation import Simulation

NAME = "RecipeVeto"

# The throwaway plugin, written as the recipe's module would be: Filter (nodes labelled
# `<labelKey>=veto` are rejected) and Score (nodes labelled `<labelKey>=best` get 100), args
# validated in the constructor, and a `sign_pod` so opportunistic batching stays on.
PLUGIN_SOURCE = '''
from scheduler_core.framework.api import (
    Code, FilterPlugin, PluginArgsError, Registry, ScorePlugin, Status,
)


class RecipeVeto(FilterPlugin, ScorePlugin):
    name = "RecipeVeto"

    def __init__(self, args=None, handle=None):
        super().__init__(args, handle)
        self.key = self.args.get("labelKey", "recipe")
        if not isinstance(self.key, str) or not self.key:
            raise PluginArgsError("RecipeVeto: labelKey: must be a non-empty string")

    def filter(self, state, pod, node_info):
        if node_info.node.labels.get(self.key) == "veto":
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) were vetoed by the recipe")
        return None

    def score(self, state, pod, node_info):
        return (100 if node_info.node.labels.get(self.key) == "best" else 0), None

    def score_extensions(self):
        return None

    def sign_pod(self, pod):
        return ()  # the answer depends on the node only: every pod signs alike


def register(registry: Registry) -> None:
    registry.register("RecipeVeto", RecipeVeto)
'''

NODES = """
apiVersion: v1
kind: Node
metadata: {name: plain, labels: {recipe: none}}
status: {capacity: {cpu: '8', memory: 16Gi, pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: best, labels: {recipe: best}}
status: {capacity: {cpu: '8', memory: 16Gi, pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: vetoed, labels: {recipe: veto}}
status: {capacity: {cpu: '64', memory: 128Gi, pods: '110'}}
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: c, resources: {requests: {cpu: '1'}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: huge}
spec:
  containers: [{name: c, resources: {requests: {cpu: '32'}}}]
"""

PROFILE = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      enabled: [{name: RecipeVeto, weight: 5}]
  pluginConfig:
  - name: RecipeVeto
    args: {labelKey: recipe}
---
"""


@pytest.fixture
def plugin_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The plugin's module, importable as `recipe_veto` (a new module per test)."""
    (tmp_path / "recipe_veto.py").write_text(textwrap.dedent(PLUGIN_SOURCE))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "recipe_veto", raising=False)
    return "recipe_veto"


@pytest.fixture
def in_tree(plugin_module: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The in-tree recipe's places, each given the throwaway plugin's entry."""
    monkeypatch.setattr(names, "RECIPE_VETO", NAME, raising=False)  # its name in names.py
    monkeypatch.setitem(registry.IN_TREE_PLUGIN_PATHS, NAME, f"{plugin_module}:RecipeVeto")  # its dotted path
    monkeypatch.setitem(scheduler_config.IN_TREE_PLUGINS, NAME, frozenset({"filter", "score"}))  # its points
    monkeypatch.setattr(defaults, "DEFAULT_MULTI_POINT", (*defaults.DEFAULT_MULTI_POINT, (NAME, 5)))  # default profile
    monkeypatch.setitem(config_validation.ARGS_SCHEMA, NAME, {"labelKey": None})  # typed args
    # TYPED_ARGS is ARGS_SCHEMA's keys, taken when the module is imported (as an edit of the file would)
    monkeypatch.setattr(config_validation, "TYPED_ARGS", frozenset(config_validation.ARGS_SCHEMA))
    yield
    registry._cache.pop(NAME, None)  # the classes the lazy registry imported
    registry.IN_TREE_REGISTRY.pop(NAME, None)


@pytest.fixture
def out_of_tree(plugin_module: str) -> Iterator[None]:
    """The out-of-tree recipe: the module loaded as `--plugins recipe_veto` loads it."""
    assert load_plugin_modules([plugin_module]) == [NAME]
    yield
    registry.forget_out_of_tree([NAME])


def _run(text: str) -> tuple[Simulation, list[dict[str, Any]]]:
    sim = Simulation(load_scenario_text(text, source="recipe"), record_events=True)
    assert sim.run()
    return sim, sim.sink.drain()


def _check_the_run_shows_the_plugin(sim: Simulation, events: list[dict[str, Any]], weight: int) -> None:
    """Its Filter verdict and its Score reach the event stream (the run page's source)."""
    placed = {p.name: p.node_name for p in sim.apiserver.cluster.pods.values()}
    assert placed["web"] == "best"  # the plugin's 100 x weight decided it
    assert placed["huge"] in ("", None)  # only `vetoed` has 32 CPUs, and the plugin rejects it
    scores = next(e for e in events if e["type"] == "scores" and e["pod"] == "default/web")
    assert NAME in scores["raw"] and scores["weights"][NAME] == weight
    by_node = dict(zip(scores["nodes"], scores["raw"][NAME], strict=True))
    assert by_node == {"plain": 0, "best": 100}
    failed = [e for e in events if e["type"] == "k8s_event" and e.get("reason") == "FailedScheduling"]
    assert failed and "1 node(s) were vetoed by the recipe" in failed[0]["message"]
    assert sim.scheduler.batchable["default-scheduler"] is not None  # sign_pod kept batching on


def test_in_tree_the_default_profile_runs_it(in_tree: None) -> None:
    sim, events = _run(NODES)
    _check_the_run_shows_the_plugin(sim, events, weight=5)


def test_in_tree_its_typed_args_are_checked_where_the_scenario_says(in_tree: None) -> None:
    sim, events = _run(PROFILE + NODES)
    _check_the_run_shows_the_plugin(sim, events, weight=5)
    with pytest.raises(ScenarioError) as refused:
        load_scenario_text(PROFILE.replace("labelKey: recipe", "labelKee: recipe") + NODES, source="recipe")
    assert 'profiles[0].pluginConfig[0].args.labelKee: unknown field "labelKee"' in str(refused.value)
    with pytest.raises(ScenarioError) as refused:
        load_scenario_text(PROFILE.replace("labelKey: recipe", "labelKey: ''") + NODES, source="recipe")
    # ARGS_SCHEMA also has the constructor's PluginArgsError placed at the args' field.
    assert "profiles[0].pluginConfig[0].args.labelKey: must be a non-empty string" in str(refused.value)


def test_out_of_tree_a_profile_enables_it(out_of_tree: None) -> None:
    sim, events = _run(PROFILE + NODES)
    _check_the_run_shows_the_plugin(sim, events, weight=5)
    # Out-of-tree plugins are never in the default profile.
    sim, events = _run(NODES)
    assert not any(NAME in e.get("raw", {}) for e in events if e["type"] == "scores")


def test_without_the_recipe_the_name_is_unknown() -> None:
    with pytest.raises(ScenarioError) as refused:
        load_scenario_text(PROFILE + NODES, source="recipe")
    assert NAME in str(refused.value)
