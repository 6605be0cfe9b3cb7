"""What a learner reads next to volume and device verdicts: the filter matrix and a pod's
"why pending" explain each such reason in plain words, and the binding cycle's Reserve and
PreBind steps say what they assumed and wrote (PV bindings, the selected-node annotation and
the provisioning it asks for, a claim's allocation), from the run's own events."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client

from playground.presenters.runs.reason_notes import notes_for
from tests.web.presenters.runs.test_runs_storage_panel import get, start
from tests.web.services.runs.test_runs_services import inline_worker  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

GALLERY = Path(__file__).resolve().parents[4] / "playground" / "gallery"


def section(html: str, start_marker: str, end_marker: str) -> str:
    assert start_marker in html, start_marker
    return html.split(start_marker, 1)[1].split(end_marker, 1)[0]


def test_volume_reasons_and_reserve_prebind_are_explained(client: Client, inline_worker: list) -> None:  # noqa: F811
    lesson = (GALLERY / "wait-for-first-consumer.yaml").read_text()
    run = start(lesson, 1)  # cycle 1: cache binds to the local disk on a1; b1 has no volume for it
    html = get(client, run, "run")
    notes = section(html, 'id="filter-notes"', "</dl>")
    assert "VolumeBinding: “node(s) didn&#x27;t find available persistent volumes to bind”" in notes
    assert "found no unbound PersistentVolume of its class" in notes
    steps = section(html, '<ul class="binding">', "</ul>")
    assert ("VolumeBinding assumed the bindings claim default/cache-data to PersistentVolume ssd-a1 in its cache"
            in steps)
    assert "VolumeBinding bound PersistentVolume ssd-a1 to its claim (claimRef)" in steps
    assert "PersistentVolume ssd-a1 updated: claimRef set to default/cache-data" in steps

    run = start(lesson, 2)  # cycle 2: db's claim is provisioned in zone-b for b1
    steps = section(get(client, run, "run"), '<ul class="binding">', "</ul>")
    assert "claim default/db-data to a new volume provisioned for node b1" in steps
    assert "VolumeBinding annotated claim default/db-data with the selected node" in steps
    assert "provisioned for claim default/db-data on node b1" in steps and "(by provisioner)" in steps

    run = start(lesson, 3)  # reports' Immediate claim is never bound
    html = get(client, run, "run")
    row = section(html, '<tr class="status-Pending" data-pod="default/reports"', "</tr>")
    assert "pod has unbound immediate PersistentVolumeClaims" in row
    assert '<ul class="why-notes"><li><strong>VolumeBinding</strong>: a claim of the pod uses an Immediate' in row
    prefilter = section(html, '<details class="prefilter">', "</details>")  # rejected before any Filter
    assert '<small class="step-note prefilter-note">a claim of the pod uses an Immediate StorageClass' in prefilter


def test_device_reasons_and_the_allocation_written_at_prebind(client: Client, inline_worker: list) -> None:  # noqa: F811
    run = start((GALLERY / "dra-gpus.yaml").read_text(), 1)  # finetune takes gpu-b's H100
    html = get(client, run, "run")
    notes = section(html, 'id="filter-notes"', "</dl>")
    assert "DynamicResources: “cannot allocate all claims”" in notes and "CEL selectors" in notes
    steps = section(html, '<ul class="binding">', "</ul>")
    assert "DynamicResources assumed the allocation of default/finetune-gpu (gpu.example.com/gpu-b/gpu-0)" in steps
    assert "DynamicResources wrote the allocation of default/finetune-gpu to its status and reserved it for " \
           "default/finetune (reservedFor)" in steps


def test_a_pod_without_volumes_or_devices_gets_no_notes() -> None:
    assert notes_for("0/3 nodes are available: 3 Insufficient cpu.") == []
    assert [n["plugin"] for n in notes_for(
        "0/5 nodes are available: 2 node(s) had no available volume zone, 3 node(s) exceed max volume count."
    )] == ["VolumeZone", "NodeVolumeLimits"]


def test_extended_resource_reasons_and_the_created_claim_are_explained() -> None:
    """DRAExtendedResource: the special claim's reasons, and PreBind's creation of the claim."""
    from playground.presenters.runs.reason_notes import notes_for, prebind_note

    notes = {n["reason"]: n["note"] for n in notes_for(
        ["cannot schedule extended resource claim", "cannot fit resource"])}
    assert "earlier attempt" in notes["cannot schedule extended resource claim"]
    assert "neither this node's allocatable nor any DeviceClass" in notes["cannot fit resource"]
    said = prebind_note([], [
        {"action": "created", "claim": "default/a-extended-resources-b5qtv", "pod": "default/a"},
        {"action": "allocated", "claim": "default/a-extended-resources-b5qtv", "pod": "default/a"}])
    assert said.startswith("DynamicResources created claim default/a-extended-resources-b5qtv for the "
                           "extended resources of default/a")
    assert "wrote the allocation of default/a-extended-resources-b5qtv" in said
