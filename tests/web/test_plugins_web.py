"""PLAYGROUND_PLUGINS in the web app: the operator's plugin module, loaded at start, lets a
scenario enable its plugin; the run (in the test client, the worker's body in-process) places
pods as the plugin says, and a run rebuilt from its checkpoint (as another worker would) too.
A bad setting stops the process at start, naming the setting and the module."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client
from django.urls import reverse

from playground.models import Run, Scenario
from playground.plugins import load_configured_plugins
from playground.services.runs import dispatch
from playground.services.runs import worker as run_worker
from playground.services.runs.cache import EngineCache
from playground.services.runs.engine import Engine
from scheduler_core.framework.plugins.registry import forget_out_of_tree, out_of_tree_names

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "plugins"
SCENARIO = EXAMPLES / "allocatable-scenario.yaml"


@pytest.fixture
def plugins_setting(monkeypatch: pytest.MonkeyPatch, settings: Any) -> Iterator[None]:
    """PLAYGROUND_PLUGINS=allocatable_plugin, installed (on sys.path) and loaded as at start."""
    monkeypatch.syspath_prepend(str(EXAMPLES))
    settings.PLAYGROUND_PLUGINS = ["allocatable_plugin"]
    assert load_configured_plugins() == ["NodeResourcesAllocatable"]
    yield
    forget_out_of_tree(["NodeResourcesAllocatable"])
    sys.modules.pop("allocatable_plugin", None)


@pytest.fixture
def worker(monkeypatch: pytest.MonkeyPatch, redis_url: str, settings: Any, channel_layer: Any,
           django_capture_on_commit_callbacks: Any) -> Any:
    settings.REDIS_URL = redis_url
    monkeypatch.setattr(dispatch, "schedule", lambda run_id, index, **_: run_worker.advance_run(run_id, cache=EngineCache()))
    return django_capture_on_commit_callbacks


def _upload(client: Client) -> Any:
    from django.core.files.uploadedfile import SimpleUploadedFile

    return client.post("/scenarios/", {"name": "allocatable", "seed": "0",
                                       "file": SimpleUploadedFile("s.yaml", SCENARIO.read_bytes())})


@pytest.mark.django_db
def test_a_scenario_enabling_the_plugin_runs_as_the_plugin_says(plugins_setting: None, worker: Any) -> None:
    client = Client()
    response = _upload(client)
    assert response.status_code == 302, response.content.decode()[:2000]
    scenario = Scenario.objects.get()
    response = client.post(reverse("playground:run_start", args=[scenario.share_token]))
    assert response.status_code == 302
    run = Run.objects.get()
    with worker(execute=True):
        response = client.post(reverse("playground:run", args=[run.share_token]), {"action": "play"})
    assert response.status_code in (200, 302)
    run.refresh_from_db()
    assert run.status == Run.STATUS_SETTLED
    results = json.loads(client.get(reverse("playground:run_export_json", args=[run.share_token])).content)
    placed = {p["name"]: p["node"] for p in results["pods"]}
    assert placed == {"web-1": "small", "web-2": "small", "web-3": "small", "web-4": "small",
                      "web-5": "large", "web-6": "large"}
    # The run page's score table names the plugin.
    page = client.get(reverse("playground:run", args=[run.share_token]) + "?step=1").content.decode()
    assert "NodeResourcesAllocatable" in page
    # Another worker process rebuilds the engine from the stored checkpoint and frames.
    rebuilt = Engine.rebuild(run).sim
    plugin = rebuilt.scheduler.profiles["default-scheduler"].plugins_map["NodeResourcesAllocatable"]
    assert type(plugin).__module__ == "allocatable_plugin" and plugin.mode == "Least"


@pytest.mark.django_db
def test_without_the_setting_the_upload_is_refused_naming_the_plugin() -> None:
    assert "NodeResourcesAllocatable" not in out_of_tree_names()
    client = Client()
    response = _upload(client)
    assert response.status_code == 400
    assert "ScorePlugin &quot;NodeResourcesAllocatable&quot; does not exist" in response.content.decode()
    assert not Scenario.objects.exists()


def test_a_bad_setting_names_the_setting_and_the_module(settings: Any) -> None:
    settings.PLAYGROUND_PLUGINS = ["json"]
    with pytest.raises(ImproperlyConfigured, match=r"^PLAYGROUND_PLUGINS: module 'json' has no register\(registry\)"):
        load_configured_plugins()


def test_each_process_loads_the_setting_at_start(tmp_path: Path) -> None:
    """A fresh process (web or worker alike: both set Django up) reads the environment variable."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(EXAMPLES)]),
           "PLAYGROUND_PLUGINS": "allocatable_plugin", "DJANGO_SETTINGS_MODULE": "config.settings"}
    code = ("import django; django.setup(); "
            "from scheduler_core.framework.plugins.registry import out_of_tree_names; print(out_of_tree_names())")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['NodeResourcesAllocatable']"
    env["PLAYGROUND_PLUGINS"] = "no_such_plugin_module"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode != 0
    assert ("ImproperlyConfigured: PLAYGROUND_PLUGINS: module 'no_such_plugin_module' not found "
            "(install it, or put its directory on PYTHONPATH)") in out.stderr.strip().splitlines()[-1]
