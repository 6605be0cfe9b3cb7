"""The run's engine in a worker: building it from the stored log and recording what it does.

A run is a deterministic function of its scenario, seed and *units* (one engine call each). Each
unit the worker executes becomes a RunFrame (with a compact view: `playground.frame_views`), its events
RunEvent rows (keyed by the engine's seq), and now and then a RunCheckpoint; `Engine.rebuild`
restores the nearest checkpoint and replays the stored units after it, checking they give the
stored results. A worker keeps its engines between actions (`cache`), so a rebuild happens only
after a restart, an eviction from the cache, or when another worker moved the run on.

Checkpoints cost the cluster's size (5,000 nodes: about 5 MB and 1 s to take, 0.9 s to restore),
steps do not, so a big cluster checkpoints less often: every CHECKPOINT_EVERY x (1 + nodes //
CHECKPOINT_NODES) frames (5,000 nodes: every 220 frames, a replay of a few seconds at worst).
The worker takes a due checkpoint after the step is committed and announced, so nobody waits;
while the run plays, a due checkpoint waits for the play to end (at most PLAY_DEFER intervals),
so a playing page does not freeze for the second a big cluster's checkpoint takes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from playground import frame_views
from playground.infra.blob_write import insert_with_blob
from playground.infra.bulk_insert import PreparedRows, insert_prepared, prepare_rows
from playground.infra.heap import give_back
from playground.keyframe_rule import KeyframeRule, json_size
from playground.models import Run, RunCheckpoint, RunEvent, RunFrame
from playground.monitoring.collectors import record_steps

if TYPE_CHECKING:
    from scheduler_core.view.pods import PodViewMemo

# The columns a frame's and an event's rows are written with (`flush`), and the model attributes
# that hold their values.
FRAME_COLUMNS = ("run", "step", "action_index", "unit", "result", "cycle", "clock", "first_seq", "last_seq", "view",
                 "plugin_wall")
FRAME_ATTRS = ("run_id", *FRAME_COLUMNS[1:])
EVENT_COLUMNS = ("run", "seq", "step", "type", "data")
EVENT_ATTRS = ("run_id", *EVENT_COLUMNS[1:])
CHECKPOINT_EVERY = 20  # frames between engine checkpoints, for clusters up to CHECKPOINT_NODES nodes
CHECKPOINT_NODES = 500  # ...each further CHECKPOINT_NODES nodes multiply the interval (see below)
PLAY_DEFER = 4  # while playing, a due checkpoint waits at most this many intervals (see store_checkpoint)


def load_simulation(yaml_text: str, seed: int, kubernetes_version: str | None = None,
                    feature_gates: str = "") -> Any:
    """The run's engine at its start. `kubernetes_version` is the run's (None: the default);
    every build of a run passes the one stored on it, so a run never changes version.
    `feature_gates`: the run's validated --feature-gates settings ("" for none)."""
    from playground.limits import web_limits
    from playground.services.extender_access import web_policy
    from scheduler_core.extender import ExtenderTranscript
    from scheduler_core.loader import load_scenario_text
    from scheduler_core.simulation import Simulation

    scenario = load_scenario_text(yaml_text, source="run", limits=web_limits())
    return Simulation(
        scenario,
        seed=seed,
        record_events=True,
        extender_transcript=ExtenderTranscript(policy=web_policy()),
        kubernetes_version=kubernetes_version,
        feature_gates=feature_gates or None,
    )


def apply_unit(sim: Any, unit: dict[str, Any], limits: Any = None) -> str:
    """Execute one stored unit on the engine; the same call the worker made the first time.
    `limits`: the node and pod limits a cluster action may not pass (the worker's first
    execution passes the web's; a replay does not: what was applied once is replayed as it was)."""
    op = unit["op"]
    if op == "step":
        return sim.step(unit.get("max_time", 3600.0))
    if op == "action":
        sim.apply_manifest_action(unit["action"], index=unit["index"], limits=limits)
        return "action"
    if op == "clock":  # the clock runs to `to` with nothing due before it (see units.run_clock_for)
        sim.advance_clock(float(unit["to"]))
        return "clock"
    if op == "steps":  # a fast-forward's run of `count` steps in one frame (services/runs/fast_forward.py)
        result = ""
        for _ in range(int(unit["count"])):
            result = sim.step(unit.get("max_time", 3600.0))
        return result
    raise ValueError(f"unknown unit {unit!r}")


def _restore_extender_calls(sim: Any, unit: dict[str, Any]) -> None:
    """Give the engine the extender answers a stored unit received, so replaying it makes no
    HTTP call and sees exactly what the first execution saw."""
    calls = unit.get("extender_calls")
    if calls:
        from scheduler_core.extender import ExtenderCall

        sim.extender_transcript.calls.extend(ExtenderCall.from_json(c) for c in calls)


