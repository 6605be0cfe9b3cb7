"""Out-of-tree plugins: `--plugins` loads a module from outside the project, its plugin changes
placements as docs/plugins.md says, and every kind of bad module is refused with one line
(exit 2) that names it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from scheduler_core.__main__ import main
from scheduler_core.framework.api import NodeScore, PluginArgsError
from scheduler_core.framework.plugins.registry import IN_TREE_REGISTRY, forget_out_of_tree, get_registry

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "plugins"
SCENARIO = EXAMPLES / "allocatable-scenario.yaml"
BAD = Path(__file__).resolve().parent / "bad_plugin_modules"
ONE_POD = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: '4', memory: 8Gi, pods: '110'}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c}]}
"""


def _cli(tmp_path: Path, *args: str, pythonpath: list[Path]) -> subprocess.CompletedProcess[str]:
    """`python -m scheduler_core ARGS` run from an empty directory, the way a user outside the
    project runs it: only PYTHONPATH makes the engine and the plugin module importable."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in pythonpath)}
    return subprocess.run([sys.executable, "-m", "scheduler_core", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)


def _placements(stdout: str) -> dict[str, str]:
    return {p["name"]: p["node"] for p in json.loads(stdout)["pods"]}


def test_the_example_loads_from_outside_and_packs_the_small_node_first(tmp_path: Path) -> None:
    without_config = tmp_path / "plain.yaml"
    without_config.write_text(SCENARIO.read_text().split("\n---\n", 1)[1])
    with_plugin = _cli(tmp_path, "simulate", str(SCENARIO), "--plugins", "allocatable_plugin",
                       pythonpath=[ROOT, EXAMPLES])
    assert with_plugin.returncode == 0, with_plugin.stderr
    plain = _cli(tmp_path, "simulate", str(without_config), pythonpath=[ROOT])
    assert plain.returncode == 0, plain.stderr
    # As the docs say: Least allocatable fills "small" (4 CPUs) first; the default spreads by
    # free capacity, so "large" takes the first four pods.
    assert _placements(with_plugin.stdout) == {"web-1": "small", "web-2": "small", "web-3": "small",
                                               "web-4": "small", "web-5": "large", "web-6": "large"}
    assert _placements(plain.stdout) == {"web-1": "large", "web-2": "large", "web-3": "large",
                                         "web-4": "large", "web-5": "small", "web-6": "large"}


def test_trace_shows_the_plugins_normalized_scores(tmp_path: Path) -> None:
    out = _cli(tmp_path, "trace", str(SCENARIO), "--plugins", "allocatable_plugin", pythonpath=[ROOT, EXAMPLES])
    assert out.returncode == 0, out.stderr
    events = [json.loads(line) for line in out.stdout.splitlines()]
    first = next(e for e in events if e["type"] == "scores")
    assert first["pod"] == "default/web-1" and first["nodes"] == ["large", "small"]
    # Raw: minus the weighted mean of allocatable millicores and bytes (weights 2^20 and 1):
    # large -(16000 * 2^20 + 32 GiB) / (2^20 + 1), small -(4000 * 2^20 + 8 GiB) / (2^20 + 1).
    assert first["raw"]["NodeResourcesAllocatable"] == [-(16000 * 2**20 + 32 * 2**30) // (2**20 + 1) + 1,
                                                        -(4000 * 2**20 + 8 * 2**30) // (2**20 + 1) + 1]
    assert first["raw"]["NodeResourcesAllocatable"] == [-48767, -12191]
    assert first["normalized"]["NodeResourcesAllocatable"] == [0, 100]
    assert first["weights"]["NodeResourcesAllocatable"] == 5


def test_without_plugins_the_scenario_names_the_unknown_plugin(tmp_path: Path) -> None:
    out = _cli(tmp_path, "simulate", str(SCENARIO), pythonpath=[ROOT])
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        f"error: {SCENARIO}: document 1 (KubeSchedulerConfiguration): profiles[0].plugins.score.enabled[0].name: "
        'ScorePlugin "NodeResourcesAllocatable" does not exist']


def test_a_missing_module_is_one_line_from_outside(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(ONE_POD)
    out = _cli(tmp_path, "simulate", "s.yaml", "--plugins", "no_such_plugin_module", pythonpath=[ROOT])
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == ("error: --plugins: module 'no_such_plugin_module' not found "
                          "(install it, or put its directory on PYTHONPATH)\n")


@pytest.fixture
def bad_modules(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The bad modules importable in this process; whatever they register is forgotten after."""
    monkeypatch.syspath_prepend(str(BAD))
    monkeypatch.syspath_prepend(str(EXAMPLES))
    before = set(sys.modules)
    yield BAD
    forget_out_of_tree(["Exploding", "NodeResourcesAllocatable"])
    for name in set(sys.modules) - before:
        del sys.modules[name]


