"""The compact checkpoint (scheduler_core/checkpoint.py): the replicas' shared spec objects written
once (shared live and restored), plain PodInfos rebuilt, a header before the engine.

Three kinds of proof:
- the engine restored from a compact checkpoint equals, attribute by attribute, the one restored
  from a plain pickle of the same engine (every class's own __getstate__/__setstate__ applies to
  both), on varied scenarios (the gallery's lessons: storage, devices, gangs, preemption, drains,
  the descheduler; the storage/DRA and gate conformance cases) checkpointed mid-run, and all of
  them, the original too, then run to the same events and results;
- the comparison itself fails when a component is dropped or changed (so the first proof can fail);
- replicas of one template share their spec's objects as loaded, and restored.
"""

from __future__ import annotations

import io
import json
import math
import pickle
import re
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scheduler_core import checkpoint
from scheduler_core.framework.interface import Plugin
from scheduler_core.framework.runtime.framework import Framework
from scheduler_core.framework.types import NO_TERMS, PodInfo
from scheduler_core.loader import load_scenario_file, load_scenario_text
from scheduler_core.simulation import CHECKPOINT_VERSION, Simulation

ROOT = Path(__file__).resolve().parents[3]
GALLERY = ROOT / "playground" / "gallery"
CONFORMANCE = ROOT.parent / "shared" / "conformance"
# Extender lessons call an HTTP extender; the extender's own tests cover their checkpoints.
SCENARIOS = sorted(p for p in GALLERY.glob("*.yaml") if not p.name.startswith("extender-")) + sorted(
    p for d in ("storage-dra", "gates") for p in (CONFORMANCE / d).glob("*.yaml"))
# Numbers a process hands out (NodeInfo generations): a restore takes its own, by design
# (tests/engine/simulation/test_restore_generations.py).
PROCESS_COUNTERS = frozenset({"generation"})
_ATOMS = (str, bytes, int, float, bool, type(None), complex)


def _gates(path: Path) -> str | None:
    """A conformance case's `# simulate-args: --feature-gates ...` line."""
    m = re.search(r"^# simulate-args:.*--feature-gates[ =](\S+)", path.read_text(), re.M)
    return m.group(1) if m else None


def _attrs(obj: Any) -> Iterator[tuple[str, Any]]:
    if hasattr(obj, "__dict__"):
        yield from vars(obj).items()
    for cls in type(obj).__mro__:
        for name in cls.__dict__.get("__slots__", ()):
            if name not in ("__dict__", "__weakref__") and hasattr(obj, name):
                yield name, getattr(obj, name)


