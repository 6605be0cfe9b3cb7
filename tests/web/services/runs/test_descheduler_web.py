"""The run page's "Run the descheduler" action: queued through the page like any cluster action,
executed by the worker's code (inline), its evictions in the evictions and events panels and its
replacements in the queue; refused in the request when the scenario has no DeschedulerPolicy.
Real DB and Redis."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from playground.models import RunAction, RunEvent
from playground.ownership import SESSION_KEY
from playground.selectors.frame_views import view_at
from playground.services.runs import actions as svc
from playground.services.runs import errors as run_errors
from tests.web.services.runs.test_runs_services import OWNER, _capture_run, inline_worker, start  # noqa: F401

pytestmark = pytest.mark.django_db


def _owner_client() -> Client:
    client = Client()
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    return client


def _post(client: Client, url: str, data: dict[str, Any]) -> Any:
    with _capture_run():
        return client.post(url, data, HTTP_HX_REQUEST="true")


def test_the_button_runs_a_pass_whose_evictions_and_replacements_the_page_shows(inline_worker: list) -> None:  # noqa: F811
    run = start("descheduler-rebalance")
    client = _owner_client()
    url = f"/runs/{run.share_token}/"
    assert 'id="btn-descheduler"' in client.get(url).content.decode()
    # Two steps: the clock jumps to t=10, node-6 joins and the clock jumps to the interval's first
    # pass (t=60); the descheduler is run by hand before that pass (which then waits a minute more).
    assert _post(client, url, {"action": "step"}).status_code == 200
    assert _post(client, url, {"action": "step"}).status_code == 200
    run.refresh_from_db()
    assert "node-6" in {n["name"] for n in view_at(run=run, step=run.head_step)["nodes"]}
    response = _post(client, url, {"action": "cluster", "what": "runDescheduler"})
    assert response.status_code == 200 and "Queued: runDescheduler" in response.content.decode()
    action = run.actions.get(kind=RunAction.KIND_CLUSTER)
    assert action.state == RunAction.STATE_DONE, action.result
    run.refresh_from_db()
    evicted = list(RunEvent.objects.filter(run=run, type="descheduler_evicted").order_by("seq")
                   .values_list("data", flat=True))
    assert [(e["pod"], e["node"], e["strategy"], e["trigger"]) for e in evicted] == [
        ("default/web-1", "node-1", "LowNodeUtilization", "manual"),
        ("default/web-4", "node-2", "LowNodeUtilization", "manual")]
    finished = RunEvent.objects.get(run=run, type="descheduler_finished").data
    view = view_at(run=run, step=run.head_step)
    assert [p["pod"] for p in view["queues"]["activeQ"]] == finished["recreated"]
    page = client.get(url).content.decode()
    assert "default/web-1 evicted from node-1 by the descheduler (LowNodeUtilization, profile rebalance)" in page
    assert "pod evicted from node-1 node by sigs.k8s.io/descheduler" in page  # the events panel
    for new in finished["recreated"]:
        assert new in page  # the queue panel lists the replacements
    # The story panel says what the pass did.
    assert "The descheduler evicted web-1 from node-1 (LowNodeUtilization) and web-4 from node-2" in page
    # Stepping schedules the replacements onto node-6.
    _post(client, url, {"action": "step"})
    _post(client, url, {"action": "step"})
    run.refresh_from_db()
    node6 = next(n for n in view_at(run=run, step=run.head_step)["nodes"] if n["name"] == "node-6")
    assert sorted(node6["pods"]) == sorted(finished["recreated"])


def test_without_a_policy_the_action_is_refused_and_the_button_absent(inline_worker: list) -> None:  # noqa: F811
    run = start("priority-preemption")
    client = _owner_client()
    url = f"/runs/{run.share_token}/"
    assert 'id="btn-descheduler"' not in client.get(url).content.decode()
    response = _post(client, url, {"action": "cluster", "what": "runDescheduler"})
    assert response.status_code == 400 and "no DeschedulerPolicy" in response.content.decode()
    assert not run.actions.exists()
    with pytest.raises(run_errors.RunError, match="no DeschedulerPolicy"):
        svc.run_enqueue(run=run, actor=OWNER, kind=RunAction.KIND_CLUSTER, params={"action": "runDescheduler"})


def test_the_web_yaml_paths_accept_a_policy_and_refuse_a_bad_one_with_its_field() -> None:
    from pathlib import Path

    from playground.services.runs.prepare import scenario_yaml_versioned
    from playground.services.scenario_validation import ScenarioInvalid
    from playground.services.scenarios import scenario_create

    text = Path("playground/gallery/descheduler-rebalance.yaml").read_text()
    scenario = scenario_create(actor=OWNER, name="rebalance", yaml_text=text)
    stored, _ = scenario_yaml_versioned(scenario=scenario)
    assert "kind: DeschedulerPolicy" in stored and "LowNodeUtilization" in stored
    bad = text.replace("targetThresholds: {cpu: 50,", "targetThresholds: {cpu: 10,")
    with pytest.raises(ScenarioInvalid) as error:
        scenario_create(actor=OWNER, name="bad", yaml_text=bad)
    assert error.value.kind == "DeschedulerPolicy"
    assert error.value.field == "profiles[0].pluginConfig[1].args.thresholds.cpu"
    assert "thresholds' cpu percentage is greater than targetThresholds'" in str(error.value)


def test_the_docs_page_serves_the_descheduler_doc(client: Client) -> None:
    index = client.get("/docs/").content.decode()
    assert "The descheduler" in index
    page = client.get("/docs/descheduler/")
    assert page.status_code == 200 and "DefaultEvictor" in page.content.decode()
