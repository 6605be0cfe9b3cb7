"""A run is a deterministic function of (scenario, seed, actions): checkpoints and replays must
reproduce a straight run exactly, event for event."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scheduler_core.loader import load_scenario_file
from scheduler_core.simulation import Simulation

CASES = Path(__file__).resolve().parents[3].parent / "shared" / "conformance" / "cases"
FILES = sorted(CASES.glob("*.yaml")) if CASES.exists() else []


def _dump(sim: Simulation) -> str:
    return json.dumps(sim.sink.events, sort_keys=True, default=str)


@pytest.mark.skipif(not FILES, reason="../shared/conformance is not beside the project")
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_checkpoint_at_k_then_replay_equals_straight_run(path: Path) -> None:
    scenario = load_scenario_file(path)
    straight = Simulation(scenario, seed=11, record_events=True)
    straight.run()
    for k in (0, 1, 2, 5):
        sim = Simulation(scenario, seed=11, record_events=True)
        for _ in range(k):
            if sim.step() not in ("cycle", "clock"):
                break
        before = list(sim.sink.events)
        restored = Simulation.restore(sim.checkpoint())
        assert restored.sink.events == []  # delivered events are not part of the state
        restored.run()
        combined = json.dumps(before + restored.sink.events, sort_keys=True, default=str)
        assert combined == _dump(straight), f"events differ after checkpoint at step {k}"
        assert restored.result(True) == straight.result(True)


def test_same_seed_same_events_and_fork_is_independent() -> None:
    if not FILES:
        pytest.skip("no cases")
    scenario = load_scenario_file(CASES / "v22-preemption-several.yaml")
    a = Simulation(scenario, seed=5, record_events=True)
    b = Simulation(scenario, seed=5, record_events=True)
    a.step()
    fork = a.fork()
    a.run()
    b.run()
    assert _dump(a) == _dump(b)
    fork.apply_manifest_action({"action": "cordon", "node": sorted(n.name for n in scenario.nodes)[0]})
    fork.run()
    assert _dump(fork) != _dump(a)  # the fork took its own path
    assert _dump(a) == _dump(b)  # and did not disturb the original


def test_score_weight_change_mid_run_survives_checkpoints() -> None:
    if not FILES:
        pytest.skip("no cases")
    scenario = load_scenario_file(CASES / "v09-node-affinity-preferred-selector.yaml")
    sim = Simulation(scenario, seed=2, record_events=True)
    sim.step()
    sim.apply_manifest_action({"action": "setScoreWeight", "plugin": "NodeAffinity", "weight": 50})
    assert sim.scheduler.profiles["default-scheduler"].score_weights["NodeAffinity"] == 50
    restored = Simulation.restore(sim.checkpoint())
    assert restored.scheduler.profiles["default-scheduler"].score_weights["NodeAffinity"] == 50
    assert scenario.config.profiles[0].plugins is None  # the scenario itself is untouched
    fresh = Simulation(scenario, seed=2)
    assert fresh.scheduler.profiles["default-scheduler"].score_weights["NodeAffinity"] == 2
    sim.run()
    restored.run()
    assert sim.result(True) == restored.result(True)


@pytest.mark.skipif(not FILES, reason="../shared/conformance is not beside the project")
def test_a_checkpoint_of_another_layout_is_refused_not_patched_up() -> None:
    """A checkpoint written before versions (the earlier persistent-id format, no "version")
    or by another CHECKPOINT_VERSION is refused before any engine state is built: its owner
    rebuilds from the log (the web: tests/web/services/runs/test_runs_checkpoint_version.py)."""
    import io
    import pickle

    from scheduler_core.framework.interface import Plugin
    from scheduler_core.framework.runtime.framework import Framework
    from scheduler_core.simulation import CHECKPOINT_VERSION, CheckpointVersionError

    class OldPickler(pickle.Pickler):
        def persistent_id(self, obj: object) -> object:
            if isinstance(obj, Framework):
                return ("framework", obj.profile_name)
            if isinstance(obj, Plugin) and isinstance(obj.handle, Framework):
                return ("plugin", obj.handle.profile_name, obj.name)
            return None

    scenario = load_scenario_file(FILES[0])
    sim = Simulation(scenario, seed=3)
    sim.step()
    buf = io.BytesIO()
    OldPickler(buf).dump(sim)
    unversioned = pickle.dumps({"config": sim.scheduler.config, "gates": sim.scheduler.feature_gates,
                                "engine": buf.getvalue()})
    newer = pickle.loads(sim.checkpoint())
    newer["version"] = CHECKPOINT_VERSION + 1
    for blob, found in ((unversioned, None), (pickle.dumps(newer), CHECKPOINT_VERSION + 1)):
        assert Simulation.checkpoint_version(blob) == found
        with pytest.raises(CheckpointVersionError) as refused:
            Simulation.restore(blob)
        assert refused.value.found == found

