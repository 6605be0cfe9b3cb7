"""The cycle inspector says how the run's version breaks a tie, as upstream does: v1.35.4 takes
the first pop of a heap of the scores (not random: resource-fit's cycle 2 ties large and medium
and large wins on every seed); v1.30's selectHost samples among the tied nodes."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.template.loader import render_to_string

from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation
from tests.web.teach_frames import gallery_frames, screen_at

ROOT = Path(__file__).resolve().parents[3]
TEXT = (ROOT / "playground/gallery/resource-fit.yaml").read_text()


def _selected_line(version: str) -> str:
    frames = gallery_frames("resource-fit")
    step = next(i for i, f in enumerate(frames) for e in f["events"] if e["type"] == "cycle_started" and e["cycle"] == 2)
    screen = screen_at(frames, step, text=TEXT)
    screen.run.share_token, screen.run.kubernetes_version = "token", version
    html = render_to_string("playground/runs/partials/cycle_inspector.html", {"screen": screen, "run": screen.run})
    return html.split('id="selected">', 1)[1].split("</p>", 1)[0]


def test_v135_says_first_heap_pop_and_v130_says_random() -> None:
    new = _selected_line("v1.35")
    assert "tie set of 2: large, medium" in new and "v1.35 does not pick at random" in new
    old = _selected_line("v1.30")
    assert "v1.30 picks one of the tied nodes at random" in old and "does not pick at random" not in old


@pytest.mark.parametrize("seed", [0, 1, 7, 42])
def test_the_v135_tie_goes_the_same_way_on_every_seed(seed: int) -> None:
    sim = Simulation(load_scenario_text(TEXT, source="resource-fit.yaml"), seed=seed, record_events=True)
    sim.run(3600.0)
    (cycle2,) = [e for e in sim.sink.events if e["type"] == "selected" and e["cycle"] == 2]
    assert cycle2["ties"] == ["large", "medium"] and cycle2["node"] == "large"
