"""The shared SKIP status (status.SKIP) that PreFilter, PreScore and PreBindPreFlight answer
with: nothing can change it, it survives pickling (checkpoints) as itself, and a whole run
leaves it as it was."""

from __future__ import annotations

import copy
import pickle

import pytest

from scheduler_core.framework.status import SKIP, Code
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation


def test_the_shared_skip_cannot_change() -> None:
    for name, value in (("plugin", "NodePorts"), ("code", Code.ERROR), ("reasons", ["x"])):
        with pytest.raises(AttributeError):
            setattr(SKIP, name, value)
    assert pickle.loads(pickle.dumps(SKIP)) is SKIP
    assert copy.deepcopy(SKIP) is SKIP and copy.copy(SKIP) is SKIP


def test_a_run_leaves_it_as_it_was() -> None:
    docs = [f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i}}}\nstatus: {{capacity: {{cpu: '2', pods: '3'}}}}"
            for i in range(3)]
    docs += [f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}}}\nspec:\n  containers:\n"
             "  - {name: c, resources: {requests: {cpu: 900m}}}" for i in range(8)]
    sim = Simulation(load_scenario_text("\n---\n".join(docs)), record_events=True)
    sim.run()
    skipped = [r for e in sim.sink.events if e["type"] == "prefilter" for r in e["results"] if r["code"] == "Skip"]
    assert skipped
    assert (SKIP.code, SKIP.reasons, SKIP.plugin, SKIP.err, SKIP.cause) == (Code.SKIP, [], "", "", None)
