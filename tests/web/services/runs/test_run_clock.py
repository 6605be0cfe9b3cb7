"""Letting a run's clock run: the unschedulable pods' leftover flush (5 minutes, checked every
30 s) becomes visible even in a settled run, and a rebuilt engine replays the same frames."""

from __future__ import annotations

import pytest

from playground.models import RunAction
from playground.services.runs import actions as svc
from playground.services.runs import engine as run_engine
from playground.services.runs.errors import RunError
from tests.web.services.runs.test_runs_services import OWNER, act, inline_worker, start  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db


def test_the_leftover_flush_moves_the_unschedulable_pod_after_five_minutes(inline_worker: list) -> None:  # noqa: F811
    run = start("resource-fit")
    act(run, RunAction.KIND_PLAY)
    moves = run.events.filter(type="queue_move", data__pod="default/too-big")
    assert moves.order_by("-seq").first().data["to"] == "unschedulable"
    assert act(run, RunAction.KIND_ADVANCE_CLOCK).result == "nothing is scheduled"  # the plain advance waits for nothing

    done = act(run, RunAction.KIND_ADVANCE_CLOCK, {"seconds": 330})
    assert done.state == RunAction.STATE_DONE and done.result == "clock 330s"
    later = [m.data for m in moves.order_by("seq") if m.data["time"] > 0]
    # more than 5 minutes after its attempt at 0 s: the 30-s flush at 330 s, not the one at 300 s
    assert later[0]["from"] == "unschedulable" and later[0]["time"] == 330.0, later
    assert later[-1]["to"] == "unschedulable"  # tried again, still too big
    assert run.frames.order_by("-step").first().clock == 330.0

    frames = list(run.frames.order_by("step").values_list("step", "result", "clock"))
    rebuilt = run_engine.load_simulation(run.scenario_yaml, run.seed)
    from playground.services.runs.engine import apply_unit

    replayed = [(0, "start", 0.0)] + [
        (f.step, apply_unit(rebuilt, f.unit), rebuilt.clock.now()) for f in run.frames.order_by("step") if f.step
    ]
    assert replayed == [(s, r, c) for s, r, c in frames]


@pytest.mark.parametrize("seconds", ["", "0", "abc", "99999"])
def test_bad_seconds_are_refused_before_anything_is_queued(seconds: str) -> None:
    run = start("resource-fit")
    with pytest.raises(RunError, match="seconds"):
        svc.run_enqueue(run=run, actor=OWNER, kind=RunAction.KIND_ADVANCE_CLOCK, params={"seconds": seconds})
    assert not run.actions.exists()


def test_the_run_page_offers_it_and_queues_it(client, inline_worker: list) -> None:  # noqa: ANN001, F811
    from django.urls import reverse

    run = start("resource-fit")
    session = client.session
    session["playground_owner_token"] = OWNER.session_token
    session.save()
    url = reverse("playground:run", args=[run.share_token])
    assert 'id="btn-run-clock"' in client.get(url).content.decode()
    response = client.post(url, {"action": "run_clock", "seconds": "45"}, HTTP_HX_REQUEST="true")
    assert "let the clock run 45 s" in response.content.decode()
    assert run.actions.get().params == {"seconds": 45.0}
    refused = client.post(url, {"action": "run_clock", "seconds": "-1"}, HTTP_HX_REQUEST="true")
    assert refused.status_code == 400 and "out of range" in refused.content.decode()