def state_difference(a: Any, b: Any) -> str | None:
    """The path of the first place where two engines' object graphs differ (type, value, a
    missing attribute or item), or None. Frameworks and plugins (rebuilt on restore) compare by
    their profile and name; sharing is not compared (a restore shares equal pod specs)."""
    seen: set[tuple[int, int]] = set()
    stack: list[tuple[str, Any, Any]] = [("sim", a, b)]
    while stack:
        path, x, y = stack.pop()
        if type(x) is not type(y):
            return f"{path}: {type(x).__name__} != {type(y).__name__}"
        if isinstance(x, _ATOMS):
            if x != y and not (isinstance(x, float) and math.isnan(x) and math.isnan(y)):
                return f"{path}: {x!r} != {y!r}"
            continue
        if (id(x), id(y)) in seen:
            continue
        seen.add((id(x), id(y)))
        if isinstance(x, Framework):
            if x.profile_name != y.profile_name:
                return f"{path}: framework {x.profile_name} != {y.profile_name}"
        elif isinstance(x, Plugin):
            if x.name != y.name:
                return f"{path}: plugin {x.name} != {y.name}"
        elif isinstance(x, dict):
            if list(x) != list(y):
                return f"{path}: keys {sorted(map(str, x))[:5]}... != {sorted(map(str, y))[:5]}..."
            stack += [(f"{path}[{k!r}]", v, y[k]) for k, v in x.items()]
        elif isinstance(x, (list, tuple)):
            if len(x) != len(y):
                return f"{path}: {len(x)} items != {len(y)}"
            stack += [(f"{path}[{i}]", v, w) for i, (v, w) in enumerate(zip(x, y, strict=True))]
        elif isinstance(x, (set, frozenset)):
            if x != y:
                return f"{path}: {sorted(map(str, x ^ y))[:5]} in one only"
        elif isinstance(x, types.MethodType):
            if x.__func__ is not y.__func__:
                return f"{path}: method {x.__func__.__qualname__} != {y.__func__.__qualname__}"
            stack.append((f"{path}.__self__", x.__self__, y.__self__))
        elif isinstance(x, (types.FunctionType, types.BuiltinFunctionType, type)):
            if x is not y and getattr(x, "__qualname__", x) != getattr(y, "__qualname__", y):
                return f"{path}: {x!r} != {y!r}"
        elif hasattr(x, "getstate") and not hasattr(x, "__dict__"):  # random.Random and kin
            if x.getstate() != y.getstate():
                return f"{path}: generator state differs"
        else:
            xa, ya = dict(_attrs(x)), dict(_attrs(y))
            if not xa and not ya:  # stateless, or a value with its own equality
                if type(x).__eq__ is not object.__eq__ and x != y:
                    return f"{path}: {x!r} != {y!r}"
                continue
            if list(xa) != list(ya):
                return f"{path}: attributes {sorted(set(xa) ^ set(ya))} in one only"
            stack += [(f"{path}.{k}", v, ya[k]) for k, v in xa.items() if k not in PROCESS_COUNTERS]
    return None


class PlainPickler(checkpoint.EnginePickler):
    """The checkpoint's pickler without its departures but for frameworks and plugins:
    PodInfos pickled as plain objects (what the engine's classes themselves say to keep)."""

    def __init__(self, file: Any) -> None:
        super().__init__(file)
        self.dispatch_table = {cls: reduce for cls, reduce in self.dispatch_table.items() if cls is not PodInfo}


def plain_restore(sim: Simulation) -> Simulation:
    """The engine restored from a checkpoint written by PlainPickler."""
    header, engine = io.BytesIO(), io.BytesIO()
    pickle.dump({"version": CHECKPOINT_VERSION, "config": sim.scheduler.config,
                 "gates": sim.scheduler.feature_gates}, header)
    PlainPickler(engine).dump(sim)
    return Simulation.restore(header.getvalue() + engine.getvalue())


def _events(sim: Simulation) -> str:
    return json.dumps(sim.sink.events, sort_keys=True, default=str)


def _steps(sim: Simulation, n: int) -> None:
    for _ in range(n):
        if sim.step() not in ("cycle", "clock"):
            return


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_compact_checkpoint_restores_what_a_plain_one_does_and_runs_the_same(path: Path) -> None:
    scenario = load_scenario_file(path)
    for k in (1, 4, 9):
        sim = Simulation(scenario, seed=7, record_events=True, feature_gates=_gates(path))
        _steps(sim, k)
        sim.sink.events.clear()
        plain = plain_restore(sim)
        restored = Simulation.restore(sim.checkpoint())
        assert state_difference(plain, restored) is None
        assert state_difference(restored, Simulation.restore(restored.checkpoint())) is None  # and again
        for engine in (sim, restored, plain):
            engine.run()
        assert _events(restored) == _events(sim), f"events differ after a checkpoint at step {k}"
        assert _events(plain) == _events(sim)
        assert restored.result(True) == sim.result(True)


def _preemption() -> Simulation:
    sim = Simulation(load_scenario_file(GALLERY / "priority-preemption.yaml"), seed=3, record_events=True)
    _steps(sim, 3)
    return sim


def test_the_comparison_fails_when_a_component_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    sim = _preemption()
    restored = Simulation.restore(sim.checkpoint())
    assert state_difference(plain_restore(sim), restored) is None
    del restored.drains  # a whole component gone
    assert "attributes ['drains']" in (state_difference(plain_restore(sim), restored) or "")

    # A checkpoint whose plain PodInfos lose their cached requests (computed in the cycles run).
    monkeypatch.setattr(checkpoint, "_reduce_pod_info", lambda pi: (checkpoint._plain_pod_info, (pi.pod, None)))
    lossy = Simulation.restore(sim.checkpoint())
    assert "._resource" in (state_difference(plain_restore(sim), lossy) or "")