@pytest.mark.parametrize(("module", "message"), [
    ("no_register", "module 'no_register' has no register(registry) function: a plugin module registers "
                    "its plugins there (see docs/plugins.md)"),
    ("clashes_in_tree", "module 'clashes_in_tree': a plugin named \"NodeResourcesFit\" already exists "
                        "(an in-tree plugin)"),
    ("raises_on_import", "importing module 'raises_on_import' failed: RuntimeError: the plugin's "
                         "configuration file is missing"),
    ("needs_missing_dependency", "importing module 'needs_missing_dependency' failed: ModuleNotFoundError: "
                                 "No module named 'scheduler_plugin_dependency_not_installed'"),
    ("wrong_name", "module 'wrong_name': plugin 'SpreadAlias': its class Spread declares name = 'Spread'; "
                   "the registered name and the class's `name` must be the same"),
    ("1bad", "'1bad' is not a Python module name (dotted identifiers, e.g. my_plugins.capacity)"),
])
def test_bad_modules_are_one_clear_line(bad_modules: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        module: str, message: str) -> None:
    (tmp_path / "s.yaml").write_text(ONE_POD)
    # A good module listed first is not registered either: a refused list changes nothing.
    assert main(["simulate", str(tmp_path / "s.yaml"), "--plugins", f"allocatable_plugin,{module}"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"error: --plugins: {message}\n"
    assert get_registry() is IN_TREE_REGISTRY


def test_a_plugin_that_raises_when_built_is_named(bad_modules: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                        "profiles:\n- plugins:\n    filter:\n      enabled: [{name: Exploding}]\n---\n" + ONE_POD)
    assert main(["simulate", str(scenario), "--plugins", "explodes_when_built"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err == (f"error: {scenario}: document 1 (KubeSchedulerConfiguration): profiles[0]: creating profile "
                   "for scheduler name default-scheduler: profile 'default-scheduler': initializing plugin "
                   "'Exploding': cannot reach the inventory service\n")


def test_a_plugin_that_does_not_implement_the_point_is_refused(bad_modules: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                        "profiles:\n- plugins:\n    filter:\n      enabled: [{name: NodeResourcesAllocatable}]\n"
                        "---\n" + ONE_POD)
    assert main(["simulate", str(scenario), "--plugins", "allocatable_plugin"]) == 2
    assert capsys.readouterr().err == (
        f"error: {scenario}: document 1 (KubeSchedulerConfiguration): profiles[0].plugins.filter.enabled[0].name: "
        'plugin "NodeResourcesAllocatable" does not extend FilterPlugin plugin\n')


@pytest.mark.parametrize(("args", "message"), [
    ("{mode: Middle}", "NodeResourcesAllocatable: invalid mode, got Middle"),
    ("{resources: [{name: cpu, weight: 0}]}",
     "NodeResourcesAllocatable: resource Weight of cpu should be a positive value, got 0"),
    ("{mdoe: Most}", 'NodeResourcesAllocatable: unknown field "mdoe" (known: mode, resources)'),
])
def test_the_examples_args_are_validated(bad_modules: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         args: str, message: str) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                        "profiles:\n- plugins:\n    score:\n      enabled: [{name: NodeResourcesAllocatable}]\n"
                        f"  pluginConfig:\n  - name: NodeResourcesAllocatable\n    args: {args}\n---\n" + ONE_POD)
    assert main(["simulate", str(scenario), "--plugins", "allocatable_plugin"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_normalize_maps_the_raw_range_onto_0_to_100(bad_modules: Path) -> None:
    import allocatable_plugin

    plugin = allocatable_plugin.NodeResourcesAllocatable({"mode": "Most"}, None)
    scores = [NodeScore("a", -7), NodeScore("b", 13), NodeScore("c", 3)]
    assert plugin.normalize_score(None, None, scores) is None  # type: ignore[arg-type]
    assert [s.score for s in scores] == [0, 100, 50]
    same = [NodeScore("a", 5), NodeScore("b", 5)]
    plugin.normalize_score(None, None, same)  # type: ignore[arg-type]
    assert [s.score for s in same] == [0, 0]
    # Go's integer division truncates toward zero: (-3 * 1) // 2 is -1 there, not -2.
    assert allocatable_plugin._div_toward_zero(-3, 2) == -1
    with pytest.raises(PluginArgsError):
        allocatable_plugin.NodeResourcesAllocatable({"resources": "cpu"}, None)


def test_the_docs_filter_example_rejects_other_teams(bad_modules: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text("""\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- plugins:
    multiPoint:
      enabled: [{name: TeamNodes}]
---
apiVersion: v1
kind: Node
metadata: {name: a, labels: {team: blue}}
status: {capacity: {cpu: '4', memory: 8Gi, pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: b, labels: {team: red}}
status: {capacity: {cpu: '4', memory: 8Gi, pods: '110'}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, labels: {team: red}}
spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: q, labels: {team: green}}
spec: {containers: [{name: c}]}
""")
    try:
        assert main(["simulate", str(scenario), "--plugins", "team_nodes"]) == 0
    finally:
        forget_out_of_tree(["TeamNodes"])
    pods = {p["name"]: p for p in json.loads(capsys.readouterr().out)["pods"]}
    assert pods["p"]["node"] == "b"
    assert pods["q"]["status"] == "Pending"
    assert pods["q"]["message"].startswith("0/2 nodes are available: 2 node(s) didn't match the pod's team.")


def test_a_factory_function_gets_its_registered_name_and_must_build_a_plugin(tmp_path: Path) -> None:
    from scheduler_core.api.errors import ScenarioError
    from scheduler_core.framework.api import FilterPlugin, Registry
    from scheduler_core.loader import load_scenario_text

    class Anonymous(FilterPlugin):
        def filter(self, state, pod, node_info):  # noqa: ANN001, ANN201
            return None

    registry = Registry()
    registry.register("FromFunction", lambda args, handle: Anonymous(args, handle))
    registry.register("NotAPlugin", lambda args, handle: object())
    config = ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
              "profiles:\n- plugins:\n    filter:\n      enabled: [{name: %s}]\n---\n")
    try:
        scenario = load_scenario_text(config % "FromFunction" + ONE_POD)
        from scheduler_core.simulation import Simulation

        sim = Simulation(scenario, seed=0)
        assert sim.scheduler.profiles["default-scheduler"].plugins_map["FromFunction"].name == "FromFunction"
        with pytest.raises(ScenarioError, match="initializing plugin 'NotAPlugin': its factory returned object, "
                                                "not a Plugin"):
            load_scenario_text(config % "NotAPlugin" + ONE_POD)
    finally:
        forget_out_of_tree(["FromFunction", "NotAPlugin"])
    assert get_registry() is IN_TREE_REGISTRY


def test_loading_the_same_modules_again_changes_nothing(bad_modules: Path) -> None:
    from scheduler_core.framework.plugins.plugin_modules import load_plugin_modules
    from scheduler_core.framework.plugins.registry import out_of_tree_names

    assert load_plugin_modules("allocatable_plugin") == ["NodeResourcesAllocatable"]
    cls = get_registry()["NodeResourcesAllocatable"]
    assert load_plugin_modules(["allocatable_plugin", " "]) == ["NodeResourcesAllocatable"]
    assert out_of_tree_names() == ["NodeResourcesAllocatable"] and get_registry()["NodeResourcesAllocatable"] is cls
    assert "NodeResourcesAllocatable" in get_registry() and "NodeResourcesFit" in get_registry()
