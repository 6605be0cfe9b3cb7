"""The claim limit on the web: an upload whose StatefulSet would make more claims from its
volumeClaimTemplates than PLAYGROUND_MAX_CLAIMS allows is refused, located, naming the setting,
and changes nothing."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from playground.models import Scenario
from playground.selectors.scenarios import scenario_yaml
from scheduler_core.loader import load_scenario_text
from tests.engine.workloads.test_claim_bounds import NODE, stateful_set
from tests.web.views.test_scenarios_views import GOOD, create, post

pytestmark = pytest.mark.django_db


def test_upload_over_the_claim_limit_is_refused_and_changes_nothing(client: Client, settings) -> None:
    settings.PLAYGROUND_MAX_CLAIMS = 30
    scenario = create(client, yaml_text=GOOD)
    before = scenario_yaml(scenario=scenario)
    html = post(client, scenario, "import_yaml", **{"import-file": SimpleUploadedFile(
        "db.yaml", f"{NODE}\n---\n{stateful_set(8, 4)}".encode())})
    assert ("db.yaml: document 2 (StatefulSet default/db): spec.volumeClaimTemplates: too many claims: this "
            "StatefulSet would create 32 PersistentVolumeClaims (8 pods x 4 volumeClaimTemplates); the limit "
            "is 30 (raise it with the PLAYGROUND_MAX_CLAIMS setting)") in html
    assert scenario_yaml(scenario=Scenario.objects.get(pk=scenario.pk)) == before
    html = post(client, scenario, "import_yaml", **{"import-file": SimpleUploadedFile(
        "db.yaml", f"{NODE}\n---\n{stateful_set(7, 4)}".encode())})
    assert "too many claims" not in html
    assert len(load_scenario_text(scenario_yaml(scenario=Scenario.objects.get(pk=scenario.pk))).storage.pvcs) == 28
