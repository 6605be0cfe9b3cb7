"""docs/architecture.md's plugin recipe, the web's part: "the run page shows it with no UI
change". A throwaway in-tree plugin added through the recipe's places (the fixtures of
tests/engine/plugins/test_plugin_recipe.py) runs in a scenario uploaded through the page with
no configuration (the default profile), and the run page shows its score and its Filter
verdict; a run rebuilt from its checkpoint, as another worker would, has it too."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from playground.models import Run, Scenario
from playground.services.runs.engine import Engine
from tests.engine.plugins.test_plugin_recipe import NAME, NODES, in_tree, plugin_module  # noqa: F401 (fixtures)
from tests.web.test_plugins_web import worker  # noqa: F401 (fixture)


@pytest.mark.django_db
def test_the_run_page_shows_a_plugin_added_by_the_recipe(in_tree: None, worker: Any) -> None:  # noqa: F811
    client = Client()
    response = client.post("/scenarios/", {"name": "recipe", "seed": "0",
                                           "file": SimpleUploadedFile("s.yaml", NODES.encode())})
    assert response.status_code == 302, response.content.decode()[:2000]
    scenario = Scenario.objects.get()
    assert client.post(reverse("playground:run_start", args=[scenario.share_token])).status_code == 302
    run = Run.objects.get()
    with worker(execute=True):
        client.post(reverse("playground:run", args=[run.share_token]), {"action": "play"})
    run.refresh_from_db()
    assert run.status == Run.STATUS_SETTLED
    results = json.loads(client.get(reverse("playground:run_export_json", args=[run.share_token])).content)
    placed = {p["name"]: p["node"] for p in results["pods"]}
    assert placed["web"] == "best" and not placed["huge"]
    pages = [client.get(reverse("playground:run", args=[run.share_token]) + f"?step={step}").content.decode()
             for step in (1, 2)]
    assert any(NAME in page for page in pages)  # the score table and the framework strip
    assert any("vetoed by the recipe" in page for page in pages)  # the FailedScheduling message
    rebuilt = Engine.rebuild(run).sim
    assert NAME in rebuilt.scheduler.profiles["default-scheduler"].plugins_map
