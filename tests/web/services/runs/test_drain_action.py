"""drainNode from the run page's form: refused in the request with its field when the node is
missing or the timeout is not a number, queued and applied by the worker otherwise, and kubectl's
lines reach the stored events and the evictions panel. Real DB, Redis and the worker's code."""

from __future__ import annotations

import pytest

from playground.models import RunAction
from playground.presenters.runs import run_screen
from playground.services.runs import errors as run_errors
from playground.services.runs import forms as run_forms
from tests.web.services.runs.test_runs_services import OWNER, act, inline_worker, start  # noqa: F401

pytestmark = pytest.mark.django_db


def drain_form(**fields: str) -> dict:
    return run_forms.cluster_action_from_form({"what": "drainNode", **fields})


def test_the_drain_form_becomes_kubectl_drains_flags() -> None:
    assert drain_form(node="worker-1", ignoreDaemonSets="1", timeout="60") == {
        "action": "drainNode", "node": "worker-1", "ignoreDaemonSets": True, "timeout": 60}
    with pytest.raises(run_errors.RunError) as error:
        drain_form(node="")
    assert error.value.field == "node"
    with pytest.raises(run_errors.RunError) as error:
        drain_form(node="worker-1", timeout="soon")
    assert error.value.field == "timeout"


def test_a_drain_of_a_missing_node_or_a_bad_timeout_is_refused_in_the_request(inline_worker: list) -> None:  # noqa: F811
    run = start("drain-pdb")
    before = run.actions.count()
    with pytest.raises(run_errors.RunError) as error:
        act(run, RunAction.KIND_CLUSTER, drain_form(node="worker-9"))
    assert error.value.field == "node" and 'node "worker-9" does not exist' in error.value.message
    with pytest.raises(run_errors.RunError) as error:
        act(run, RunAction.KIND_CLUSTER, drain_form(node="worker-1", timeout="0"))
    assert error.value.field == "timeout" and "must be more than 0" in error.value.message
    assert run.actions.count() == before  # nothing was queued


def test_a_drain_from_the_form_runs_in_the_worker_and_says_kubectls_words(inline_worker: list) -> None:  # noqa: F811
    run = start("drain-pdb")
    done = act(run, RunAction.KIND_CLUSTER, drain_form(node="worker-2"))
    assert done.state == RunAction.STATE_DONE
    lines = [e.data["line"] for e in run.events.filter(type="drain").order_by("seq")]
    assert lines == ["node/worker-2 cordoned", "evicting pod default/web-c", "pod/web-c evicted",
                     "node/worker-2 drained"]
    screen = run_screen(run=run, actor=OWNER)
    assert [e["line"] for e in screen.evicted if e["type"] == "drain"] == lines
