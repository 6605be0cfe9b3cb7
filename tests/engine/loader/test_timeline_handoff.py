"""The loader parses Timeline documents with the parser the package's root hands it
(scheduler_core/actions/timeline.py), without importing the actions, which sit above it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from scheduler_core.actions.timeline import parse_timeline as actions_parse_timeline
from scheduler_core.api.scenario import Scenario
from scheduler_core.loader import timeline as loader_timeline
from scheduler_core.loader.reader import FieldReader, Location

ROOT = Path(__file__).resolve().parents[3]
SCENARIO = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: '4', pods: '10'}}
---
apiVersion: playground.kube-scheduler.dev/v1
kind: Timeline
actions:
- {at: 5, action: cordon, node: n1}
- {at: 9, action: cordon, node: n2}
"""


def test_a_fresh_process_that_imports_only_the_loader_parses_timelines():
    """Importing the loader alone (no module of scheduler_core.actions named) still gives the
    actions' parser, its located errors included: the package's root handed it in."""
    code = ("import sys\n"
            "from scheduler_core.loader import load_scenario_text, ScenarioError\n"
            "try:\n"
            "    load_scenario_text(sys.stdin.read())\n"
            "except ScenarioError as e:\n"
            "    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], input=SCENARIO, capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    assert out.strip() == '<input>: document 2 (Timeline): actions[1].node: node "n2" does not exist at t=9'


def test_the_loader_uses_the_handed_parser():
    assert loader_timeline._PARSER == [actions_parse_timeline]


def test_without_a_parser_the_loader_says_what_is_missing(monkeypatch):
    monkeypatch.setattr(loader_timeline, "_PARSER", [])
    r = FieldReader(Location("<t>", 1, "Timeline"))
    with pytest.raises(RuntimeError, match="no Timeline parser was handed to the loader"):
        loader_timeline.parse_timeline(r, {"actions": []}, None, Scenario(), 0)  # type: ignore[arg-type]
