"""Challenges that cannot be built broken (issue 39, item 6): the builder refuses goals naming
pods or nodes the scenario lacks (field and why, in place, nothing saved); the results page
judges every attempt against the goals as they read now; the share link is the join form, and
joining gives the learner their own copy; the results link each learner's latest run; a
scenario without a challenge offers no "Its challenge" link to a visitor."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from playground.models import ChallengeLearner, Scenario
from playground.ownership import Actor
from playground.services.runs import actions as svc
from playground.services.scenarios import scenario_create, scenario_fork
from tests.web.presenters.test_challenge_results import act_as
from tests.web.services.runs.test_runs_services import inline_worker  # noqa: F401  (fixture)
from tests.web.services.test_challenges import GALLERY

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("channel_layer")]  # saves and joins notify
TEACHER = Actor(session_token="teacher-never-broken")
ADA = Actor(session_token="ada-never-broken")

NODES = "".join(
    f"apiVersion: v1\nkind: Node\nmetadata: {{name: {n}}}\nstatus: {{capacity: {{cpu: '8', pods: '110'}}}}\n---\n"
    for n in ("a", "b"))
PODS = "---\n".join(
    f"apiVersion: v1\nkind: Pod\nmetadata: {{name: web-{i}}}\nspec:\n  containers: [{{name: c, resources: {{requests: {{cpu: '1'}}}}}}]\n"
    for i in (1, 2, 3))
TIMELINE = """---
apiVersion: playground.kube-scheduler.dev/v1
kind: Timeline
actions:
- {at: 5, action: addNode, node: {apiVersion: v1, kind: Node, metadata: {name: late-node}, status: {capacity: {cpu: '4', pods: '110'}}}}
- {at: 6, action: addPod, pod: {apiVersion: v1, kind: Pod, metadata: {name: late-pod, namespace: team}, spec: {containers: [{name: c}]}}}
"""


_clients: dict[str, Client] = {}


@pytest.fixture(autouse=True)
def _fresh_clients() -> None:
    """One browser per person within a test (its cookies carry the flashed messages)."""
    _clients.clear()


def _client(token: str) -> Client:
    if token not in _clients:
        client = Client()
        session = client.session
        session["playground_owner_token"] = token
        session.save()
        _clients[token] = client
    return _clients[token]


def _save(scenario: Scenario, goals: str, token: str = TEACHER.session_token) -> Any:
    return _client(token).post(reverse("playground:challenge_builder", args=[scenario.share_token]),
                               {"title": "t", "task": "Do it.", "goals": goals, "hints": ""})


def _challenge_goals(scenario: Scenario) -> Any:
    obj = scenario.kube_objects.filter(kind="Challenge").first()
    return obj.manifest["goals"] if obj else None


def test_goals_naming_missing_pods_or_nodes_are_refused_in_place_and_nothing_is_saved() -> None:
    scenario = scenario_create(actor=TEACHER, name="c", yaml_text=NODES + PODS)
    response = _save(scenario, "- podOn: {pod: web-9, node: c}\n- nodeRuns: {node: b, pods: [web-1, web-7]}\n"
                               "- preemptions: {preemptor: big, victims: 1}\n- allBound: true\n")
    assert response.status_code == 400
    page = response.content.decode()
    assert "Challenge saved" not in page
    problems = re.findall(r"<li><code>([^<]+)</code>: ([^<]+)</li>", page)
    assert [field for field, _ in problems] == [
        "goals[0].podOn.pod", "goals[0].podOn.node", "goals[1].nodeRuns.pods[1]", "goals[2].preemptions.preemptor"]
    assert problems[0][1] == "no pod &quot;web-9&quot; in this scenario (it has web-1, web-2, web-3)"
    assert problems[1][1] == "no node &quot;c&quot; in this scenario (it has a, b)"
    assert 'aria-invalid="true"' in page and "web-9, node: c" in page  # the teacher's text is kept to fix
    assert _challenge_goals(scenario) is None  # nothing saved

    # Replacing a good challenge with a bad one keeps the good one.
    assert _save(scenario, "- nodeEmpty: a\n").status_code == 302
    assert _save(scenario, "- distinctNodes: [web-1, web-1]\n").status_code == 400
    assert _challenge_goals(scenario) == [{"nodeEmpty": "a"}]


def test_names_the_timeline_adds_and_namespaced_pods_are_accepted() -> None:
    scenario = scenario_create(actor=TEACHER, name="c", yaml_text=NODES + PODS + TIMELINE)
    goals = "- podOn: {pod: team/late-pod, node: late-node}\n- distinctNodes: [web-1, default/web-2]\n"
    assert _save(scenario, goals).status_code == 302
    assert _challenge_goals(scenario) == [{"podOn": {"pod": "team/late-pod", "node": "late-node"}},
                                          {"distinctNodes": ["web-1", "default/web-2"]}]
    page = _save(scenario, "- podPending: late-pod\n").content.decode()  # default/late-pod: not there
    assert "goals[0].podPending" in page and "team/late-pod" in page


def test_a_format_error_is_shown_under_the_goals_with_its_field() -> None:
    scenario = scenario_create(actor=TEACHER, name="c", yaml_text=NODES + PODS)
    page = _save(scenario, "- allBound: tru\n").content.decode()
    assert '<p class="error" role="alert" id="challenge-error">Not saved: <code>goals[0].allBound</code>: expected true' \
        in page
    assert _challenge_goals(scenario) is None


def test_the_share_link_is_the_join_form_and_joining_gives_the_learner_their_own_copy() -> None:
    scenario = scenario_create(actor=TEACHER, name="Keep a empty",
                               yaml_text=(GALLERY / "challenge-keep-a-empty.yaml").read_text())
    builder = reverse("playground:challenge_builder", args=[scenario.share_token])
    saved = _save(scenario, "- nodeEmpty: a\n")
    assert saved.status_code == 302 and saved["Location"] == builder
    page = _client(TEACHER.session_token).get(builder).content.decode()
    assert "Challenge saved" in page
    share = re.search(r'value="([^"]+)" id="challenge-share-link"', page).group(1)
    assert share == "http://testserver" + builder

    learner = _client(ADA.session_token)
    form = learner.get(share).content.decode()
    assert 'id="nickname-form"' in form and "Do it." in form and 'id="challenge-form"' not in form
    joined = learner.post(builder, {"action": "join", "nickname": "  Ada  "})
    copy = Scenario.objects.get(forked_from=scenario, owner_token=ADA.session_token)
    assert joined["Location"] == reverse("playground:scenario", args=[copy.share_token])
    assert ChallengeLearner.objects.get(scenario=scenario, owner_token=ADA.session_token).nickname == "Ada"
    assert copy.kube_objects.count() == scenario.kube_objects.count()
    assert "This copy is yours" in learner.get(joined["Location"]).content.decode()

    again = learner.post(builder, {"action": "join", "nickname": "Ada L."})  # renaming: the same copy
    assert again["Location"] == joined["Location"]
    assert Scenario.objects.filter(forked_from=scenario).count() == 1
    assert 'id="your-copy-link"' in learner.get(builder).content.decode()

    refused = _client("bo-never-broken").post(builder, {"action": "join", "nickname": "   "})
    assert refused.status_code == 302 and not Scenario.objects.filter(owner_token="bo-never-broken").exists()


def test_its_challenge_is_offered_only_where_there_is_one() -> None:
    plain = scenario_create(actor=TEACHER, name="plain", yaml_text=NODES + PODS)
    with_one = scenario_create(actor=TEACHER, name="with", yaml_text=(GALLERY / "challenge-keep-a-empty.yaml").read_text())
    visitor = _client(ADA.session_token)
    assert 'id="challenge-link"' not in visitor.get(reverse("playground:scenario", args=[plain.share_token])).content.decode()
    assert 'id="challenge-link"' in visitor.get(reverse("playground:scenario", args=[with_one.share_token])).content.decode()
    owner = _client(TEACHER.session_token)  # the owner may write one
    assert 'id="challenge-link"' in owner.get(reverse("playground:scenario", args=[plain.share_token])).content.decode()


def test_results_follow_the_goals_as_they_read_now_and_link_each_latest_run(inline_worker: list) -> None:  # noqa: F811
    scenario = scenario_create(actor=TEACHER, name="Keep a empty",
                               yaml_text=(GALLERY / "challenge-keep-a-empty.yaml").read_text())
    builder = reverse("playground:challenge_builder", args=[scenario.share_token])
    learner = _client(ADA.session_token)
    learner.post(builder, {"action": "join", "nickname": "Ada"})
    copy = Scenario.objects.get(forked_from=scenario, owner_token=ADA.session_token)
    runs = []
    for _ in range(2):  # unchanged: node a keeps two web pods
        run = svc.run_start(scenario=copy, actor=ADA)
        act_as(run, ADA)
        runs.append(run)

    table_url = reverse("playground:challenge_results", args=[scenario.share_token])
    teacher = _client(TEACHER.session_token)
    table = teacher.get(table_url, {"part": "table"}).content.decode()
    assert "<td>Ada</td><td>2</td><td>2</td><td>—</td>" in table
    assert "Most common wrong answer (2 attempts)" in table and "node a runs no pod: node a runs" in table
    latest = reverse("playground:run", args=[runs[-1].share_token])
    assert f'<a class="latest-run" href="{latest}">run #2</a>' in table
    assert teacher.get(latest).status_code == 200  # the teacher may open it

    # The teacher fixes the goals: the same attempts are judged again, no failure of the old ones stays.
    assert _save(scenario, "- allBound: true\n- nodeRuns: {node: b, pods: [web-2]}\n").status_code == 302
    table = teacher.get(table_url, {"part": "table"}).content.decode()
    assert "<td>Ada</td><td>2</td><td>2</td><td>✓ solved</td>" in table
    assert "node a runs no pod" not in table and "No wrong answer yet." in table
    assert "judged against the goals as they read now: every pod is bound; node b runs exactly web-2." in table


def test_the_learners_run_page_follows_the_teachers_fixed_goals_too(inline_worker: list) -> None:  # noqa: F811
    scenario = scenario_create(actor=TEACHER, name="Keep a empty",
                               yaml_text=(GALLERY / "challenge-keep-a-empty.yaml").read_text())
    learner = _client(ADA.session_token)
    learner.post(reverse("playground:challenge_builder", args=[scenario.share_token]), {"action": "join", "nickname": "Ada"})
    copy = Scenario.objects.get(forked_from=scenario, owner_token=ADA.session_token)
    run = svc.run_start(scenario=copy, actor=ADA)
    act_as(run, ADA)
    page = reverse("playground:run", args=[run.share_token])
    assert "<strong>Not solved</strong>" in learner.get(page).content.decode()
    lone = Actor(session_token="lone-never-broken")  # forks the old goals without joining
    lone_copy = scenario_fork(scenario=scenario, actor=lone)
    assert _save(scenario, "- allBound: true\n").status_code == 302
    fixed = learner.get(page).content.decode()
    assert "<strong>Solved</strong>" in fixed and "node a runs no pod" not in fixed

    # A copy forked without joining keeps judging by the goals it carries.
    own = svc.run_start(scenario=lone_copy, actor=lone)
    act_as(own, lone)
    assert "node a runs no pod" in learner.get(reverse("playground:run", args=[own.share_token])).content.decode()
