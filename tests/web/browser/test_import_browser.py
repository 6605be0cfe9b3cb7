"""Bringing a real cluster in through the scenario page, in headless Chromium: the kubectl dump
uploads with its import summary and the "not simulated" list; a misspelled field is refused
with a did-you-mean next to the YAML input and changes nothing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from playground.selectors.scenarios import scenario_yaml
from tests.web.browser.test_editor_browser import NODE, create_scenario, upload

pytestmark = pytest.mark.live

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
MISSPELLED = ("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  nodeSelectr: {disk: ssd}\n"
              "  containers: [{name: app, image: pause}]\n")


def test_upload_a_kubectl_dump_then_a_misspelled_manifest(page: Page, celery_worker: Any) -> None:
    # The 1 MB dump is a worker's to load (services/scenario_uploads.py): the page moves on by itself.
    scenario = create_scenario(page, "Imported cluster")

    upload(page, "cluster.yaml", (FIXTURES / "kubectl-get-all.yaml").read_text())
    expect(page.locator("#notice")).to_contain_text("Imported a kubectl-list cluster dump", timeout=120_000)
    summary = page.locator("#import-summary")
    expect(summary).to_contain_text(re.compile(r"kept: \d+ "))
    expect(summary).to_contain_text("dropped 4 Pod: finished (phase Succeeded)")
    listed = page.locator("#not-simulated")
    expect(listed).to_contain_text("Accepted but not simulated")
    expect(listed).to_contain_text("spec.containers[].readinessProbe: 225 Pods")
    expect(page.locator("#node-count")).to_have_text("30")
    stored = scenario_yaml(scenario=scenario)
    assert stored.count("\nkind: Pod\n") == 220

    upload(page, "app.yaml", NODE.format(name="n1", cpu="4") + "---\n" + MISSPELLED)
    errors = page.locator("#import-errors")
    expect(errors).to_contain_text('app.yaml: document 2 (Pod default/web): spec.nodeSelectr: unknown field '
                                   '"nodeSelectr"; did you mean "nodeSelector"?')
    expect(page.locator("#not-simulated")).to_have_count(0)
    expect(page.locator("#node-count")).to_have_text("30")
    assert scenario_yaml(scenario=scenario) == stored
