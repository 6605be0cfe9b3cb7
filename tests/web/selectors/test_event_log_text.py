"""The event log reads as text, not as Python: no `None`, no dict or list repr with its quotes and
brackets, no True/False, for every event of every gallery run."""

from __future__ import annotations

import re

import pytest

from playground.selectors.gallery import gallery_entries
from playground.templatetags.run_tags import event_summary
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

# A Python repr in a line: None, a field=True/False (a condition such as Ready=False is Kubernetes notation), or a dict/list repr ({'…' or ['…).
PYTHON_TEXT = re.compile(r"\bNone\b|\b[a-z_]+=(?:True|False)\b|\{'|\['|\{\}|\[\]")
ENTRIES = [e for e in gallery_entries() if not e.slug.startswith("extender")]  # no extender server here


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.slug for e in ENTRIES])
def test_no_python_text_in_any_log_line(entry) -> None:  # noqa: ANN001
    sim = Simulation(load_scenario_text(entry.text, source=entry.path.name), seed=0, record_events=True,
                     feature_gates=entry.feature_gates or None)
    sim.run(3600.0)
    lines = {e["type"]: event_summary(e) for e in sim.sink.events if PYTHON_TEXT.search(event_summary(e))}
    assert lines == {}


def test_values_are_written_out() -> None:
    assert event_summary({"type": "cluster_action", "action": "addTaint",
                          "params": {"node": "worker-1", "taint": "maintenance"}}) == "addTaint node worker-1, taint maintenance"
    assert event_summary({"type": "selected", "pod": "default/a", "node": "n1", "score": None, "ties": ["n1"]}) == \
        "default/a → n1 (the only feasible node: not scored)"
    assert "chose no node" in event_summary({"type": "preemption", "pod": "p", "candidates": [], "chosen": None, "why": "x"})
    line = event_summary({"type": "descheduler_finished", "trigger": "interval", "evicted": ["default/a"],
                          "recreated": [], "usage": {"cpu": 75.0}, "node": ""})
    assert line == "trigger=interval, evicted=default/a, usage=cpu 75.0"
