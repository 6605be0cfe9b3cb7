"""Runs: a scenario snapshot played by the engine, its action log, event log, frames, checkpoints.

A run is a deterministic function of (scenario_yaml, seed, units). A *unit* is one call into the
engine: one `Simulation.step()` or one live cluster action. Every unit is stored as a RunFrame
(with what was called, so the worker can replay it, and the engine's view after it); the events
it emitted are RunEvent rows with the engine's own `seq` (1..N, contiguous, unique per run).
RunAction rows are what users asked for (step, play, advance the clock, add a pod...): the
worker executes them in `index` order, one run at a time, and each becomes zero or more units.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from playground.models.compressed_text import CompressedTextField
from playground.models.scenarios import Scenario, new_share_token

# `Run.scenario_yaml__contains` lookups that must answer for a compressed snapshot too
# (selectors.runs.snapshot_may_hold; services.extender_access.EXTENDER_MARK).
SNAPSHOT_WORDS = ("Lesson", "Challenge", "urlPrefix")


class Run(models.Model):
    STATUS_IDLE = "idle"
    STATUS_PLAYING = "playing"
    STATUS_SETTLED = "settled"
    STATUS_CHOICES = [(STATUS_IDLE, "idle"), (STATUS_PLAYING, "playing"), (STATUS_SETTLED, "settled")]

    scenario = models.ForeignKey(Scenario, null=True, blank=True, on_delete=models.SET_NULL, related_name="runs")
    scenario_name = models.CharField(max_length=200)
    # The snapshot the run plays: editing the scenario later changes nothing. Big ones are stored
    # compressed (a Step's commit rewrites this row on SQLite); the words: what callers ask the
    # database about it without reading it (a Lesson or Challenge to show, an extender's URL).
    scenario_yaml = CompressedTextField(flag_words=SNAPSHOT_WORDS)
    seed = models.PositiveIntegerField(default=0)
    # The kube-scheduler release the run models (scheduler_core.featuregate.features): every engine build
    # and rebuild of the run uses it; checkpoints carry the same gates.
    kubernetes_version = models.CharField(max_length=16, default="v1.35")
    # The run's --feature-gates settings that differ from the version's defaults, as
    # "A=true,B=false" in name order (scheduler_core.featuregate); empty for a default run.
    # Set at the start form and kept for the run's life (its checkpoints carry them too).
    feature_gates = models.CharField(max_length=2000, blank=True, default="")
    max_time = models.FloatField(default=3600.0)  # virtual seconds a play may reach
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="runs"
    )
    owner_token = models.CharField(max_length=64, blank=True, db_index=True)
    share_token = models.CharField(max_length=64, unique=True, default=new_share_token, editable=False)
    forked_from = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="forks")
    forked_at_step = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    # Progress, written by the worker in the same transaction as the frames and events.
    head_step = models.PositiveIntegerField(default=0)  # the last stored frame
    last_seq = models.PositiveIntegerField(default=0)  # the last stored event
    clock = models.FloatField(default=0.0)
    cycle = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=16, choices=STATUS_CHOICES, default=STATUS_IDLE)
    # "Step extension point": how many extension-point groups of the head frame are revealed
    # (null: all). Shared by every viewer, like everything else about the head.
    reveal = models.PositiveSmallIntegerField(null=True, blank=True)
    pause_requested = models.BooleanField(default=False)
    speed = models.FloatField(default=0.0)  # steps per second while playing; 0 = as fast as possible

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"run {self.pk} of {self.scenario_name}"

    @property
    def group_name(self) -> str:
        return f"run_{self.pk}"


class RunAction(models.Model):
    KIND_STEP = "step"
    KIND_STEP_POINT = "step_point"
    KIND_PLAY = "play"
    KIND_ADVANCE_CLOCK = "advance_clock"
    KIND_CLUSTER = "cluster"
    KIND_CHOICES = [
        (KIND_STEP, "step"),
        (KIND_STEP_POINT, "step extension point"),
        (KIND_PLAY, "play"),
        (KIND_ADVANCE_CLOCK, "advance clock"),
        (KIND_CLUSTER, "cluster action"),
    ]
    STATE_PENDING = "pending"
    STATE_RUNNING = "running"
    STATE_DONE = "done"
    STATE_FAILED = "failed"
    STATE_CHOICES = [(s, s) for s in (STATE_PENDING, STATE_RUNNING, STATE_DONE, STATE_FAILED)]

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="actions")
    index = models.PositiveIntegerField()
    kind = models.CharField(max_length=20, choices=KIND_CHOICES)
    params = models.JSONField(default=dict, blank=True)
    state = models.CharField(max_length=10, choices=STATE_CHOICES, default=STATE_PENDING)
    result = models.CharField(max_length=300, blank=True)  # "cycle", "settled", an error message...
    first_step = models.PositiveIntegerField(null=True, blank=True)
    last_step = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["run", "index"]
        constraints = [models.UniqueConstraint(fields=["run", "index"], name="run_action_index_unique")]

    def __str__(self) -> str:
        return f"{self.run_id}#{self.index} {self.kind} ({self.state})"


class RunFrame(models.Model):
    """One unit executed by the engine and the state after it (step 0: the run's start)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="frames")
    step = models.PositiveIntegerField()
    action_index = models.PositiveIntegerField(null=True, blank=True)
    unit = models.JSONField(default=dict)  # {"op": "start"} | {"op": "step", "max_time": t} | {"op": "action", ...}
    result = models.CharField(max_length=20)  # start | cycle | clock | settled | max-time | action
    cycle = models.PositiveIntegerField(default=0)  # the scheduling cycle this frame ran (or the last one)
    clock = models.FloatField(default=0.0)
    first_seq = models.PositiveIntegerField(default=0)
    last_seq = models.PositiveIntegerField(default=0)  # first_seq > last_seq: no events
    view = models.JSONField(default=dict)  # Simulation.view() without its k8s events (those are RunEvents)
    # The playground engine's own wall time in each plugin during this unit (PluginWallClock.rows:
    # [[plugin, extension point, profile, seconds, calls]]). Not the cluster's, not deterministic:
    # never compared on replay, never part of the event stream. Empty for step 0 and older frames.
    plugin_wall = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["run", "step"]
        constraints = [models.UniqueConstraint(fields=["run", "step"], name="run_frame_step_unique")]

    def __str__(self) -> str:
        return f"{self.run_id}@{self.step} {self.result}"


class RunEvent(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    step = models.PositiveIntegerField()
    type = models.CharField(max_length=40)
    data = models.JSONField()  # the engine's event, whole (seq, time, type and its fields)

    class Meta:
        ordering = ["run", "seq"]
        constraints = [models.UniqueConstraint(fields=["run", "seq"], name="run_event_seq_unique")]
        indexes = [models.Index(fields=["run", "step"]), models.Index(fields=["run", "type", "seq"])]

    def __str__(self) -> str:
        return f"{self.run_id}#{self.seq} {self.type}"


class RunCheckpoint(models.Model):
    """`Simulation.checkpoint()` after frame `step` (its event list emptied: events are rows)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="checkpoints")
    step = models.PositiveIntegerField()
    blob = models.BinaryField()

    class Meta:
        ordering = ["run", "step"]
        constraints = [models.UniqueConstraint(fields=["run", "step"], name="run_checkpoint_step_unique")]

    def __str__(self) -> str:
        return f"{self.run_id}@{self.step} checkpoint"