def test_the_comparison_sees_a_changed_pod_field() -> None:
    sim = _preemption()
    restored = Simulation.restore(sim.checkpoint())
    key = next(iter(restored.scheduler.cluster.pods))
    restored.scheduler.cluster.pods[key].nominated_node_name = "elsewhere"
    assert "nominated_node_name" in (state_difference(plain_restore(sim), restored) or "")


NODE = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "64", memory: 64Gi, pods: "200"}}
"""
# A dump's pods: each listed, so each parsed into its own objects.
POD = """---
apiVersion: v1
kind: Pod
metadata:
  name: web-%d
  labels: {app: web}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-5d8f, uid: rs-1, controller: true}]
spec:
  tolerations: [{key: dedicated, operator: Exists}]
  containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
"""
SPEC_FIELDS = ("labels", "containers", "tolerations", "owner_references", "annotations", "conditions")


def _dump(n: int) -> str:
    return NODE + "".join(POD % i for i in range(n))


def test_replicas_share_one_spec_live_and_restored() -> None:
    sim = Simulation(load_scenario_text(_dump(40), source="x"), seed=1)
    restored = Simulation.restore(sim.checkpoint())
    for engine in (sim, restored):  # shared as loaded, and so as restored
        pods = list(engine.scheduler.cluster.pods.values())
        assert len(pods) == 40
        for field in SPEC_FIELDS:
            assert len({id(getattr(p, field)) for p in pods}) == 1, field
        assert len({p.name for p in pods}) == 40 and len({p.uid for p in pods}) == 40
    assert state_difference(plain_restore(sim), restored) is None
    sim.run()
    restored.run()
    assert restored.result(True) == sim.result(True)


def test_a_pods_key_is_one_string_in_the_store_its_record_and_the_queue() -> None:
    """Pod.key is interned, so the store's map, its records, the ordered list of every pod and
    the queue's heap hold one string per pod (a checkpoint writes it once), live and restored."""
    sim = Simulation(load_scenario_text(_dump(40), source="x"), seed=1)
    sim.step()
    restored = Simulation.restore(sim.checkpoint())
    for engine in (sim, restored):
        cluster = engine.scheduler.cluster
        heap = engine.scheduler.queue.active_q.queue
        in_heap = {k: k for k in heap._items}
        assert len(in_heap) == 39
        records = {k: k for k in cluster.records}
        all_pods = {k: k for k in cluster.all_pods}
        for key in cluster.pods:
            assert records[key] is key and all_pods[key] is key
            assert key not in in_heap or in_heap[key] is key
        owners = {id(r.owner) for r in cluster.records.values()}
        assert len(owners) == 1  # "ReplicaSet/web-5d8f" once, not once per record


def test_pods_without_terms_or_gates_hold_no_empty_lists_live_and_restored() -> None:
    """A PodInfo without pod (anti-)affinity holds the one empty tuple for its four term lists,
    and an ungated queued pod the empty tuple for its gating events: immutable, so sharing them
    cannot leak a change between pods (a change in place would raise)."""
    sim = Simulation(load_scenario_text(_dump(40), source="x"), seed=1)
    sim.step()
    restored = Simulation.restore(sim.checkpoint())
    for engine in (sim, restored):
        queued = engine.scheduler.queue.active_q.queue.list()
        assert len(queued) == 39
        for qpi in queued:
            pi = qpi.pod_info
            assert (pi.required_affinity_terms is pi.required_anti_affinity_terms is pi.preferred_affinity_terms
                    is pi.preferred_anti_affinity_terms is NO_TERMS == ())
            assert qpi.gating_plugin_events == ()
        bound = [pi for ni in engine.scheduler.cache.nodes.values() for pi in ni.pods]
        assert bound and all(pi.required_affinity_terms == () for pi in bound)
