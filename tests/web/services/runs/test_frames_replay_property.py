"""Frames equal replay, always: every stored frame's view is the view a fresh engine gives after
replaying the run's log up to that frame.

A run page shows stored frames (`playground.frame_views`: keyframes and deltas built from what
the engine says it changed); the truth is the log (scenario, seed, units). Random sequences of
every run action (steps, Step to the next point, plays, both clock actions, every cluster action
with failBind, node conditions and descheduler passes among them, forks) are driven through the
worker's own code path (`advance_run`, executed in this process as the Celery task would), by
several simulated worker processes: each has its own engine cache and, as a real process has,
its own NodeInfo generation counter (`scheduler_core.framework.types._generation`). Actions move
between them at random and they restart at random, so an engine is sometimes kept between
actions and sometimes rebuilt from a checkpoint that another process wrote (the web process
writes checkpoint 0 at the start, workers the later ones). Randomness: `random.Random(seed)`
per sequence, so a failure names the seed that replays it.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest

from playground import frame_views, keyframe_rule
from playground.models import Run, RunAction
from playground.selectors import frame_views as view_selector
from playground.services.runs import actions as svc
from playground.services.runs import dispatch, units
from playground.services.runs import engine as run_engine
from playground.services.runs import forms as run_forms
from playground.services.runs import worker as run_worker
from playground.services.runs.cache import EngineCache
from playground.services.runs.errors import RunError
from scheduler_core.framework import types as node_types
from tests.web.services.runs.test_runs_services import OWNER, gallery_scenario

pytestmark = pytest.mark.django_db

SEQUENCES = 200
# Small gallery scenarios whose runs evict, preempt, fail bindings, react to node conditions,
# scale Deployments and deschedule.
SCENARIOS = (
    "descheduler-rebalance",
    "priority-preemption",
    "preemption-pdb",
    "node-not-ready",
    "noexecute-eviction",
    "bind-failure",
    "deployments-daemonsets",
    "taints-tolerations",
)
PLAY_UNITS = 15  # a play (and a clock action) executes at most this many units here


@dataclass
class Process:
    """A simulated process: its engine cache and its NodeInfo generation counter."""

    name: str
    counter: Any
    cache: EngineCache = field(default_factory=lambda: EngineCache(4))


@dataclass
class World:
    """The web process and the worker processes of one sequence. Their counters start close to
    each other, so the generations one hands out overlap those another's checkpoints carry."""

    rng: random.Random
    web: Process
    workers: list[Process]
    low: int  # the smallest counter start of the sequence
    current: Process | None = None  # the worker the next queued action goes to
    restarts: int = 0

    def high_water(self) -> int:
        """The highest generation any process has handed out (roughly: one value is used up)."""
        return max(next(p.counter) for p in (self.web, *self.workers))

    def restart(self, i: int) -> None:
        """Worker `i` dies and a new process takes its place: an empty cache, and its own
        counter, somewhere in the range the processes have used so far (a process's counter
        counts whatever that process did before; where it stands is arbitrary)."""
        self.workers[i] = Process(f"w{i}'", itertools.count(self.rng.randint(self.low, self.high_water())))
        self.restarts += 1


@contextmanager
def running_in(proc: Process) -> Iterator[None]:
    """Engine work done here counts NodeInfo generations with `proc`'s counter."""
    saved = node_types._generation
    node_types._generation = proc.counter
    try:
        yield
    finally:
        proc.counter = node_types._generation
        node_types._generation = saved


@pytest.fixture
def world(
    monkeypatch: pytest.MonkeyPatch,
    redis_url: str,
    settings: Any,
    channel_layer: Any,
    django_capture_on_commit_callbacks: Any,
) -> dict[str, Any]:
    """Queued actions are executed at once by `state["world"].current`'s process."""
    settings.REDIS_URL = redis_url
    state: dict[str, Any] = {"capture": django_capture_on_commit_callbacks}

    def schedule(run_id: int, index: int, **_: object) -> None:
        proc = state["world"].current
        with running_in(proc):
            run_worker.advance_run(run_id, cache=proc.cache)

    monkeypatch.setattr(dispatch, "schedule", schedule)
    monkeypatch.setattr(units, "MAX_PLAY_UNITS", PLAY_UNITS)
    state["monkeypatch"] = monkeypatch
    return state


def _pod_manifest(name: str, cpu: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "app", "image": run_forms.PAUSE_IMAGE,
                                     "resources": {"requests": {"cpu": cpu, "memory": "128Mi"}}}]}}


