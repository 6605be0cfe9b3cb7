"""The run page at scale, without a browser: search, filters, paging, the heatmap, the grouped
cycle inspector, and bounded live updates (a 120-node, 60-pod run)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from playground.consumers.runs import MAX_MESSAGE_BYTES, RunConsumer
from playground.models import Run, RunAction
from playground.services.runs import actions as svc
from playground.services.scenarios import scenario_create
from tests.web.scale import big_cluster_yaml
from tests.web.services.runs.test_runs_services import OWNER, act, inline_worker  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

NODES, PODS = 120, 60


@pytest.fixture
def big_run(inline_worker: list) -> Run:  # noqa: F811
    scenario = scenario_create(actor=OWNER, name="big", yaml_text=big_cluster_yaml(NODES, PODS))
    run = svc.run_start(scenario=scenario, actor=OWNER)
    act(run, RunAction.KIND_STEP)
    act(run, RunAction.KIND_STEP)
    return run


def get(client: Client, run: Run, name: str, **params: Any) -> str:
    response = client.get(reverse(f"playground:{name}", args=[run.share_token]), params)
    assert response.status_code == 200
    return response.content.decode()


def cards(html: str) -> list[str]:
    return re.findall(r'class="node[^"]*" id="node-[^"]*" data-node="([^"]+)"', html)


def test_big_cluster_page_has_heatmap_search_and_one_page_of_nodes(client: Client, big_run: Run) -> None:
    html = get(client, big_run, "run")
    assert len(re.findall(r'<i class="u\d[^"]*" title=', html)) == NODES  # a heatmap cell per node
    assert len(cards(html)) == 24 and 'id="cluster-query"' in html and "1–24 of 120 nodes" in html
    assert 'id="filter-groups"' in html and 'id="filter-matrix"' not in html  # grouped inspector
    assert 'id="pods-query"' in html and "1–50 of 60 pods" in html
    assert 'id="node-names"' not in html  # no 120-option datalist


def test_search_filters_and_pages_of_nodes(client: Client, big_run: Run) -> None:
    assert cards(get(client, big_run, "run_cluster", q="node-00007")) == ["node-00007"]
    zone = cards(get(client, big_run, "run_cluster", q="topology.kubernetes.io/zone=zone-1"))
    assert zone[:2] == ["node-00001", "node-00004"] and len(zone) == 24
    cordoned = get(client, big_run, "run_cluster", filter="cordoned")
    assert cards(cordoned)[:2] == ["node-00005", "node-00016"] and "<strong>11</strong> of 120 nodes" in cordoned
    tainted = cards(get(client, big_run, "run_cluster", filter="tainted"))
    assert sorted(tainted) == [f"node-{i:05d}" for i in range(3, NODES, 7)]
    second = get(client, big_run, "run_cluster", q="zone-1", page="2")
    assert len(cards(second)) == 40 - 24 and set(cards(second)).isdisjoint(zone)
    assert 'id="cluster-page" form="cluster-query" value="2"' in second  # the form remembers the page
    rejected = get(client, big_run, "run_cluster", filter="rejected", plugin="TaintToleration")
    # (a cordoned node carries the node.kubernetes.io/unschedulable taint too)
    numbers = [int(n[-5:]) for n in cards(rejected)]
    assert any(i % 7 == 3 for i in numbers) and all(i % 7 == 3 or i % 11 == 5 for i in numbers)
    every = [n for page in range(1, 6) for n in cards(get(client, big_run, "run_cluster", page=str(page)))]
    assert sorted(every) == [f"node-{i:05d}" for i in range(NODES)]
    assert cards(get(client, big_run, "run_cluster", page="99")) == every[96:]  # clamped to the last page


def test_node_detail_and_escaping(client: Client, big_run: Run) -> None:
    detail = get(client, big_run, "run_node", node="node-00003")
    assert "dedicated=gpu:NoSchedule" in detail and "topology.kubernetes.io/zone=zone-0" in detail
    assert "TaintToleration" in detail  # this cycle's verdict on it
    missing = get(client, big_run, "run_node", node="<b>x</b>")
    assert "<b>x</b>" not in missing and "&lt;b&gt;x&lt;/b&gt;" in missing
    page = get(client, big_run, "run", q='"><script>alert(1)</script>')
    assert "<script>alert(1)" not in page and "&quot;&gt;&lt;script&gt;" in page


def test_inspector_groups_expand_and_scores_are_top_n_with_full_table(client: Client, big_run: Run) -> None:
    html = get(client, big_run, "run")
    groups = re.findall(r"<summary><strong>(\d+) nodes?</strong>: ([^<]+)</summary>", html)
    labels = [label for _, label in groups]
    assert labels[0] == "feasible" and any(label.startswith("TaintToleration") for label in labels)
    assert any("NodeUnschedulable" in label for label in labels)
    index = next(i for i, label in enumerate(labels) if label.startswith("TaintToleration"))
    nodes = re.findall(r'data-node="([^"]+)"', get(client, big_run, "run_filter_group", group=index))
    assert len(nodes) == int(groups[index][0]) and all(int(n[-5:]) % 7 == 3 or int(n[-5:]) % 11 == 5 for n in nodes)
    top = re.search(r'id="score-table">(.*?)</table>', html, re.S).group(1)
    assert top.count("<tr class=") == 10 and "★" in top
    full = get(client, big_run, "run_scores", page="1")
    assert full.count("data-node=") >= 10


def test_not_evaluated_group_lists_the_nodes_the_walk_did_not_reach(client: Client, inline_worker: list) -> None:  # noqa: F811
    """150 nodes in three zones, all feasible: each cycle finds 100 feasible and never reaches 49. The
    engine writes the node list once (the first cycle's frame) and a count per cycle; the second
    cycle's "not evaluated" group is rebuilt from that stored list."""
    nodes = [f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i:03d}, labels: {{topology.kubernetes.io/zone: "
             f"z{i // 50}}}}}\nstatus: {{allocatable: {{cpu: '4', memory: 8Gi, pods: '110'}}}}\n" for i in range(150)]
    pods = [f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}, namespace: default}}\n"
            f"spec: {{containers: [{{name: c, resources: {{requests: {{cpu: 100m}}}}}}]}}\n" for i in range(3)]
    scenario = scenario_create(actor=OWNER, name="walk", yaml_text="---\n".join(nodes + pods))
    run = svc.run_start(scenario=scenario, actor=OWNER)
    act(run, RunAction.KIND_STEP)
    act(run, RunAction.KIND_STEP)
    lists = list(run.events.filter(type="node_list").values_list("step", flat=True))
    walk = run.events.filter(type="filter_verdicts").order_by("-seq").first()
    assert lists == [1] and walk.step == 2
    expected = sorted({f"n{i:03d}" for i in range(150)} - set(walk.data["nodes"]))
    assert len(expected) == walk.data["num_not_evaluated"] == 49  # 100 feasible and the one it stopped at
    assert f"<strong>{len(expected)} nodes</strong>: not evaluated" in get(client, run, "run")
    shown = re.findall(r'data-node="([^"]+)"', get(client, run, "run_filter_group", group="-1", step="2"))
    assert sorted(shown) == expected


