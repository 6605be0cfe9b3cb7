"""The start form refuses a gate value the engine does not simulate, saying so, and starts no run;
a value the engine simulates (DRAPrioritizedList=false) starts one that keeps it."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from playground.models import Run, Scenario
from playground.ownership import SESSION_KEY, Actor
from playground.services import gallery
from playground.services.runs import actions as svc
from playground.services.runs import errors as run_errors

pytestmark = [pytest.mark.django_db]

OWNER = Actor(session_token="gates-not-simulated")


def test_start_refuses_a_value_not_simulated(client: Any) -> None:
    gallery.seed()
    scenario = Scenario.objects.get(gallery_slug="dra-gpus")
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    url = reverse("playground:run_start", args=[scenario.share_token])
    bad = client.post(url, {"feature_gates": "SchedulerAsyncAPICalls=true"})
    assert bad.status_code == 302 and not Run.objects.exists()
    page = client.get(bad["Location"]).content.decode()
    assert ("cannot set feature gate SchedulerAsyncAPICalls to true: not simulated by this engine "
            "(API calls complete at once here, without a dispatcher)") in page
    with pytest.raises(run_errors.RunError, match="NominatedNodeNameForExpectation to false: not simulated"):
        svc.run_start(scenario=scenario, actor=OWNER, feature_gates="NominatedNodeNameForExpectation=false")
    run = svc.run_start(scenario=scenario, actor=OWNER, feature_gates="DRAPrioritizedList=false")
    assert run.feature_gates == "DRAPrioritizedList=false"
