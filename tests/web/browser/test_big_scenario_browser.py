"""A big scenario in real headless Chromium: upload it, find and edit one node, page through the
YAML, start a run and step it (the web server, a Celery worker and Redis are real)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from playground.models import PreparedStart, Run, Scenario
from playground.presenters.scenarios.listing import PAGE_SIZE
from tests.web.browser.test_csp_browser import WATCH_VIOLATIONS
from tests.web.scale import big_cluster_yaml

pytestmark = pytest.mark.live

NODES, PODS = 1500, 3000  # paged lists, the YAML view instead of the textarea, a prepared start


def test_upload_a_big_scenario_edit_one_node_and_start_a_run(page: Page, celery_worker: Any) -> None:
    text = big_cluster_yaml(NODES, PODS)
    page.set_default_timeout(60_000)
    page.add_init_script(WATCH_VIOLATIONS)  # every page below works under the CSP
    page.goto("/scenarios/")
    page.fill("#id_name", "Big upload")
    page.set_input_files("#id_file", files=[{"name": "big.yaml", "mimeType": "application/yaml",
                                             "buffer": text.encode()}])
    page.get_by_role("button", name="Create scenario").click()
    # loaded by the worker (services/scenario_uploads.py): the "checking" page moves on by itself
    expect(page.locator("#scenario-name")).to_have_text("Big upload", timeout=120_000)
    scenario = Scenario.objects.get(share_token=re.search(r"/scenarios/([^/]+)/$", page.url).group(1))

    # counts, one page of each list, no YAML text on the page
    expect(page.locator("#node-count")).to_have_text(str(NODES))
    expect(page.locator("#scenario-counts")).to_contain_text(f"{NODES} nodes · {PODS} pods")
    expect(page.locator("#node-rows .object-row")).to_have_count(PAGE_SIZE)
    expect(page.locator("#yaml-too-big")).to_be_visible()
    assert "name: node-00001" not in page.content()

    # the next page, then a search by name
    page.locator("#node-list").get_by_role("button", name="next ▶").click()
    expect(page.locator("#node-rows")).to_contain_text("node-00025")
    page.locator("#node-search").fill("node-01234")
    expect(page.locator("#node-rows .object-row")).to_have_count(1)

    # edit that node: a scenario this big is validated again by a worker (services/scenario_uploads.py,
    # test_big_editor_save_by_worker.py): the "checking" page leads back to the scenario, which says so
    page.get_by_role("button", name="Edit Node node-01234").click()
    expect(page.locator("#node-form h3")).to_have_text("Edit Node node-01234")
    page.locator("#id_node-cpu").fill("16")
    page.get_by_role("button", name="Save Node").click()
    expect(page.locator("#notice")).to_have_text("Node node-01234 saved.", timeout=120_000)
    page.locator("#node-search").fill("node-01234")
    expect(page.locator("#node-rows .object-row")).to_have_count(1)
    expect(page.locator("#node-rows")).to_contain_text("cpu 16")
    node = scenario.kube_objects.get(kind="Node", name="node-01234")
    assert node.manifest["status"]["capacity"]["cpu"] == "16"

    assert page.evaluate("window.__cspViolations") == []  # search, paging, out-of-band swaps

    # the YAML view: a page of documents, the edited node on its page
    page.get_by_role("link", name="YAML of Node node-01234").click()
    expect(page.locator("#documents-yaml")).to_have_value(re.compile(r"name: node-01234\n(.|\n)*cpu: '16'"))
    assert page.evaluate("window.__cspViolations") == []
    page.locator("#back-to-scenario").click()

    # start: the worker prepared this version's start meanwhile, or the start computes it
    page.locator("#start-run").click()
    expect(page).to_have_url(re.compile(r"/runs/[^/]+/$"))
    expect(page.locator("#run-socket")).to_have_text("live")
    expect(page.locator("#run-step")).to_have_text("0")
    page.locator("#btn-step").click()
    expect(page.locator("#run-step")).to_have_text("1")
    run = Run.objects.get(share_token=re.search(r"/runs/([^/]+)/$", page.url).group(1))
    assert "name: node-01234" in run.scenario_yaml and run.head_step == 1
    assert PreparedStart.objects.filter(scenario=scenario).exists()  # the worker prepared one
    assert page.evaluate("window.__cspViolations") == []
