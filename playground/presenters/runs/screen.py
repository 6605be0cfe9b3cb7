"""What one viewer sees of a run: the frame (the head, or a pinned step/cycle), how much of its
cycle is revealed, and the state the panels draw (`picker.run_screen` builds it). Each panel is
built by its own presenter module; the Screen's properties are the names the templates use for
them: one per panel, installed by the panel registry (`panels.py`), and the smaller facts panels
share (`facts.py`). This module imports no presenter, so each presenter can read a Screen."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from playground.models import Run, RunFrame
from playground.selectors.runs import node_list_before
from scheduler_core.events.compact import not_evaluated_nodes, num_not_evaluated


@dataclass
class Screen:
    run: Run
    frame: RunFrame
    pinned: bool
    can_control: bool
    reveal: int | None
    groups: list[str]
    view: dict[str, Any]  # the state drawn in the queues and cluster panels
    previous: dict[str, Any]  # the view of the frame before this one (whatever is revealed)
    frame_events: list[dict[str, Any]]  # this frame's events, up to the revealed group
    k8s_events: list[dict[str, Any]] = field(default_factory=list)
    evicted: list[dict[str, Any]] = field(default_factory=list)
    shown_seq: int = 0  # the last event this screen shows
    params: dict[str, Any] = field(default_factory=dict)  # the viewer's search, filters and pages
    profiles: dict[str, Any] = field(default_factory=dict)  # run_started's plugins per profile
    answers: dict[str, str] = field(default_factory=dict)  # the viewer's lesson predictions
    lookup: Any = None  # (step, cycle) -> Screen of another frame (picker.run_screen sets it)

    def elsewhere(self, *, step: int | None = None, cycle: int | None = None) -> Screen:
        """The screen of another frame of the same run, pinned (to judge a past lesson answer)."""
        if self.lookup is None:
            raise ValueError("this screen was built without a way to read other frames (lookup)")
        return self.lookup(step, cycle)

    # -- simple facts --------------------------------------------------------------------------
    @property
    def step(self) -> int:
        return self.frame.step

    @property
    def clock(self) -> float:
        return float(self.view.get("clock", 0.0))

    @property
    def cycle(self) -> int:
        return self.frame.cycle

    @property
    def head(self) -> bool:
        return self.frame.step == self.run.head_step

    @property
    def before(self) -> dict[str, Any]:
        """The state before this frame: what the popped pod, the victims, were like."""
        return self.previous

    @property
    def partial(self) -> bool:
        """Part of this frame's cycle is still hidden (Step extension point)."""
        return self.reveal is not None and self.reveal < len(self.groups)

    @property
    def point_reached(self) -> str:
        """The extension-point group (selectors.points) shown last: the last one revealed by
        "Step extension point", the cycle's last when it is shown whole; "" without a cycle."""
        if not self.groups:
            return ""
        return self.groups[(self.reveal or len(self.groups)) - 1]

    @property
    def is_cycle(self) -> bool:
        return self.frame.result == "cycle"

    @property
    def share_query(self) -> str:
        if self.is_cycle:
            return f"cycle={self.frame.cycle}"
        return f"step={self.frame.step}"

    def first(self, type_: str) -> dict[str, Any] | None:
        """This frame's first shown event of `type_`."""
        return next((e for e in self.frame_events if e["type"] == type_), None)

    def all(self, type_: str) -> list[dict[str, Any]]:
        """This frame's shown events of `type_`."""
        return [e for e in self.frame_events if e["type"] == type_]

    @cached_property
    def not_evaluated(self) -> list[str]:
        """The nodes this cycle's Filter walk did not reach, from the node list in effect (this
        frame's `node_list` event, else the last one stored before it)."""
        event = self.first("filter_verdicts")
        if event is None or not num_not_evaluated(event):
            return []
        node_list = self.first("node_list") or node_list_before(run=self.run, seq=event["seq"])
        return not_evaluated_nodes(event, node_list)

    @cached_property
    def version_notes(self) -> list[str]:
        """What the run's release does not simulate of its scenario (run_started's notes)."""
        from playground.selectors.run_notes import run_version_notes

        return run_version_notes(run=self.run)

    @cached_property
    def newer_changes(self) -> list[Any]:
        """The v1.36/v1.37 scheduler changes this run's scenario or gates touch (not simulated)."""
        from playground.selectors.run_newer_changes import run_newer_changes

        return run_newer_changes(run=self.run)