def _cluster_action(rng: random.Random, view: dict[str, Any], n: int) -> dict[str, Any] | None:
    """A random cluster action on what the head's view shows (None: nothing fits). It may delete
    a node or a pod the scenario's Timeline acts on later: the due action is then refused as the
    API server refuses it (a `timeline_action_failed` event) and the run goes on."""
    nodes = [node["name"] for node in view.get("nodes", [])]
    live = [p["key"] for p in view.get("pods", []) if p["status"] != "Deleted"]
    pending = [p["key"] for p in view.get("pods", []) if p["status"] == "Pending"]
    choices: list[dict[str, Any]] = [
        {"action": "addPod", "pod": _pod_manifest(f"extra-{n}", rng.choice(["100m", "500m", "1", "2"]))},
        {"action": "addNode", "node": {
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": f"extra-node-{n}", "labels": {"kubernetes.io/hostname": f"extra-node-{n}"}},
            "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}},
    ]
    if live:
        choices.append({"action": "deletePod", "pod": rng.choice(live)})
    if pending:
        choices.append({"action": "failBind", "pod": rng.choice(pending)})
    if nodes:
        node = rng.choice(nodes)
        effect = rng.choice(["NoSchedule", "NoExecute", "PreferNoSchedule"])
        choices += [
            {"action": rng.choice(["cordon", "uncordon"]), "node": node},
            {"action": "setNodeCondition", "node": node, "status": rng.choice(["False", "Unknown", "True"])},
            {"action": "addTaint", "node": node, "taint": {"key": "flaky", "effect": effect}},
            {"action": "removeTaint", "node": node, "key": "flaky"},
            {"action": "setNodeLabels", "node": node, "labels": {"tier": rng.choice(["a", "b"])}},
        ]
        if len(nodes) > 1 and rng.random() < 0.3:
            choices.append({"action": "deleteNode", "node": node})
    for deployment in view.get("deployments") or []:
        choices.append({"action": "scaleDeployment", "name": deployment["name"],
                        "namespace": deployment["namespace"], "replicas": rng.randint(0, 5)})
    return rng.choice(choices)


def _enqueue(state: dict[str, Any], run: Run, kind: str, params: dict[str, Any] | None = None) -> None:
    world: World = state["world"]
    world.current = world.rng.choice(world.workers)
    try:
        with state["capture"](execute=True):
            svc.run_enqueue(run=run, actor=OWNER, kind=kind, params=params)
    except RunError:
        pass  # refused before it was queued (preflight): the log did not change


def _drive(state: dict[str, Any], seed: int) -> tuple[list[Run], str]:
    """One random sequence; returns the runs it made (a fork continues on its own) and the
    scenario's slug."""
    rng = random.Random(seed)
    world: World = state["world"]
    slug = rng.choice(SCENARIOS)
    monkeypatch = state["monkeypatch"]
    # Keyframes and checkpoints close together too, so chains, keyframes and rebuilds from
    # later checkpoints all occur in short sequences.
    monkeypatch.setattr(frame_views, "KEYFRAME_EVERY", rng.choice([2, 4, 50]))
    monkeypatch.setattr(keyframe_rule, "KEYFRAME_MAX", rng.choice([3, 6, 2000]))
    monkeypatch.setattr(run_engine, "CHECKPOINT_EVERY", rng.choice([2, 3, 5, 20]))
    with running_in(world.web):
        run = svc.run_start(scenario=state["scenarios"][slug], actor=OWNER)
    runs = [run]
    has_policy = "DeschedulerPolicy" in run.scenario_yaml
    kinds = ["step"] * 5 + ["point", "play", "clock", "clock-for", "restart"] + ["cluster"] * 4 + ["fork"]
    if has_policy:
        kinds += ["descheduler"] * 3
    for n in range(rng.randint(3, 8)):
        run.refresh_from_db()
        kind = rng.choice(kinds)
        if kind == "step":
            _enqueue(state, run, RunAction.KIND_STEP)
        elif kind == "point":
            _enqueue(state, run, RunAction.KIND_STEP_POINT)
        elif kind == "play":
            _enqueue(state, run, RunAction.KIND_PLAY)
        elif kind == "clock":
            _enqueue(state, run, RunAction.KIND_ADVANCE_CLOCK)
        elif kind == "clock-for":
            _enqueue(state, run, RunAction.KIND_ADVANCE_CLOCK, {"seconds": rng.choice([1, 5, 30, 61, 300])})
        elif kind == "descheduler":
            _enqueue(state, run, RunAction.KIND_CLUSTER, {"action": "runDescheduler"})
        elif kind == "cluster":
            view = view_selector.view_at(run=run, step=run.head_step)
            action = _cluster_action(rng, view, n)
            if action is not None:
                _enqueue(state, run, RunAction.KIND_CLUSTER, action)
        elif kind == "restart":
            world.restart(rng.randrange(len(world.workers)))
        elif kind == "fork":
            with running_in(world.web):
                run = svc.run_fork(run=run, actor=OWNER, step=rng.randint(0, run.head_step))
            runs.append(run)
    return runs, slug


def _replayed_views(run: Run) -> Iterator[tuple[int, dict[str, Any], int]]:
    """(step, view, seq) after each stored frame, from a fresh engine replaying the units."""
    sim = run_engine.load_simulation(run.scenario_yaml, run.seed, run.kubernetes_version, run.feature_gates)
    sim.sink.events = []
    yield 0, frame_views.compact_view(run_engine.engine_view(sim)), sim.sink.seq
    for step, unit in run.frames.filter(step__gt=0).order_by("step").values_list("step", "unit"):
        run_engine.apply_unit(sim, unit)
        sim.sink.events = []
        yield step, frame_views.compact_view(run_engine.engine_view(sim)), sim.sink.seq


def _difference(stored: dict[str, Any], replayed: dict[str, Any]) -> str:
    """Where two views differ, briefly (the sections' entries by name)."""
    parts = []
    for key in sorted(set(stored) | set(replayed)):
        a, b = stored.get(key), replayed.get(key)
        if a == b:
            continue
        if key in ("nodes", "pods") and isinstance(a, list) and isinstance(b, list):
            id_key = "name" if key == "nodes" else "key"
            old, new = {e[id_key]: e for e in a}, {e[id_key]: e for e in b}
            for name in sorted(set(old) | set(new)):
                if old.get(name) != new.get(name):
                    parts.append(f"{key}[{name}]: stored {old.get(name)} replayed {new.get(name)}")
        else:
            parts.append(f"{key}: stored {str(a)[:300]} replayed {str(b)[:300]}")
    return "\n".join(parts[:6])


def _check(run: Run, seed: int, slug: str) -> int:
    """Every frame of `run` against the replay; returns how many were compared."""
    run.refresh_from_db()
    view_selector.clear_cache()
    seqs = dict(run.frames.values_list("step", "last_seq"))
    compared = 0
    for step, replayed, seq in _replayed_views(run):
        stored = view_selector.view_at(run=run, step=step)  # each one delta from the cached one before
        where = f"seed {seed} ({slug}), run {run.pk} (forked: {run.forked_from_id is not None}), frame {step}"
        assert seqs[step] == seq, where
        assert stored == replayed, f"{where}\n{_difference(stored, replayed)}"
        compared += 1
    assert compared == run.head_step + 1
    view_selector.clear_cache()  # the head read cold: from its keyframe and the deltas after it
    assert view_selector.view_at(run=run, step=run.head_step) == replayed, f"seed {seed}: head read cold"
    return compared


def test_every_stored_frame_equals_a_fresh_replay_of_the_log(world: dict[str, Any]) -> None:
    world["scenarios"] = {slug: gallery_scenario(slug) for slug in SCENARIOS}
    frames = forks = evictions = rebuilds = hits = refused = 0
    kinds: set[str] = set()
    for seed in range(SEQUENCES):
        rng = random.Random(seed * 7919 + 1)
        starts = [rng.randint(1, 300) for _ in range(3)]  # where this sequence's processes' counters start
        state = world["world"] = World(
            rng=rng,
            web=Process("web", itertools.count(starts[0])),
            workers=[Process(f"w{i}", itertools.count(starts[i + 1])) for i in range(2)],
            low=min(starts),
        )
        runs, slug = _drive(world, seed)
        for run in runs:
            frames += _check(run, seed, slug)
            kinds.update(run.actions.values_list("kind", flat=True))
            evictions += run.events.filter(type="descheduler_evicted").count()
            refused += run.events.filter(type="timeline_action_failed").count()
        forks += len(runs) - 1
        for proc in state.workers:
            rebuilds += proc.cache.rebuilds
            hits += proc.cache.hits
    # The sequences did what they are for: every kind of action, forks, evictions, Timeline
    # actions refused because a user deleted their object first, and engines both kept between
    # actions and rebuilt from checkpoints.
    assert kinds == {k for k, _ in RunAction.KIND_CHOICES}
    assert forks and evictions and refused and rebuilds and hits and frames > SEQUENCES * 5
