"""The web refuses what upstream's KubeSchedulerConfiguration validation refuses, wherever a
configuration changes: the editor's configuration form (every error at once, upstream's words,
nothing saved) and the run page's live Score weight (a clear error beside the field, nothing
queued)."""

from __future__ import annotations

from html import unescape

import pytest
from django.test import Client
from django.urls import reverse

from playground.ownership import SESSION_KEY
from playground.services.runs import actions as svc
from tests.web.presenters.runs.test_runs_owners import OWNER, _scenario
from tests.web.views.test_scenarios_views import create, post

pytestmark = [pytest.mark.django_db]

BAD = """percentageOfNodesToScore: 30
profiles:
- pluginConfig:
  - name: InterPodAffinity
    args: {hardPodAffinityWeight: 101}
  - name: DefaultPreemption
    args: {minCandidateNodesAbsolute: -1}
"""


def test_the_config_form_shows_every_upstream_error_and_saves_nothing(client: Client) -> None:
    scenario = create(client)
    assert "Scheduler configuration saved." in post(client, scenario, "save_config",
                                                    **{"config-config": "percentageOfNodesToScore: 30\n"})
    before = scenario.kube_objects.get().manifest
    html = unescape(post(client, scenario, "save_config", **{"config-config": BAD}))
    assert ("[profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: 101: not in valid range "
            "[0, 100], profiles[0].pluginConfig[1].args.minCandidateNodesAbsolute: Invalid value: -1: not in "
            "valid range [0, inf)]") in html, html[:3000]
    assert scenario.kube_objects.get().manifest == before


@pytest.mark.parametrize(("weight", "message"), [
    ("-5", "weight: Invalid value: -5: must be between 1 and 100"),
    ("0", "weight: Invalid value: 0: must be between 1 and 100"),
    ("lots", "The weight must be a whole number from 1 to 100."),
])
def test_the_live_score_weight_is_validated_and_nothing_changes(client: Client, weight: str, message: str) -> None:
    run = svc.run_start(scenario=_scenario(), actor=OWNER)
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    response = client.post(reverse("playground:run", args=[run.share_token]),
                           {"action": "cluster", "what": "setScoreWeight", "plugin": "NodeResourcesFit",
                            "weight": weight}, HTTP_HX_REQUEST="true")
    assert message in unescape(response.content.decode())
    assert not run.actions.exists()