def engine_view(sim: Any, node_memo: dict[str, Any] | None = None,
                pod_memo: PodViewMemo | None = None) -> dict[str, Any]:
    """`Simulation.view()` as a frame stores it: without the k8s events (they are RunEvent rows).
    The engine says what would move each unschedulable pod (`movedBy`: the cluster events its
    rejecting plugins registered). `node_memo`: the engine's memo of described nodes (see
    `Simulation.view`), so a step re-describes only the nodes it changed; `pod_memo` (a
    `scheduler_core.view.pods.PodViewMemo`) the same for pods, and it says which ones changed."""
    # Frames keep only the queues' heads.
    view = sim.view(queue_limit=frame_views.QUEUE_HEAD, node_memo=node_memo, pod_memo=pod_memo, events=False)
    for pod in view["queues"].get("unschedulable", []):
        pod["wouldMove"] = pod.get("movedBy", [])
    return view


def checkpoint_interval(nodes: int) -> int:
    """Frames between checkpoints for a cluster of `nodes` nodes (see the module's docstring)."""
    return CHECKPOINT_EVERY * (1 + nodes // CHECKPOINT_NODES)


@dataclass
class Engine:
    """The run's engine in a worker, plus the units it executed that are not stored yet.

    `view` is the compact view after `step` (the base of the next frame's delta); `stored_step` /
    `stored_seq` say how far the stored log goes, which is how the cache tells a stale engine."""

    run_id: int
    sim: Any
    step: int  # the last frame (stored or pending)
    stored_step: int
    stored_seq: int
    view: dict[str, Any] | None = None
    token: str = ""  # the run's share token: a run id alone may name another run after a reset
    frames: list[RunFrame] = field(default_factory=list)
    events: list[RunEvent] = field(default_factory=list)
    checkpoint_due: bool = False
    due_since: int = 0  # the step at which the pending checkpoint fell due
    last_result: str = ""
    node_memo: dict[str, Any] = field(default_factory=dict)  # Simulation.view's, between steps
    pod_memo: PodViewMemo | None = None  # Simulation.view's, between steps (made at the first view)
    keyframes: KeyframeRule = field(default_factory=KeyframeRule)  # when the next frame is a keyframe
    # (frames, events) counted, and their rows prepared for the INSERTs (`prepare_pending`)
    pending_rows: tuple[tuple[int, int], PreparedRows, PreparedRows] | None = field(default=None, repr=False)
    interval: int = CHECKPOINT_EVERY  # frames between checkpoints for this run's cluster size
    wall: Any = None  # PluginWallClock attached around each unit (made at the first; never pickled)

    @classmethod
    def rebuild(cls, run: Run) -> Engine:
        """The engine after the run's last stored frame: nearest checkpoint + replay. A
        checkpoint of another engine layout (`CheckpointVersionError`) is no shortcut: the
        engine is built from the run's scenario and the whole log replayed, and the run's stale
        checkpoints are replaced by one at its head (`_replace_stale_checkpoints`)."""
        from scheduler_core.simulation import CheckpointVersionError, Simulation

        checkpoint = run.checkpoints.filter(step__lte=run.head_step).order_by("-step").first()
        if checkpoint is None:
            raise RuntimeError(f"run {run.pk} has no checkpoint")
        stale = False
        try:
            sim = Simulation.restore(bytes(checkpoint.blob))
            after = checkpoint.step
        except CheckpointVersionError:
            stale = True
            sim = load_simulation(run.scenario_yaml, run.seed, run.kubernetes_version, run.feature_gates)
            sim.sink.events = []  # the start's events are stored (frame 0)
            after = 0
        # A checkpoint carries the gates it was taken with; they must be the run's version.
        if sim.feature_gates.version != run.kubernetes_version:
            raise RuntimeError(
                f"run {run.pk}: checkpoint at step {checkpoint.step} models {sim.feature_gates.version}, "
                f"the run {run.kubernetes_version}"
            )
        result = ""
        for frame in run.frames.filter(step__gt=after, step__lte=run.head_step).only(
            "step", "unit", "last_seq", "result"
        ):
            _restore_extender_calls(sim, frame.unit)
            result = apply_unit(sim, frame.unit)
            sim.sink.events = []  # already stored
            if sim.sink.seq != frame.last_seq or result != frame.result:
                raise RuntimeError(
                    f"run {run.pk}: replaying frame {frame.step} gave seq {sim.sink.seq}/{result}, "
                    f"stored {frame.last_seq}/{frame.result}: the engine is not deterministic"
                )
        if sim.sink.seq != run.last_seq:
            raise RuntimeError(f"run {run.pk}: engine at seq {sim.sink.seq}, log at {run.last_seq}")
        if stale:
            _replace_stale_checkpoints(run, sim)
        memo: dict[str, Any] = {}
        from playground.services.extender_access import web_policy
        from scheduler_core.view.pods import PodViewMemo

        sim.extender_transcript.policy = web_policy()  # today's allow-list, not the checkpoint's
        pod_memo = PodViewMemo()
        view = frame_views.compact_view(engine_view(sim, memo, pod_memo))
        return cls(
            run_id=run.pk,
            sim=sim,
            step=run.head_step,
            stored_step=run.head_step,
            stored_seq=run.last_seq,
            view=view,
            token=run.share_token,
            node_memo=memo,
            pod_memo=pod_memo,
            keyframes=_resume_keyframes(run, view),
        )

    def execute(self, unit: dict[str, Any], action_index: int | None) -> str:
        sim = self.sim
        first_seq = sim.sink.seq + 1
        calls_before = len(sim.extender_transcript)
        from playground.limits import web_limits
        from scheduler_core.metrics.wall import PluginWallClock

        # The engine's own time per plugin, for the metrics page: wrappers only for this unit.
        if self.wall is None:
            self.wall = PluginWallClock()
        with self.wall.attached(sim.scheduler.profiles):
            result = apply_unit(sim, unit, limits=web_limits())
        plugin_wall = self.wall.take_rows()
        new_calls = sim.extender_transcript.calls[calls_before:]
        if new_calls:
            # Extender answers are part of the run's log: a rebuild replays them, never the service.
            unit = {**unit, "extender_calls": [c.to_json() for c in new_calls]}
        new_events, sim.sink.events = sim.sink.events, []
        self.step += 1
        self._record(unit, result, action_index, first_seq, new_events, plugin_wall)
        self.last_result = result
        return result

    def execute_steps(self, max_time: float, action_index: int | None, go_on: Callable[[str], bool]) -> str:
        """Steps as one unit and one frame ({"op": "steps", "count": n}): the engine steps while
        `go_on(result)` says so (asked before each step, with the last result, "" before the
        first), at least once. The view is described once, after the last step: a fast-forward
        keeps every event but pays for one frame, not one per step. Returns the last result."""
        sim = self.sim
        first_seq = sim.sink.seq + 1
        calls_before = len(sim.extender_transcript)
        from scheduler_core.metrics.wall import PluginWallClock

        if self.wall is None:
            self.wall = PluginWallClock()
        count, result = 0, ""
        with self.wall.attached(sim.scheduler.profiles):
            while count == 0 or go_on(result):
                result = sim.step(max_time)
                count += 1
        unit: dict[str, Any] = {"op": "steps", "count": count, "max_time": max_time}
        new_calls = sim.extender_transcript.calls[calls_before:]
        if new_calls:
            unit["extender_calls"] = [c.to_json() for c in new_calls]
        new_events, sim.sink.events = sim.sink.events, []
        self.step += 1
        self._record(unit, result, action_index, first_seq, new_events, self.wall.take_rows())
        self.last_result = result
        return result

    def _record(
        self,
        unit: dict[str, Any],
        result: str,
        action_index: int | None,
        first_seq: int,
        new_events: list[dict[str, Any]],
        plugin_wall: list[list[Any]] | None = None,
    ) -> None:
        sim = self.sim
        if self.pod_memo is None:
            from scheduler_core.view.pods import PodViewMemo

            self.pod_memo = PodViewMemo()
        view = frame_views.compact_view(engine_view(sim, self.node_memo, self.pod_memo))
        stored = view
        if self.view is not None:
            known = {"pods": frame_views.Changes(self.pod_memo.changed, self.pod_memo.appended)}
            delta = frame_views.diff(self.view, view, base=self.step - 1, changed=known)
            size = json_size(delta)
            if not self.keyframes.wants_keyframe(size):
                stored = delta
                self.keyframes.stored_delta(size)
        if stored is view:
            self.keyframes.stored_keyframe(view)
        self.view = view
        cycle = next((e["cycle"] for e in new_events if e["type"] == "cycle_started"), view.get("cycle", 0))
        self.frames.append(
            RunFrame(
                run_id=self.run_id,
                step=self.step,
                action_index=action_index,
                unit=unit,
                result=result,
                cycle=cycle or 0,
                clock=view["clock"],
                first_seq=first_seq,
                last_seq=sim.sink.seq,
                view=stored,
                plugin_wall=plugin_wall or [],
            )
        )
        self.events.extend(
            RunEvent(run_id=self.run_id, seq=e["seq"], step=self.step, type=e["type"], data=e) for e in new_events
        )
        self.interval = checkpoint_interval(len(view.get("nodes", [])))
        if self.step % self.interval == 0 and not self.checkpoint_due:
            self.checkpoint_due, self.due_since = True, self.step

    @property
    def dirty(self) -> bool:
        return bool(self.frames)

    def run_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = {"head_step": self.step, "last_seq": self.sim.sink.seq}
        if self.frames and self.view is not None:
            fields.update(clock=self.view["clock"], cycle=self.view.get("cycle", 0))
        if self.last_result == "settled":
            fields["status"] = Run.STATUS_SETTLED
        return fields

    def prepare_pending(self) -> PreparedRows | None:
        """The pending frames' and events' rows prepared for their INSERTs (their JSON encoded),
        once per batch: the caller does it before its transaction, which then only writes (on
        SQLite a writing transaction holds the whole file). None: nothing pending."""
        if not self.frames:
            return None
        counts = (len(self.frames), len(self.events))
        if self.pending_rows is None or self.pending_rows[0] != counts:
            frames = prepare_rows(RunFrame, FRAME_COLUMNS, ([getattr(f, c) for c in FRAME_ATTRS] for f in self.frames))
            events = prepare_rows(RunEvent, EVENT_COLUMNS, ([getattr(e, c) for c in EVENT_ATTRS] for e in self.events))
            self.pending_rows = (counts, frames, events)
        return self.pending_rows[1]

    def flush(self) -> None:
        """Store the pending frames and events (inside the caller's transaction)."""
        if self.prepare_pending() is None:
            return
        _, frames, events = self.pending_rows  # type: ignore[misc]
        insert_prepared(frames)
        insert_prepared(events)
        record_steps(len(self.frames))
        self.stored_step, self.stored_seq = self.step, self.sim.sink.seq
        self.frames, self.events, self.pending_rows = [], [], None

    def checkpoint_ready(self, *, playing: bool = False) -> bool:
        """Would `store_checkpoint` take one now? (The caller extends its lease first.)"""
        if not self.checkpoint_due or self.dirty:
            return False
        return not (playing and self.step - self.due_since < PLAY_DEFER * self.interval)

    def store_checkpoint(self, *, force: bool = False, playing: bool = False) -> bool:
        """Store a checkpoint at the stored head if one is due (or `force`). Any frame may hold a
        checkpoint, so a due one is taken where the engine is when its batch was committed.
        `playing`: the run is playing and the page follows it; a big cluster's checkpoint
        (about a second at 5,000 nodes) would freeze the page, so a due one waits for the play
        to end, unless it has waited PLAY_DEFER intervals already (a restart replays less)."""
        if not (force or self.checkpoint_due) or self.dirty:
            return False
        if playing and not force and self.step - self.due_since < PLAY_DEFER * self.interval:
            return False
        # A checkpoint of that step stored already (another worker's, a replayed batch) is kept.
        _store_blob(self.sim, self.run_id, self.stored_step, ignore_conflicts=True)
        self.checkpoint_due = False
        return True


def _replace_stale_checkpoints(run: Run, sim: Any) -> None:
    """After a rebuild from the log: the checkpoints another engine layout wrote go, and the
    engine's own at the run's head takes their place (the next rebuild restores it)."""
    from scheduler_core.simulation import CHECKPOINT_VERSION, Simulation

    # One blob read at a time (each is hundreds of MB at the envelope), only its header decoded.
    stale = [pk for pk, blob in run.checkpoints.values_list("pk", "blob").iterator(chunk_size=1)
             if Simulation.checkpoint_version(blob) != CHECKPOINT_VERSION]
    RunCheckpoint.objects.filter(pk__in=stale).delete()
    RunCheckpoint.objects.filter(run_id=run.pk, step=run.head_step).delete()
    _store_blob(sim, run.pk, run.head_step, ignore_conflicts=False)


def _store_blob(sim: Any, run_id: int, step: int, *, ignore_conflicts: bool) -> None:
    """`sim`'s checkpoint as run `run_id`'s at `step`. The checkpoint is the worker's biggest
    allocation (its pickle memo and buffer, ~300 MB at 5,000 nodes x 150,000 pods, on top of the
    engine): the C heap's free pages go back first (`give_back`: the pickler never reuses them),
    the bytes go into the row in pieces (`insert_with_blob`: bound whole, SQLite copied them,
    ~230 MB more at that size), and they are let go of as soon as they are stored."""
    give_back()
    blob = sim.checkpoint()
    insert_with_blob(RunCheckpoint, ("run", "step"), (run_id, step), "blob", blob, ignore_conflicts=ignore_conflicts)
    del blob


def _resume_keyframes(run: Run, view: dict[str, Any]) -> KeyframeRule:
    """The keyframe rule's state after the run's stored frames (see `KeyframeRule.resume`)."""
    newest = (
        run.frames.filter(step__lte=run.head_step).exclude(view__has_key="delta").order_by("-step")
        .values_list("step", flat=True).first()
    )
    deltas = run.frames.filter(step__gt=newest if newest is not None else -1, step__lte=run.head_step)
    return KeyframeRule.resume(deltas.values_list("view", flat=True).iterator(chunk_size=64), view)
