"""A kubectl dump of a GPU cluster uploaded on the scenario page: the DRA objects are stored and
load back; a bad device document is refused with a located error and changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from playground.models import Scenario
from playground.selectors.scenarios import scenario_yaml
from scheduler_core.loader import load_scenario_text
from tests.web.views.test_scenarios_views import GOOD, create, post

pytestmark = pytest.mark.django_db

DUMP = Path(__file__).resolve().parents[2] / "fixtures" / "kubectl-dra-gpu.yaml"


def test_dra_dump_upload_stores_the_device_objects(client: Client) -> None:
    scenario = create(client, yaml_text=GOOD)
    html = post(client, scenario, "import_yaml",
                **{"import-file": SimpleUploadedFile("gpus.yaml", DUMP.read_bytes())})
    assert "Imported a kubectl-list cluster dump" in html
    kinds = sorted({o.kind for o in scenario.kube_objects.all()})
    assert {"DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate", "Pod", "Node"} <= set(kinds)
    claim = scenario.kube_objects.get(kind="ResourceClaim")
    assert (claim.namespace, claim.name) == ("ml", "trainer-0-gpu-k8s7z")
    again = load_scenario_text(scenario_yaml(scenario=Scenario.objects.get(pk=scenario.pk)))
    assert len(again.resource_slices) == 2 and again.resource_claims[0].allocation is not None
    assert next(p for p in again.pods if p.name == "trainer-0").resource_claim_statuses == {
        "gpu": "trainer-0-gpu-k8s7z"}


def test_bad_device_document_is_refused_and_changes_nothing(client: Client) -> None:
    scenario = create(client, yaml_text=GOOD)
    before = scenario_yaml(scenario=scenario)
    bad = DUMP.read_text().replace("device.driver == 'gpu.nvidia.com' &&", "device.driver == 'gpu.nvidia.com' &&&")
    html = post(client, scenario, "import_yaml", **{"import-file": SimpleUploadedFile("gpus.yaml", bad.encode())})
    assert "DeviceClass gpu.nvidia.com" in html and "spec.selectors[0].cel.expression" in html
    assert "compilation failed" in html
    assert scenario_yaml(scenario=Scenario.objects.get(pk=scenario.pk)) == before