def test_pods_events_and_log_are_searched_and_paged(client: Client, big_run: Run) -> None:
    one = get(client, big_run, "run_pods", q="pod-00001")
    assert one.count("data-pod=") == 1 and "<strong>1</strong> of 60 pods" in one
    second = get(client, big_run, "run_pods", page="2")
    assert second.count("data-pod=") == 10
    bound = get(client, big_run, "run_pods", status="Bound")
    assert bound.count("status-Bound") == 2
    events = get(client, big_run, "run_events", q="Scheduled")
    assert events.count('class="k8s-Normal"') == 2
    log = get(client, big_run, "run_log", type="cycle_started")
    assert log.count("log-cycle_started") == 2


def test_live_update_is_bounded_and_refreshes_paged_parts(big_run: Run, channel_layer: Any) -> None:
    consumer = RunConsumer()
    consumer.run_id, consumer.seen, consumer.step, consumer.cycle = big_run.pk, 0, None, None
    consumer.rendered, consumer.actor = None, OWNER
    html = consumer.render(hello=True)
    assert len(html.encode()) < MAX_MESSAGE_BYTES
    for panel in ("cluster", "pods", "events"):
        assert f'id="{panel}-refresh" hx-swap-oob="true"' in html
    assert 'id="run-cluster"' not in html and 'id="run-inspector"' in html
