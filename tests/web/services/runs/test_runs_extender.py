"""A run that consults an HTTP extender stores the extender's answers with its log: rebuilding
the engine (a worker restart, a jump) replays them without calling the service again."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from playground.models import RunAction
from playground.selectors.frame_views import view_at
from playground.services.runs import actions as svc
from playground.services.runs import engine as run_engine
from playground.services.scenarios import scenario_create
from scheduler_core.extender.sample import serve
from tests.web.services.runs.test_runs_services import OWNER, act, inline_worker  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

GALLERY = Path(__file__).resolve().parents[4] / "playground" / "gallery" / "extender-gpu.yaml"


@pytest.fixture
def extender_url(settings: Any) -> Any:
    server = serve(port=0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    settings.EXTENDER_ALLOWED_URLS = [url + "/"]  # the operator allows this one extender
    yield url, server
    server.shutdown()
    server.server_close()


def test_extender_answers_are_replayed_on_rebuild(inline_worker: list, extender_url: Any) -> None:  # noqa: F811
    url, server = extender_url
    text = GALLERY.read_text().replace("http://127.0.0.1:8888", url)
    scenario = scenario_create(actor=OWNER, name="extender", description="", seed=0, yaml_text=text)
    run = svc.run_start(scenario=scenario, actor=OWNER)
    act(run, RunAction.KIND_PLAY)
    calls = [e.data for e in run.events.filter(type="extender_call").order_by("seq")]
    assert calls and all(c["ok"] for c in calls), calls
    assert {c["verb"] for c in calls} >= {"filter", "prioritize"}
    pods = {p["key"]: p for p in view_at(run=run, step=run.head_step)["pods"]}
    assert pods["default/trainer-1"]["node"] == "gpu-b"
    assert pods["default/trainer-2"]["status"] == "Pending"

    server.shutdown()  # the service is gone: a rebuild must not need it
    engine = run_engine.Engine.rebuild(run)  # raises if replay diverged from the stored log
    assert engine.sim.sink.seq == run.last_seq


def test_run_page_shows_extender_calls(inline_worker: list, extender_url: Any, client: Any) -> None:  # noqa: F811
    url, _ = extender_url
    text = GALLERY.read_text().replace("http://127.0.0.1:8888", url)
    scenario = scenario_create(actor=OWNER, name="extender", description="", seed=0, yaml_text=text)
    run = svc.run_start(scenario=scenario, actor=OWNER)
    act(run, RunAction.KIND_STEP)  # trainer-1's cycle: filter + prioritize + bind by the extender
    html = client.get(f"/runs/{run.share_token}/").content.decode()
    assert 'id="extender-calls"' in html
    assert "prioritize" in html and "filter" in html and " ms" in html
