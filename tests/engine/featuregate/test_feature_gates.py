"""--feature-gates: validation against the modelled version's table (upstream wording, exit 2),
and what a valid setting changes (the run document, the default profile)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scheduler_core.featuregate import FeatureGateError, parse_feature_gates, spec_at
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

ROOT = Path(__file__).resolve().parents[3]

SCENARIO = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "2", memory: 8Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
"""


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    f = tmp_path / "s.yaml"
    f.write_text(SCENARIO)
    return subprocess.run([sys.executable, "-m", "scheduler_core", "simulate", str(f), *args],
                          cwd=ROOT, capture_output=True, text=True)


@pytest.mark.parametrize(("value", "version", "message"), [
    ("NoSuchGate=true", "v1.35", "unrecognized feature gate: NoSuchGate"),
    ("GangScheduling=true", "v1.35",
     "GangScheduling is enabled, but depends on features that are disabled: [GenericWorkload]"),
    ("SchedulerQueueingHints=false", "v1.35",
     "cannot set feature gate SchedulerQueueingHints to false, feature is locked to true"),
    ("GangScheduling=true,GenericWorkload=true", "v1.30", "unrecognized feature gate: GangScheduling"),
    ("GenericWorkload", "v1.35", "missing bool value for GenericWorkload"),
    ("GenericWorkload=yes", "v1.35",
     'invalid value of GenericWorkload=yes, err: strconv.ParseBool: parsing "yes": invalid syntax'),
    ("SchedulerQueueingHints=false,DynamicResourceAllocation=false", "v1.35",
     "[cannot set feature gate SchedulerQueueingHints to false, feature is locked to true, "
     "cannot set feature gate DynamicResourceAllocation to false, feature is locked to true]"),
])
def test_refused_with_upstream_wording(value: str, version: str, message: str) -> None:
    with pytest.raises(FeatureGateError) as e:
        parse_feature_gates(value, version)
    assert str(e.value) == message


def test_valid_settings_keep_only_non_defaults() -> None:
    assert parse_feature_gates("GenericWorkload=true,GangScheduling=true,OpportunisticBatching=true", "v1.35") == {
        "GangScheduling": True, "GenericWorkload": True}
    # A beta gate that was off at v1.30 may be turned on there, and is what the run models.
    assert parse_feature_gates("SchedulerQueueingHints=true", "v1.30") == {"SchedulerQueueingHints": True}
    assert spec_at("GangScheduling", "v1.30") is None


def test_cli_refuses_with_exit_2(tmp_path: Path) -> None:
    p = _cli(tmp_path, "--feature-gates", "GangScheduling=true")
    assert p.returncode == 2
    assert p.stdout == ""
    *notes, error = p.stderr.strip().splitlines()
    assert error == ('error: invalid argument "GangScheduling=true" for "--feature-gates" flag: '
                     'GangScheduling is enabled, but depends on features that are disabled: '
                     '[GenericWorkload]')
    # Before the refusal, the note on what became of the gate after v1.35 (only notes).
    assert notes and all(n.startswith("note: feature gate GangScheduling: removed in v1.37") for n in notes)
    p = _cli(tmp_path, "--feature-gates", "Nope=true")
    assert p.returncode == 2 and "unrecognized feature gate: Nope" in p.stderr


def test_cli_reports_the_non_default_gates(tmp_path: Path) -> None:
    p = _cli(tmp_path, "--feature-gates", "GenericWorkload=true,GangScheduling=true,OpportunisticBatching=true")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["featureGates"] == {"GangScheduling": True, "GenericWorkload": True}
    plain = json.loads(_cli(tmp_path).stdout)
    assert "featureGates" not in plain


def test_gates_add_the_alpha_plugins_to_the_default_profile() -> None:
    sc = load_scenario_text(SCENARIO)
    names = Simulation(sc).scheduler.profiles["default-scheduler"].plugin_names()
    flat = {n for v in names.values() for n in v} if isinstance(names, dict) else set(names)
    assert "GangScheduling" not in flat and "NodeDeclaredFeatures" not in flat
    sim = Simulation(load_scenario_text(SCENARIO),
                     feature_gates="GenericWorkload=true,GangScheduling=true,NodeDeclaredFeatures=true")
    names = sim.scheduler.profiles["default-scheduler"].plugin_names()
    flat = {n for v in names.values() for n in v} if isinstance(names, dict) else set(names)
    assert {"GangScheduling", "NodeDeclaredFeatures"} <= flat


def test_trace_takes_the_gates_and_names_them_first(tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(SCENARIO)
    argv = [sys.executable, "-m", "scheduler_core", "trace", str(f)]
    on = subprocess.run([*argv, "--feature-gates", "GenericWorkload=true"], cwd=ROOT, capture_output=True, text=True)
    assert on.returncode == 0, on.stderr
    assert json.loads(on.stdout.splitlines()[0])["featureGates"] == {"GenericWorkload": True}
    off = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    assert "featureGates" not in json.loads(off.stdout.splitlines()[0])
    bad = subprocess.run([*argv, "--feature-gates", "GangScheduling=true"], cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stdout == "" and "depends on features that are disabled" in bad.stderr
