"""No spoilers: nothing a lesson's prediction asks is visible before it is answered, neither on
the lesson's card (home, /gallery/) nor in the run page's lesson panel; the panel's score counts
answered predictions only."""

from __future__ import annotations

import re
import threading
from types import SimpleNamespace
from typing import Any

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.utils.html import escape

from playground.presenters.runs.lesson import BOUND, NO_NODE, PASSES, answer_key
from playground.selectors.gallery import gallery_entries
from scheduler_core.extender.sample import serve
from scheduler_core.loader import load_scenario_text
from tests.web.teach_frames import engine_frames, screen_at

ENTRIES = [e for e in gallery_entries() if e.questions]
# Answers any lesson's choices share (a queue, "none"): a card may well name a queue.
GENERIC = {NO_NODE, PASSES, BOUND, "none", "activeQ", "backoffQ", "unschedulable", "an extender"}
RUN = SimpleNamespace(share_token="t")


def named(word: str, text: str) -> bool:
    """`word` appears in `text` as a name of its own (not inside another name)."""
    return re.search(rf"(?<![\w./-]){re.escape(word)}(?![\w/-])", text) is not None


def panel(screen: Any) -> str:
    """The lesson panel as the run page renders it, without the prediction form (its choices
    list every possible answer, the right one among them)."""
    html = render_to_string("playground/runs/partials/lesson.html", {"run": RUN, "screen": screen})
    return re.sub(r'<form id="predict-form".*?</form>', "", html, flags=re.S)


def cycle_frame(frames: list[dict[str, Any]], cycle: int) -> int:
    return next(i for i, f in enumerate(frames) for e in f["events"] if e["type"] == "cycle_started" and e["cycle"] == cycle)


@pytest.fixture(scope="module")
def extender_url() -> Any:
    server = serve(port=0, quiet=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.django_db
@pytest.mark.parametrize("entry", ENTRIES, ids=[e.slug for e in ENTRIES])
def test_neither_the_card_nor_the_panel_gives_an_answer_away_before_it_is_answered(
    entry: Any, extender_url: str, client: Client
) -> None:
    text = entry.text.replace("http://127.0.0.1:8888", extender_url)
    (lesson,) = load_scenario_text(text).lessons
    frames = engine_frames(text, seed=0, feature_gates=entry.feature_gates)
    nodes = {n["name"] for f in frames for n in f["view"].get("nodes", [])}
    gallery = client.get("/gallery/").content.decode()
    card = re.search(rf'<li class="lesson-card[^"]*" data-lesson="{entry.slug}">(.*?)</li>', gallery, re.S)
    assert card is not None
    card_text = card.group(1)
    assert not [n for n in nodes if named(n, card_text)], (entry.slug, card_text)  # no node is named at all
    for number, step in enumerate(lesson.steps):
        if step.predict is None:
            continue
        index = step.step if step.step is not None else cycle_frame(frames, step.cycle)
        right, why = answer_key(step, screen_at(frames, index, text=text))
        answers = [a for a in right.split(", ") if a and a not in GENERIC]
        assert not [a for a in answers if named(a, card_text)], (entry.slug, answers)
        # The panel one frame before the stop: the question is asked, and neither the stop's
        # caption nor a later one (the "All stops" list included), nor the answer's explanation,
        # is on it. (Passed stops' captions may name nodes: those stops are on screen already.)
        before = screen_at(frames, index - 1, text=text)
        assert before.lesson["question"]["index"] == number
        shown = panel(before)
        previous = before.lesson["current"] or {}
        assert previous.get("why") == why or escape(why) not in shown, (entry.slug, number)
        if previous.get("right") != right:  # (descheduler-rebalance: two cycles pick the same node)
            assert f"<strong>{escape(right)}</strong>" not in shown, (entry.slug, number)
        for later in lesson.steps[number:]:
            assert escape(later.caption)[:40] not in shown, (entry.slug, later.caption)
            assert escape(later.caption.split(".")[0])[:40] not in shown, (entry.slug, later.caption)


def test_a_stop_reached_before_the_point_that_decides_it_keeps_its_caption_and_answer() -> None:
    """storage-capacity-scoring stops at cycle 1's Score point and asks which node wins: its
    caption names the winner, and the winner is only known at Select."""
    entry = next(e for e in ENTRIES if e.slug == "storage-capacity-scoring")
    frames = engine_frames(entry.text, seed=0, feature_gates=entry.feature_gates)
    index = cycle_frame(frames, 1)
    groups = screen_at(frames, index, text=entry.text).groups
    at_score = screen_at(frames, index, groups.index("score") + 1, text=entry.text)
    current = at_score.lesson["current"]
    assert current is not None and current["step"].point == "Score" and "right" not in current
    html = panel(at_score)
    assert escape(current["step"].caption) not in html and not named("big-disk", html)
    assert "The answer is revealed when the cycle is" in html
    whole = panel(screen_at(frames, index, text=entry.text))
    assert escape(current["step"].caption) in whole and "The answer: <strong>big-disk</strong>" in whole


def test_the_score_counts_answered_predictions_only() -> None:
    entry = next(e for e in ENTRIES if e.slug == "resource-fit")
    frames = engine_frames(entry.text, seed=0)
    end = len(frames) - 1
    silent = panel(screen_at(frames, end, text=entry.text))
    assert "The lesson is over" in silent and "you got 0" not in silent and "0 of" not in silent
    assert f"you answered none of its {entry.questions} questions" in silent
    assert f"none of {entry.questions} questions answered yet" in silent
    one = panel(screen_at(frames, end, text=entry.text, answers={"1": "large"}))
    assert f"you answered 1 of {entry.questions} questions and got 1 right" in one
    assert f"1 of {entry.questions} answered · 1 right" in one
    ahead = panel(screen_at(frames, 1, text=entry.text, answers={"1": "large", "3": "small"}))
    assert f"2 of {entry.questions} answered · 1 right · 1 to check" in ahead  # cycle 3 not shown yet
