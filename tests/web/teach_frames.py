"""Screens of a gallery scenario built straight from the engine, without a database: each
step's events and view, fed to the run page's presenters as the worker would store them."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from playground.models import RunFrame
from playground.presenters.runs.partial import view_at_point
from playground.presenters.runs.screen import Screen
from playground.selectors.points import event_groups, point_groups
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

GALLERY = Path(__file__).resolve().parents[2] / "playground" / "gallery"


def engine_frames(text: str, *, seed: int = 1, max_steps: int = 200,
                  feature_gates: str = "") -> list[dict[str, Any]]:
    """Frame 0 (the start) then one entry per engine step until the run settles."""
    sim = Simulation(load_scenario_text(text, source="test"), seed=seed, record_events=True,
                     feature_gates=feature_gates or None)
    frames = [{"result": "start", "events": list(sim.sink.events), "view": sim.view()}]
    sim.sink.events = []
    for _ in range(max_steps):
        result = sim.step(3600.0)
        events, sim.sink.events = sim.sink.events, []
        frames.append({"result": result, "events": events, "view": sim.view()})
        if result in ("settled", "max-time"):
            break
    return frames


def gallery_frames(slug: str, **kwargs: Any) -> list[dict[str, Any]]:
    return engine_frames((GALLERY / f"{slug}.yaml").read_text(), **kwargs)


def screen_at(
    frames: list[dict[str, Any]],
    step: int,
    reveal: int | None = None,
    *,
    text: str = "",
    answers: dict[str, str] | None = None,
) -> Screen:
    """What the run page shows at `step`, optionally only `reveal` extension-point groups in."""
    frame = frames[step]
    shown = frame["events"]
    groups = point_groups(shown)
    before = frames[step - 1]["view"] if step else {}
    view = frame["view"]
    if reveal is not None:
        reveal = max(1, min(reveal, len(groups)))
        labels = event_groups(shown)
        shown = [e for e, g in zip(shown, labels, strict=True) if g in set(groups[:reveal])]
        if reveal < len(groups):
            view = view_at_point(before, frame["view"], shown)
    cycle = next((e["cycle"] for e in shown if e["type"] == "cycle_started"), 0)
    profiles = next((e["profiles"] for f in frames for e in f["events"] if e["type"] == "run_started"), {})
    run = SimpleNamespace(scenario_yaml=text, max_time=3600.0) if text else None
    return Screen(
        run=run,  # type: ignore[arg-type]
        frame=RunFrame(step=step, cycle=cycle, result=frame["result"], clock=view.get("clock", 0.0), unit={}),
        pinned=True,
        can_control=False,
        reveal=reveal,
        groups=groups,
        view=view,
        previous=before,
        frame_events=shown,
        profiles=profiles,
        answers=answers or {},
        lookup=lambda s, c: screen_at(frames, s if s is not None else _cycle_step(frames, c), text=text),
    )


def _cycle_step(frames: list[dict[str, Any]], cycle: int | None) -> int:
    return step_where(frames, lambda e: e["type"] == "cycle_started" and e["cycle"] == cycle)


def step_where(frames: list[dict[str, Any]], predicate: Any) -> int:
    return next(i for i, f in enumerate(frames) if any(predicate(e) for e in f["events"]))
