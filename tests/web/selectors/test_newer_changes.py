""""What changed since v1.35": the index page lists each v1.36/v1.37 scheduler change with its
gate or API, release, source and "not simulated"; a run whose scenario or gates touch one says
so at the top of its page, and a run that touches none says nothing. Real Redis, the real run
page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from playground.models import Run
from playground.ownership import SESSION_KEY, Actor
from playground.selectors.run_newer_changes import newer_changes_of
from playground.services import scenarios as scenario_service
from playground.services.runs import actions as svc
from playground.services.runs import dispatch
from playground.services.runs import worker as run_worker
from playground.services.runs.cache import EngineCache
from scheduler_core.api.newer_versions import CHANGES

pytestmark = [pytest.mark.django_db]

OWNER = Actor(session_token="newer-changes-owner")
DUMP = Path(__file__).resolve().parents[2] / "fixtures" / "kubectl-v137-podgroup.yaml"
PLAIN = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec: {containers: [{name: c, image: pause, resources: {requests: {cpu: "1"}}}]}
"""


@pytest.fixture
def worker(monkeypatch: pytest.MonkeyPatch, redis_url: str, settings: Any, channel_layer: Any) -> None:
    settings.REDIS_URL = redis_url
    monkeypatch.setattr(dispatch, "schedule", lambda run_id, index, **_: run_worker.advance_run(run_id, cache=EngineCache()))


def _run(yaml_text: str, gates: str = "") -> Run:
    scenario = scenario_service.scenario_create(actor=OWNER, name="s", description="", seed=0,
                                                yaml_text=yaml_text)
    return svc.run_start(scenario=scenario, actor=OWNER, feature_gates=gates)


def _page(client: Client, run: Run) -> str:
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    response = client.get(f"/runs/{run.share_token}/")
    assert response.status_code == 200
    return response.content.decode()


def _notice(page: str) -> str:
    start = page.index('id="newer-changes"')
    return page[start:page.index("</details>", start)]


def test_index_lists_every_change_with_release_source_and_not_simulated(client: Client) -> None:
    page = client.get(reverse("playground:then_and_now")).content.decode()
    assert 'href="#since-v135"' in page
    section = page[page.index('id="since-v135"'):]
    assert section.count('class="since-v135-change"') == len(CHANGES)
    for change in CHANGES:
        assert change.title in section and change.source in section
    assert "no: v1.35.4&#x27;s behaviour" in section or "no: v1.35.4's behaviour" in section
    assert "yes</td>" not in section  # nothing newer is claimed as simulated
    for name in ("PodGroup", "scheduling.k8s.io/v1beta1", "GangScheduling", "WorkloadAwarePreemption"):
        assert name in section


def test_a_run_of_a_v137_dump_says_so_at_the_top(client: Client, worker: None) -> None:
    run = _run(DUMP.read_text())
    page = _page(client, run)
    assert page.index('id="newer-changes"') < page.index('id="run-status"')
    notice = _notice(page)
    assert "Newer Kubernetes differs here" in notice
    assert "Workload and PodGroup APIs, with a PodGroup scheduling cycle" in notice
    assert "Node declared features GA" in notice  # the node's status.declaredFeatures
    assert "KEP-4671" in notice
    assert 'href="/docs/then-and-now/#since-v135"' in notice


def test_a_run_setting_a_gate_v137_removed_says_so(client: Client, worker: None) -> None:
    run = _run(PLAIN, gates="GenericWorkload=true,GangScheduling=true")
    notice = _notice(_page(client, run))
    assert "GangScheduling and WorkloadAwarePreemption folded into GenericWorkload" in notice
    assert "Workload and PodGroup APIs" not in notice


def test_a_run_touching_nothing_newer_says_nothing(client: Client, worker: None) -> None:
    page = _page(client, _run(PLAIN))
    assert 'id="newer-changes"' not in page


def test_the_scenario_is_read_for_kinds_and_keys_not_values() -> None:
    touched = newer_changes_of('kind: Pod\nmetadata:\n  annotations: {note: "kind: PodGroup"}\n', "")
    assert touched == []
    touched = newer_changes_of("apiVersion: v1\nkind: List\nitems:\n- apiVersion: scheduling.k8s.io/v1beta1\n"
                               "  kind: PodGroup\n", "")
    assert [c.title for c in touched][0].startswith("Workload and PodGroup APIs")


def test_kinds_and_fields_inside_strings_and_comments_are_not_reported() -> None:
    """Only objects count: a block-scalar annotation or a comment that reads like a PodGroup or a
    pod's spec.schedulingGroup is text, not a kind or a field (a line scan took it for both)."""
    text = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n    note: |\n"
            "      kind: PodGroup\n      spec:\n        schedulingGroup: g\n"
            "# kind: Workload\nspec: {containers: [{name: c, image: pause}]}\n")
    assert newer_changes_of(text, "") == []
    real = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  schedulingGroup: {name: g}\n"
    assert [c.title for c in newer_changes_of(real, "")][0].startswith("Workload and PodGroup APIs")
    escaped = 'apiVersion: scheduling.k8s.io/v1beta1\nkind: "Pod\\x47roup"\nmetadata: {name: g}\n'  # YAML reads PodGroup
    assert [c.title for c in newer_changes_of(escaped, "")][0].startswith("Workload and PodGroup APIs")


def test_the_v137_lesson_run_says_what_a_v137_scheduler_would_do_differently(client: Client, worker: None) -> None:
    from playground.models import Scenario
    from playground.services import gallery

    gallery.seed()
    run = svc.run_start(scenario=Scenario.objects.get(gallery_slug="v137-cluster"), actor=OWNER)
    notice = _notice(_page(client, run))
    assert "Workload and PodGroup APIs, with a PodGroup scheduling cycle" in notice


def test_a_big_snapshot_with_backslashes_but_no_name_is_not_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The web's stored YAML writes long strings with escaped line breaks: a big snapshot of plain
    pods must not pay a whole decode on its run's first view for them."""
    from playground.selectors import run_newer_changes as selector

    def no_decode(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("decoded")

    monkeypatch.setattr(selector, "decode_yaml", no_decode)
    pod = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p-{i}\n  annotations:\n    note: "a\\\n      b"\n---\n'
    big = "".join(pod.format(i=i) for i in range(selector.ESCAPE_CHECK_BYTES // len(pod) + 10))
    assert len(big) > selector.ESCAPE_CHECK_BYTES and "\\" in big
    assert newer_changes_of(big, "") == []
    with pytest.raises(AssertionError, match="decoded"):
        newer_changes_of(pod.format(i=0), "")
