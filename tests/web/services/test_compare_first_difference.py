"""The comparison pages name the first decision that differs and what produced it.

The gang lesson's "Compare feature gates" used to say every pod comes out the same, although with
the gates off three workers bind at t=0 and with them on all four bind together at t=120 s; the
GPU lesson's "Compare versions" blamed asynchronous preemption (no victims on either side) for
what DynamicResources being off in v1.30 does. Real engine runs, the real view and template.
"""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.urls import reverse

from playground.models import Scenario
from playground.services import gallery
from tests.web.compare_here import run_compare_tasks_here

pytestmark = [pytest.mark.django_db]


@pytest.fixture(autouse=True)
def _compare_here(monkeypatch: pytest.MonkeyPatch, settings: Any, redis_url: str) -> None:
    run_compare_tasks_here(monkeypatch, settings, redis_url)


def _page(client: Any, slug: str, query: str) -> str:
    gallery.seed()
    scenario = Scenario.objects.get(gallery_slug=slug)
    response = client.get(reverse("playground:scenario_compare", args=[scenario.share_token]) + query)
    assert response.status_code == 200
    return unescape(response.content.decode())


def _section(page: str) -> str:
    m = re.search(r'<section class="panel compare-first" id="compare-first".*?</section>', page, re.S)
    assert m, "no first-difference section"
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", m.group(0)))


def test_gang_gates_comparison_names_t0_against_t120(client: Any) -> None:
    page = _page(client, "gang-scheduling", "?seed=1&gates=")
    assert "Every pod comes out the same" not in page
    first = _section(page)
    assert "default/worker-1 is bound to node-1 at t=120 s against t=0 s" in first
    assert 'data-fact="cycle">1<' in page and 'data-fact="time">t=0 s<' in page
    assert 'data-fact="plugin">GangScheduling<' in page and 'data-fact="node">node-1<' in page
    assert "held at Permit by GangScheduling on node-1, bound to node-1 at t=120 s" in first
    assert "GangScheduling runs only in v1.35 + GangScheduling=true,GenericWorkload=true" in first
    # The pod table counts the workers whose binding moved, with the time on each side.
    for worker in ("worker-1", "worker-2", "worker-3"):
        assert f'data-pod="default/{worker}" data-aspect="binding time"' in page
    assert 'data-pod="default/worker-4"' not in page


def test_dra_gpus_versions_comparison_names_dra_not_async_preemption(client: Any) -> None:
    page = _page(client, "dra-gpus", "?seed=1")
    first = _section(page)
    assert 'data-fact="pod">default/finetune<' in page and 'data-fact="plugin">DynamicResources<' in page
    assert "DynamicResources runs only in v1.35 (feature gate DynamicResourceAllocation: on in v1.35, off in v1.30)" in first
    assert "bound to gpu-b at t=0 s" in first and "bound to cpu-c at t=0 s" in first
    # 0 victims on both sides: asynchronous preemption explains nothing here.
    table = page.split('id="compare-table"', 1)[1].split("</table>", 1)[0]
    assert 'data-gate="scheduler_async_preemption"' not in table
    assert 'data-gate="dynamic_resource_allocation"' in table
    # A gate the first decision names is not named again from the final outcome.
    infer_1 = table.split('data-pod="default/infer-1"', 1)[1].split("</tr>", 1)[0]
    assert infer_1.count('data-gate="node_score_heap_tie_break"') == 1


def test_identical_sides_say_no_decision_differs(client: Any) -> None:
    # A scenario with nothing for the gates to change: the same decisions at the same times.
    page = _page(client, "resource-fit", "?seed=1&gates=SchedulerAsyncPreemption=false")
    assert 'id="compare-first"' in page and "No decision differs" in page
    assert "Every pod comes out the same" in page
