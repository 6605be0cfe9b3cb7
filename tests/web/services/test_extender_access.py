"""The scenario editor refuses an extender the operator did not allow, with a clear message,
and stores nothing (the engine would refuse the call anyway; this says so up front)."""

from __future__ import annotations

from typing import Any

import pytest

from playground.models import Scenario
from playground.ownership import Actor
from playground.selectors.scenarios import scenario_yaml
from playground.services import scenarios as svc
from playground.services.scenario_validation import ScenarioInvalid

pytestmark = pytest.mark.django_db

OWNER = Actor(session_token="extender-owner")


def config(url: str) -> str:
    return (
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        f"extenders:\n- urlPrefix: {url}\n  filterVerb: filter\n"
        "---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: '1', memory: 1Gi}}\n"
    )


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:6379", "http://169.254.169.254/latest", "http://localhost:8000/admin", "https://example.org"],
)
def test_a_disallowed_extender_is_refused_on_create_and_import(url: str, settings: Any) -> None:
    settings.EXTENDER_ALLOWED_URLS = ["http://127.0.0.1:8888/", "http://localhost:8888/"]
    with pytest.raises(ScenarioInvalid) as err:
        svc.scenario_create(actor=OWNER, name="x", yaml_text=config(url))
    assert "extenders[0].urlPrefix" in err.value.message and "not allowed on this server" in err.value.message
    assert "EXTENDER_ALLOWED_URLS" in err.value.message
    assert err.value.field == "extenders[0].urlPrefix"
    assert not Scenario.objects.exists()


def test_file_urls_are_refused(settings: Any) -> None:
    settings.EXTENDER_ALLOWED_URLS = ["http://127.0.0.1:8888/"]
    scenario = svc.scenario_create(actor=OWNER, name="x", yaml_text=config("http://127.0.0.1:8888"))
    with pytest.raises(ScenarioInvalid, match=r"urlPrefix: Invalid value: \"file:///etc\": must be an http") as err:
        svc.scenario_import_yaml(scenario=scenario, actor=OWNER, text=config("file:///etc"))
    assert err.value.field == "extenders[0].urlPrefix"  # the loader refuses it, before the allow-list
    assert "urlPrefix: http://127.0.0.1:8888" in scenario_yaml(scenario=scenario)  # unchanged


def test_the_allow_list_comes_from_the_setting(settings: Any) -> None:
    settings.EXTENDER_ALLOWED_URLS = []
    with pytest.raises(ScenarioInvalid, match=r"allowed extender URLs: none"):
        svc.scenario_create(actor=OWNER, name="x", yaml_text=config("http://127.0.0.1:8888"))
    settings.EXTENDER_ALLOWED_URLS = ["http://extender.internal:9000/"]
    svc.scenario_create(actor=OWNER, name="x", yaml_text=config("http://extender.internal:9000/"))
    assert Scenario.objects.count() == 1
