"""The scenario editor in real headless Chromium, against the web server on the test database."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from playground.models import Scenario
from playground.selectors.scenarios import scenario_yaml

pytestmark = pytest.mark.live

NODE = "apiVersion: v1\nkind: Node\nmetadata: {{name: {name}}}\nstatus:\n  capacity: {{cpu: '{cpu}', memory: 8Gi}}\n"


def create_scenario(page: Page, name: str) -> Scenario:
    page.goto("/scenarios/")
    page.fill("#id_name", name)
    page.get_by_role("button", name="Create scenario").click()
    expect(page.locator("#scenario-name")).to_have_text(name)
    token = re.search(r"/scenarios/([^/]+)/$", page.url).group(1)
    return Scenario.objects.get(share_token=token)


def add_node(page: Page, name: str, cpu: str = "4", labels: str = "") -> None:
    form = page.locator("#node-form")
    form.locator("#id_node-name").fill(name)
    form.locator("#id_node-cpu").fill(cpu)
    form.locator("#id_node-labels").fill(labels)
    form.get_by_role("button", name="Add Node").click()


def upload(page: Page, filename: str, text: str) -> None:
    page.set_input_files(
        "#import-file", files=[{"name": filename, "mimeType": "application/yaml", "buffer": text.encode()}]
    )
    page.get_by_role("button", name="Import YAML (replace all objects)").click()


def test_build_with_forms_import_with_error_fix_and_export(page: Page) -> None:
    scenario = create_scenario(page, "Browser cluster")

    add_node(page, "n1", labels="disk=ssd")
    expect(page.locator("#notice")).to_have_text("Node n1 saved.")
    expect(page.locator("#node-rows")).to_contain_text("n1")
    expect(page.locator("#scenario-yaml")).to_have_value(re.compile(r"name: n1"))

    pod_form = page.locator("#pod-form")
    pod_form.locator("#id_pod-name").fill("web")
    pod_form.locator("#id_pod-cpu").fill("500m")
    pod_form.locator("#id_pod-labels").fill("app=web")
    pod_form.get_by_role("button", name="Add Pod").click()
    expect(page.locator("#pod-rows")).to_contain_text("default/web")
    expect(page.locator("#pod-rows")).to_contain_text("cpu 500m")

    # an invalid quantity: the loader's message next to the field, nothing stored
    add_node(page, "n2", cpu="lots")
    expect(page.locator("#node-form .has-error")).to_contain_text('invalid quantity "lots"')
    expect(page.locator("#node-count")).to_have_text("1")

    # edit the node through its form
    page.get_by_role("button", name="Edit Node n1").click()
    expect(page.locator("#node-form h3")).to_have_text("Edit Node n1")
    page.locator("#id_node-taints").fill("dedicated=db:NoSchedule")
    page.get_by_role("button", name="Save Node").click()
    expect(page.locator("#node-rows")).to_contain_text("taint dedicated=db:NoSchedule")

    # import a file with an error: the message names file, document, object and field
    bad = NODE.format(name="a", cpu="2") + "---\n" + NODE.format(name="b", cpu="two")
    upload(page, "cluster.yaml", bad)
    expect(page.locator("#import-errors")).to_contain_text("cluster.yaml: document 2 (Node b): status.capacity.cpu")
    expect(page.locator("#node-count")).to_have_text("1")
    assert Scenario.objects.get(pk=scenario.pk).kube_objects.count() == 2

    # fix it and import again: all objects replaced
    upload(page, "cluster.yaml", NODE.format(name="a", cpu="2") + "---\n" + NODE.format(name="b", cpu="2"))
    expect(page.locator("#notice")).to_contain_text("Imported cluster.yaml")
    expect(page.locator("#node-count")).to_have_text("2")
    expect(page.locator("#pod-count")).to_have_text("0")

    # edit the YAML view in place and re-import it
    text = page.locator("#scenario-yaml").input_value()
    page.locator("#scenario-yaml").fill(text + "---\n" + NODE.format(name="c", cpu="8"))
    page.get_by_role("button", name="Import YAML (replace all objects)").click()
    expect(page.locator("#node-count")).to_have_text("3")

    # export: the download is exactly what the database holds, and what the YAML view shows
    with page.expect_download() as download_info:
        page.locator("#export-link").click()
    download = download_info.value
    assert download.suggested_filename == "browser-cluster.yaml"
    with open(download.path(), encoding="utf-8") as handle:
        exported = handle.read()
    assert exported == scenario_yaml(scenario=scenario)
    assert exported == page.locator("#scenario-yaml").input_value()
    assert [line for line in exported.splitlines() if line.startswith("  name:")] == [
        "  name: a",
        "  name: b",
        "  name: c",
    ]

    # delete one object (hx-confirm asks first)
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete Node c").click()
    expect(page.locator("#node-count")).to_have_text("2")


def test_share_link_is_read_only_and_a_fork_is_editable(page: Page, browser: Browser, live_url: str) -> None:
    original = create_scenario(page, "Shared cluster")
    add_node(page, "n1")
    expect(page.locator("#node-count")).to_have_text("1")
    share_link = page.locator("#share-link").input_value()
    assert share_link.startswith(live_url) and original.share_token in share_link

    other = browser.new_context(base_url=live_url)
    try:
        visitor = other.new_page()
        visitor.goto(share_link)
        expect(visitor.locator("#readonly-notice")).to_contain_text("read-only")
        expect(visitor.locator("#node-rows")).to_contain_text("n1")
        expect(visitor.get_by_role("button", name="Add Node")).to_have_count(0)
        expect(visitor.get_by_role("button", name="Edit Node n1")).to_have_count(0)
        expect(visitor.locator("#scenario-yaml")).to_have_attribute("readonly", "")

        visitor.get_by_role("button", name="Fork").click()
        expect(visitor.locator("#scenario-name")).to_have_text("Fork of Shared cluster")
        assert original.share_token not in visitor.url
        expect(visitor.locator("#readonly-notice")).to_have_count(0)
        add_node(visitor, "n2")
        expect(visitor.locator("#node-count")).to_have_text("2")
        # the visitor's scenario list shows the fork, not the original
        visitor.goto("/scenarios/")
        expect(visitor.locator("#my-scenarios")).to_contain_text("Fork of Shared cluster")
        expect(visitor.locator("#my-scenarios")).not_to_contain_text(re.compile(r"^Shared cluster"))
    finally:
        other.close()

    assert list(Scenario.objects.get(pk=original.pk).kube_objects.values_list("name", flat=True)) == ["n1"]
    page.reload()  # the owner's page still shows only their node
    expect(page.locator("#node-count")).to_have_text("1")


def test_markup_in_user_data_is_shown_as_text_and_never_runs(page: Page) -> None:
    script = "<script>window.__xss=1</script>"
    img = '<img src=x onerror="window.__xss=2">'
    create_scenario(page, img)
    expect(page.locator("#scenario-name")).to_have_text(img)

    # a label value with markup: the engine rejects it, and its message quotes the value as text
    add_node(page, "n1", labels=f"team={script}")
    expect(page.locator("#node-form .has-error")).to_contain_text(script)

    # annotations may hold anything: stored, shown in the YAML view as text (no textarea break-out)
    breakout = f"</textarea>{script}{img}"
    manifest = (
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  annotations:\n"
        f"    note: '{breakout}'\nstatus:\n  capacity: {{cpu: '4'}}\n"
    )
    upload(page, "evil.yaml", manifest)
    expect(page.locator("#node-count")).to_have_text("1")
    expect(page.locator("#scenario-yaml")).to_have_value(re.compile(re.escape(breakout)))

    details = page.locator("#details-section")
    details.locator("summary").click()
    details.locator("#id_details-description").fill(script + img)
    details.get_by_role("button", name="Save details").click()
    expect(page.locator("#scenario-description")).to_have_text(script + img)

    page.goto("/scenarios/")
    expect(page.locator("#my-scenarios")).to_contain_text(img)
    page.go_back()
    expect(page.locator("#scenario-description")).to_have_text(script + img)
    assert page.evaluate("window.__xss") is None
    assert page.locator("img[src=x]").count() == 0
