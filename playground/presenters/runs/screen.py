"""What one viewer sees of a run: the frame (the head, or a pinned step/cycle), how much of its
cycle is revealed, and the state the panels draw. Each panel is built by its own presenter
module; the Screen's properties are the names the templates use for them, one per panel from
the panel registry (`panels.py`) plus the smaller facts panels share."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from playground.models import Run, RunFrame
from playground.ownership import Actor, can_control
from playground.presenters.runs import cluster as cluster_panel
from playground.presenters.runs import cycle as cycle_panel
from playground.presenters.runs import cycle_groups, panels
from playground.presenters.runs import events as events_panel
from playground.presenters.runs import evictions as evictions_panel
from playground.presenters.runs import pods as pods_panel
from playground.presenters.runs import queues as queues_panel
from playground.presenters.runs import storage as storage_panel
from playground.presenters.runs import story as story_panel
from playground.presenters.runs import waiting as waiting_panel
from playground.presenters.runs.moves import where
from playground.presenters.runs.panels import Layout
from playground.presenters.runs.partial import view_at_point
from playground.selectors.frame_views import view_at
from playground.selectors.points import event_groups, point_groups
from playground.selectors.runs import frame_events, frame_for, node_list_before, run_profiles
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
    lookup: Any = None  # (step, cycle) -> Screen of another frame; None: read it from the run

    def elsewhere(self, *, step: int | None = None, cycle: int | None = None) -> Screen:
        """The screen of another frame of the same run, pinned (to judge a past lesson answer)."""
        if self.lookup is not None:
            return self.lookup(step, cycle)
        return run_screen(run=self.run, actor=Actor(), step=step, cycle=cycle)

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
    def previous_where(self) -> dict[str, str]:
        """pod -> where it was in the frame before (to mark what moved)."""
        return where(self.previous)

    # -- the panels, each built by its presenter (once per screen) ------------------------------
    moves = cached_property(queues_panel.moves)
    hint_skips = cached_property(queues_panel.hint_skips)
    nodes = cached_property(cluster_panel.nodes)
    large_cluster = cached_property(cluster_panel.is_large)
    pods = cached_property(pods_panel.pods)
    pending_pods = cached_property(pods_panel.pending_pods)
    many_pods = cached_property(pods_panel.many_pods)
    has_storage = cached_property(storage_panel.has_storage)
    waiting_groups = cached_property(waiting_panel.waiting_groups)
    permit_rejections = cached_property(waiting_panel.permit_rejections)
    point_labels = cached_property(cycle_panel.point_labels)
    snapshot = cached_property(cycle_panel.snapshot)
    prefilters = cached_property(cycle_panel.prefilters)
    filter_matrix = cached_property(cycle_panel.filter_matrix)
    filter_groups = cached_property(cycle_groups.filter_groups)
    extender_calls = cached_property(cycle_panel.extender_calls)
    postfilters = cached_property(cycle_panel.postfilters)
    failed_message = cached_property(cycle_panel.failed_message)
    scores = cached_property(cycle_panel.scores)
    large_cycle = cached_property(cycle_groups.is_large)
    selected = cached_property(cycle_panel.selected)
    binding = cached_property(cycle_panel.binding)
    outcome = cached_property(story_panel.outcome)
    pop = cached_property(story_panel.pop)
    steps_between = cached_property(story_panel.steps_between)
    settled_text = cached_property(story_panel.settled_text)
    max_time_text = cached_property(story_panel.max_time_text)

    @cached_property
    def layout(self) -> Layout:
        """Which panels this screen shows where, and which live ones go as refresh markers (the
        panels themselves, and their presenters' properties on this class, come from
        `panels.REGISTRY`)."""
        return panels.layout(self)

    @cached_property
    def top_scores(self) -> dict[str, Any] | None:
        return cycle_groups.top_scores(self, self.scores)

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


panels.REGISTRY.bind(Screen)


def run_screen(
    *,
    run: Run,
    actor: Actor,
    step: int | None = None,
    cycle: int | None = None,
    params: Any = None,
    pinned: bool | None = None,
    answers: dict[str, str] | None = None,
) -> Screen:
    """What a viewer sees: the head (live) or a pinned step/cycle (a share link, history).
    `params`: the viewer's search, filters and page numbers (a GET query). `pinned=False` with
    a `step` is a live viewer's panel request for the step its page shows."""
    if pinned is None:
        pinned = step is not None or cycle is not None
    frame = frame_for(run=run, step=step, cycle=cycle)
    shown = frame_events(run=run, frame=frame)
    groups = point_groups(shown)
    reveal = run.reveal if (not pinned or frame.step == run.head_step) and run.reveal is not None else None
    if pinned:
        reveal = None
    if reveal is not None and groups:
        reveal = max(1, min(reveal, len(groups)))
        revealed = set(groups[:reveal])
        labels = event_groups(shown)
        shown = [e for e, g in zip(shown, labels, strict=True) if g in revealed]
    else:
        reveal = None
    previous = view_at(run=run, step=frame.step - 1) if frame.step > 0 else {}
    view = view_at(run=run, step=frame.step, stored=frame.view)
    # While a cycle is only partly revealed, every panel shows the state as of the point reached.
    if reveal is not None and reveal < len(groups) and previous:
        view = view_at_point(previous, view, shown)
    last_seq = frame.last_seq if reveal is None else (shown[-1]["seq"] if shown else frame.first_seq - 1)
    return Screen(
        run=run,
        frame=frame,
        pinned=pinned,
        can_control=can_control(run=run, actor=actor) and not pinned,
        reveal=reveal,
        groups=groups,
        view=view,
        previous=previous,
        frame_events=shown,
        k8s_events=events_panel.k8s_events(run=run, upto_seq=last_seq),
        evicted=evictions_panel.eviction_history(run=run, upto_seq=last_seq),
        shown_seq=last_seq,
        params=dict(params.items()) if params is not None else {},
        profiles=run_profiles(run=run),
        answers=answers or {},
    )
