"""A dump of a Kubernetes v1.37 cluster (v1beta1 Workload, a PodGroup, pods naming it, a node
declaring its features) is stored on upload, new scenario or import, and the scenario page lists
the newer kinds and fields apart, each naming the release that introduced it."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from playground.models import Scenario
from playground.selectors.scenarios import scenario_yaml
from scheduler_core.loader import load_scenario_text
from tests.web.views.test_scenarios_views import GOOD, create, post, url

pytestmark = pytest.mark.django_db

DUMP = Path(__file__).resolve().parents[2] / "fixtures" / "kubectl-v137-podgroup.yaml"


def _newer_block(html: str) -> str:
    start = html.index('id="newer-version"')
    return html[start:html.index("</details>", start)]


def test_new_scenario_from_a_v137_dump_is_stored_and_shows_the_notes(client: Client) -> None:
    scenario = create(client, name="v1.37 cluster", yaml_text=DUMP.read_text())
    kinds = {o.kind for o in scenario.kube_objects.all()}
    assert {"Workload", "PodGroup", "Pod", "Node", "DeviceTaintRule"} <= kinds
    html = client.get(url(scenario)).content.decode()
    block = _newer_block(html)
    assert "From a newer Kubernetes" in block
    assert "PodGroup scheduling.k8s.io/v1beta1 introduced in Kubernetes v1.37" in block
    assert "Workload scheduling.k8s.io/v1beta1 introduced in Kubernetes v1.37" in block
    assert "spec.schedulingGroup: introduced in Kubernetes v1.36" in block
    assert "status.declaredFeatures" in block and "v1.37" in block
    # Listed apart, not mixed into the "accepted but not simulated" field list.
    start = html.index('id="not-simulated"')
    assert "schedulingGroup" not in html[start:html.index("</details>", start)]
    # What is stored loads back, with the same notes.
    again = load_scenario_text(scenario_yaml(scenario=Scenario.objects.get(pk=scenario.pk)))
    assert sorted(p.name for p in again.pods) == ["trainer-0", "trainer-1"]
    assert any("PodGroup" == w.kind and "v1.37" in w.reason for w in again.warnings)


def test_importing_a_v137_dump_over_a_scenario_shows_the_notes(client: Client) -> None:
    scenario = create(client, yaml_text=GOOD)
    html = post(client, scenario, "import_yaml",
                **{"import-file": SimpleUploadedFile("v137.yaml", DUMP.read_bytes())})
    assert "Imported a kubectl-list cluster dump" in html
    block = _newer_block(html)
    assert "PodGroup scheduling.k8s.io/v1beta1 introduced in Kubernetes v1.37" in block
    assert {"PodGroup", "Workload"} <= {o.kind for o in scenario.kube_objects.all()}


def test_the_warnings_of_edited_documents_include_the_newer_notes() -> None:
    """Saving a PodGroup document on the YAML page: its note, not an empty list."""
    from playground.services.scenario_validation import manifests_warnings

    warnings = manifests_warnings([{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                                    "metadata": {"name": "g", "namespace": "default"}, "spec": {}}])
    assert [w.kind for w in warnings] == ["PodGroup"]
    assert "introduced in Kubernetes v1.37" in warnings[0].reason
