"""Lessons: the Lesson document's format, the gallery's lessons, predictions checked by events."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from playground.presenters.runs.lesson import answer_key
from playground.selectors.gallery import gallery_entries
from scheduler_core.api.errors import ScenarioError
from scheduler_core.api.lesson import lessons_of_text
from scheduler_core.extender.sample import serve
from scheduler_core.loader import load_scenario_text
from tests.web.services.runs.test_runs_services import inline_worker  # noqa: F401  (fixture)
from tests.web.teach_frames import engine_frames, screen_at

ENTRIES = gallery_entries()
NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: '1', memory: 1Gi}}\n"


def _lesson(body: str) -> str:
    return NODE + "---\napiVersion: playground.kube-scheduler.dev/v1\nkind: Lesson\nmetadata: {name: l}\n" + body


def test_the_loader_carries_lessons_and_keeps_document_numbers() -> None:
    text = _lesson("steps:\n- {cycle: 1, caption: hi, watch: [scores], predict: winner}\n") + (
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: x, resources: {requests: {cpu: abc}}}]}\n"
    )
    with pytest.raises(ScenarioError) as error:
        load_scenario_text(text)
    assert error.value.document == 3  # the Pod is still document 3 for its error
    scenario = load_scenario_text(text.rsplit("---", 1)[0])
    (lesson,) = scenario.lessons
    assert lesson.steps[0].cycle == 1 and lesson.steps[0].predict.question == "winner"
    assert lessons_of_text(text.rsplit("---", 1)[0]) == [lesson]


@pytest.mark.parametrize(
    ("body", "field", "reason"),
    [
        ("steps: []\n", "steps", "Required value"),
        ("steps:\n- {caption: x}\n", "steps[0]", "exactly one of step"),
        ("steps:\n- {cycle: 1, caption: x, watch: [nowhere]}\n", "steps[0].watch", "Unsupported value"),
        ("steps:\n- {cycle: 1, caption: x, predict: {question: rejectedBy}}\n", "steps[0].predict.node", "Required"),
        ("steps:\n- {cycle: 1, caption: x, colour: red}\n", "steps[0].colour", "unknown field"),
    ],
)
def test_a_bad_lesson_names_the_document_and_the_field(body: str, field: str, reason: str) -> None:
    with pytest.raises(ScenarioError) as error:
        load_scenario_text(_lesson(body))
    assert (error.value.kind, error.value.document, error.value.field) == ("Lesson", 2, field)
    assert reason in error.value.reason


@pytest.fixture(scope="module")
def extender_url() -> Any:
    server = serve(port=0, quiet=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.slug for e in ENTRIES])
def test_every_gallery_scenario_is_a_lesson_whose_stops_and_questions_exist(entry: Any, extender_url: str) -> None:
    text = entry.text.replace("http://127.0.0.1:8888", extender_url)
    (lesson,) = load_scenario_text(text).lessons
    frames = engine_frames(text, seed=0, feature_gates=entry.feature_gates)
    for step in lesson.steps:
        if step.step is not None:
            index = step.step
        else:
            index = next(
                i for i, f in enumerate(frames) for e in f["events"]
                if e["type"] == "cycle_started" and e["cycle"] == step.cycle
            )
        screen = screen_at(frames, index, text=text)
        assert screen.lesson["current"]["step"] == step
        if step.predict is not None:
            right, why = answer_key(step, screen)
            assert right and why, (entry.slug, step)
            before = screen_at(frames, index - 1, text=text)
            question = before.lesson["question"]
            assert question is not None and question["step"] == step
            if step.predict.question != "victims":
                assert right in question["choices"], (entry.slug, right, question["choices"])
            else:
                assert set(right.split(", ")) <= set(question["choices"])


def test_answers_are_checked_against_the_events_and_scored() -> None:
    entry = next(e for e in ENTRIES if e.slug == "resource-fit")
    frames = engine_frames(entry.text, seed=0)
    # cycle 1: large wins; cycle 3: medium wins (steps 1 and 3).
    screen = screen_at(frames, 1, text=entry.text, answers={"1": "large", "3": "large"})
    current = screen.lesson["current"]
    assert current["right"] == "large" and current["correct"] and "won" in current["why"]
    screen = screen_at(frames, 3, text=entry.text, answers={"1": "large", "3": "large"})
    assert screen.lesson["current"]["right"] == "medium" and not screen.lesson["current"]["correct"]
    assert (screen.lesson["score"], screen.lesson["answered"]) == (1, 2)
    assert screen.lesson["watch"] == ["#score-table"]


@pytest.mark.django_db
def test_predict_then_step_reveals_and_scores_on_the_run_page(client: Any, inline_worker: list) -> None:  # noqa: F811
    from playground.models import RunAction
    from playground.services.runs import actions as svc
    from tests.web.services.runs.test_runs_services import OWNER, act, gallery_scenario

    run = svc.run_start(scenario=gallery_scenario("resource-fit"), actor=OWNER)
    url = f"/runs/{run.share_token}/"
    html = client.get(url).content.decode()
    assert 'id="lesson-caption"' in html and "Eight pods wait in activeQ" in html
    assert 'id="predict-form"' in html and "Which node wins this cycle?" in html
    assert "#run-queues, #run-cluster { outline" in html  # the panels to watch, highlighted
    answer = client.post(url, {"action": "predict", "index": "1", "answer": "large"}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200 and "Your prediction for cycle 1: <strong>large</strong>" in answer.content.decode()
    act(run, RunAction.KIND_STEP)
    html = client.get(url).content.decode()
    assert "You predicted <strong>large</strong>: right ✓" in html and "1 of 4 answered · 1 right" in html
    assert "#score-table { outline" in html


@pytest.mark.django_db
def test_the_timeline_marks_failures_preemptions_and_evictions(client: Any, inline_worker: list) -> None:  # noqa: F811
    from playground.models import RunAction
    from playground.services.runs import actions as svc
    from tests.web.services.runs.test_runs_services import OWNER, act, gallery_scenario

    run = svc.run_start(scenario=gallery_scenario("priority-preemption"), actor=OWNER)
    act(run, RunAction.KIND_PLAY)
    html = client.get(f"/runs/{run.share_token}/").content.decode()
    assert f'id="scrub" name="step" min="0" max="{run.head_step}"' in html
    preempted = run.events.filter(type="preemption").values_list("step", flat=True).first()
    assert f'class="mark mark-preemption" style="left: {round(preempted / run.head_step * 100, 2)}%" href="/runs/{run.share_token}/?step={preempted}"' in html
    failed_steps = {e.step for e in run.events.filter(type="k8s_event") if e.data.get("reason") == "FailedScheduling"}
    assert len(failed_steps) >= 2  # payments, then reports (and a retry the async edges cause)
    assert html.count('class="mark mark-failed" style=') == len(failed_steps)
    evicting = svc.run_start(scenario=gallery_scenario("noexecute-eviction"), actor=OWNER)
    act(evicting, RunAction.KIND_PLAY)
    html = client.get(f"/runs/{evicting.share_token}/").content.decode()
    assert html.count('class="mark mark-eviction" style=') == 2 and 'class="mark mark-change" style=' in html


def test_a_stop_with_a_point_waits_for_that_point_when_stepping_extension_points() -> None:
    """priority-preemption's cycle-1 stop is `point: PostFilter`, asking which victims go: while
    "Step extension point" has revealed only Pop/PreFilter/Filter it is still ahead (and asked);
    once PostFilter is revealed it is on screen and the answer is checked."""
    entry = next(e for e in ENTRIES if e.slug == "priority-preemption")
    frames = engine_frames(entry.text, seed=0)
    index = next(i for i, f in enumerate(frames) for e in f["events"] if e["type"] == "cycle_started" and e["cycle"] == 1)
    groups = screen_at(frames, index, text=entry.text).groups
    assert "postfilter" in groups
    at_filter = screen_at(frames, index, groups.index("filter") + 1, text=entry.text, answers={"1": "x"})
    stop = at_filter.lesson["steps"][1]
    assert stop["step"].point == "PostFilter" and not stop["at"] and stop["ahead"]
    assert at_filter.lesson["question"]["step"] == stop["step"]  # still asked at Filter
    at_postfilter = screen_at(frames, index, groups.index("postfilter") + 1, text=entry.text, answers={"1": "x"})
    stop = at_postfilter.lesson["current"]
    assert stop is not None and stop["step"].point == "PostFilter"
    assert stop["right"] and stop["right"] != "none" and stop["correct"] is False
    whole = screen_at(frames, index, text=entry.text, answers={"1": stop["right"]})
    assert whole.lesson["current"]["correct"]


@pytest.mark.parametrize(("slug", "answers", "watched"), [
    ("zone-bound-volume", ["VolumeZone", "b2", "unschedulable"], "#run-storage"),
    ("read-write-once-pod", ["default/compactor", "n1", "unschedulable"], "#run-storage"),
])
def test_the_storage_lessons_answers_are_what_their_captions_teach(slug: str, answers: list[str], watched: str) -> None:
    entry = next(e for e in ENTRIES if e.slug == slug)
    (lesson,) = load_scenario_text(entry.text).lessons
    frames = engine_frames(entry.text, seed=0)
    rights = []
    for step in [s for s in lesson.steps if s.predict is not None]:
        index = next(i for i, f in enumerate(frames) for e in f["events"]
                     if e["type"] == "cycle_started" and e["cycle"] == step.cycle)
        rights.append(answer_key(step, screen_at(frames, index, text=entry.text))[0])
    assert [r.split(" ")[0].split(":")[0] for r in rights] == answers, rights
    assert watched in screen_at(frames, 0, text=entry.text).lesson["watch"]
