"""DynamicResources' PostFilter answers Error "not found" when an earlier PreFilter plugin rejected
the pod (an unbound Immediate claim): upstream's own text, which a learner takes for a bug unless
the page says so. The cycle's PostFilter list and the pod's "why pending" both carry the note."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client

from playground.presenters.runs.reason_notes import notes_for
from tests.web.presenters.runs.test_reason_notes import section
from tests.web.presenters.runs.test_runs_storage_panel import get, start
from tests.web.services.runs.test_runs_services import inline_worker  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

GALLERY = Path(__file__).resolve().parents[4] / "playground" / "gallery"


def test_not_found_is_explained_as_upstreams_own_text(client: Client, inline_worker: list) -> None:  # noqa: F811
    run = start((GALLERY / "wait-for-first-consumer.yaml").read_text(), 3)  # reports' Immediate claim
    html = get(client, run, "run")
    postfilter = section(html, '<ul class="postfilter">', "</ul>")
    assert "DynamicResources: Error — not found" in postfilter
    assert '<small class="step-note postfilter-note">upstream&#x27;s own text, not a fault of the playground' in postfilter
    row = section(html, '<tr class="status-Pending" data-pod="default/reports"', "</tr>")
    assert "PersistentVolumeClaims. not found" in row
    assert "<li><strong>DynamicResources</strong>: upstream&#x27;s own text" in row


def test_the_note_is_only_for_the_postfilter_answer() -> None:
    assert notes_for(["not found"])[-1]["plugin"] == "DynamicResources"
    assert notes_for('resourceclaim.resource.k8s.io "x" not found') == []
    assert notes_for("0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate") == []


def test_the_read_write_once_pod_note_says_filter_rejects() -> None:
    (note,) = notes_for("node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode")
    assert "Filter refuses every node" in note["note"] and "checked once at PreFilter" not in note["note"]
