"""A run whose user deleted, live, a node its Timeline acts on later is not stuck: the worker
(`advance_run`, executed in this process as the Celery task would) plays past the action's time,
the engine skips it with the API server's NotFound, and the run page's event log says so."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from playground.models import RunAction
from tests.web.services.runs.test_runs_services import act, inline_worker, start  # noqa: F401 - a fixture

pytestmark = pytest.mark.django_db


def test_a_timeline_action_on_a_node_the_user_deleted_does_not_stick_the_run(
    client: Client, inline_worker: list  # noqa: F811 - the fixture imported above
) -> None:
    run = start("node-not-ready")
    deleted = act(run, RunAction.KIND_CLUSTER, {"action": "deleteNode", "node": "worker-2"})
    assert deleted.state == RunAction.STATE_DONE
    # Clock jumps up to the timeline's t=10 and past it: each is done, none left pending.
    for _ in range(3):
        jumped = act(run, RunAction.KIND_ADVANCE_CLOCK)
        assert jumped.state == RunAction.STATE_DONE, jumped.result
    assert not run.actions.exclude(state=RunAction.STATE_DONE).exists()
    failed = [e.data for e in run.events.filter(type="timeline_action_failed")]
    assert [(e["time"], e["action"], e["object"], e["reason"], e["message"]) for e in failed] == [
        (10.0, "setNodeCondition", "worker-2", "NotFound", 'nodes "worker-2" not found')]
    # The rest of the timeline applies: worker-1's condition at t=10, then the late pod's play.
    played = act(run, RunAction.KIND_PLAY)
    assert played.state == RunAction.STATE_DONE, played.result
    applied = [(e.data["time"], e.data["action"]) for e in run.events.filter(type="cluster_action").order_by("seq")]
    assert (10.0, "setNodeCondition") in applied and (80.0, "addPod") in applied
    log = _get(client, run, "run_log", type="timeline_action_failed")
    assert ("Timeline setNodeCondition of node worker-2 skipped: the API server answered NotFound: "
            "nodes &quot;worker-2&quot; not found") in log


def _get(client: Client, run: Any, name: str, **params: Any) -> str:
    response = client.get(reverse(f"playground:{name}", args=[run.share_token]), params)
    assert response.status_code == 200
    return response.content.decode()
