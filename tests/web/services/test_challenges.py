"""Challenges: the document's format, the checker on a run's outcome, the gallery's challenges
(each fails as given and passes with its stored solution), and the run page's verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from scheduler_core.api.challenge import check
from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation
from tests.web.services.runs.test_runs_services import inline_worker  # noqa: F401  (fixture)

GALLERY = Path(__file__).resolve().parents[3] / "playground" / "gallery"
CHALLENGES = sorted(GALLERY.glob("challenge-*.yaml"))


def _verdict(text: str, source: str) -> list:
    scenario = load_scenario_text(text, source=source)
    (challenge,) = scenario.challenges
    sim = Simulation(scenario, seed=0, record_events=True)
    assert sim.run(3600.0) is True
    return check(challenge, sim.view()["pods"], sim.sink.events)


def test_there_are_eight_challenges_each_with_a_solution() -> None:
    assert len(CHALLENGES) >= 8
    for path in CHALLENGES:
        assert (GALLERY / "solutions" / path.name).is_file(), path.name


@pytest.mark.parametrize("path", CHALLENGES, ids=[p.stem for p in CHALLENGES])
def test_each_challenge_fails_as_given_and_passes_with_its_solution(path: Path) -> None:
    given = _verdict(path.read_text(), path.name)
    assert not all(r.passed for r in given), [(r.goal, r.why) for r in given]
    solved = _verdict((GALLERY / "solutions" / path.name).read_text(), "solution-" + path.name)
    assert all(r.passed for r in solved), [(r.goal, r.why) for r in solved if not r.passed]


CH = """
---
apiVersion: playground.kube-scheduler.dev/v1
kind: Challenge
metadata: {name: c}
task: "Do it."
goals:
"""
NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: '4', pods: '110'}}\n"


@pytest.mark.parametrize(("goals", "field", "why"), [
    ("- podOn: {pod: a}\n", "goals[0].podOn", "expected {pod, node}"),
    ("- allBound: yes-please\n", "goals[0].allBound", "expected true"),
    ("- winsTheGame: true\n", "goals[0].winsTheGame", "Unsupported value"),
    ("- preemptions: {preemptor: a, victims: -1}\n", "goals[0].preemptions.victims", "0 or more"),
])
def test_a_bad_challenge_is_refused_with_its_document_and_field(goals: str, field: str, why: str) -> None:
    with pytest.raises(ScenarioError) as error:
        load_scenario_text(NODE + CH + goals, source="c.yaml")
    assert (error.value.kind, error.value.document, error.value.field) == ("Challenge", 2, field)
    assert why in error.value.reason


def test_the_checker_says_why_each_goal_holds_or_not() -> None:
    text = (GALLERY / "challenge-keep-a-empty.yaml").read_text()
    results = {r.goal: r for r in _verdict(text, "k")}
    empty = results["node a runs no pod"]
    assert not empty.passed and empty.why.startswith("node a runs default/web-")


@pytest.mark.django_db
def test_the_run_page_says_solved_or_not_from_the_run(client, inline_worker: list) -> None:  # noqa: ANN001, F811
    from django.urls import reverse

    from playground.models import RunAction
    from playground.services.runs import actions as svc
    from playground.services.scenarios import scenario_create
    from tests.web.services.runs.test_runs_services import OWNER, act

    def page(text: str) -> str:
        scenario = scenario_create(actor=OWNER, name="c", yaml_text=text)
        run = svc.run_start(scenario=scenario, actor=OWNER)
        before = client.get(reverse("playground:run", args=[run.share_token])).content.decode()
        assert "Not yet: run it to the end" in before
        act(run, RunAction.KIND_PLAY)
        return client.get(reverse("playground:run", args=[run.share_token])).content.decode()

    given = page((GALLERY / "challenge-one-victim.yaml").read_text())
    assert 'id="run-challenge"' in given and "<strong>Not solved</strong>" in given
    assert "important preempted 0" in given and "Hints (2)" in given
    solved = page((GALLERY / "solutions" / "challenge-one-victim.yaml").read_text())
    assert "<strong>Solved</strong>" in solved and "important preempted 1: default/low-3" in solved
