"""Which frame a viewer sees, as a `Screen`: the head (live), or a pinned step/cycle (a share link,
history), partly revealed while "Step extension point" walks a cycle; with the run's Kubernetes
events and evictions up to the last event it shows."""

from __future__ import annotations

from typing import Any

from playground.models import Run
from playground.ownership import Actor, can_control
from playground.presenters.runs import events as events_panel
from playground.presenters.runs import evictions as evictions_panel
from playground.presenters.runs.partial import view_at_point
from playground.presenters.runs.screen import Screen
from playground.selectors.frame_views import view_at
from playground.selectors.points import event_groups, point_groups
from playground.selectors.runs import frame_events, frame_for, run_profiles


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
    view = view_at(run=run, step=frame.step)  # cached per process; read from its row only when not
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
        lookup=lambda s, c: run_screen(run=run, actor=Actor(), step=s, cycle=c),
    )
