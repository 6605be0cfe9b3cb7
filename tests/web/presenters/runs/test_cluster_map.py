"""The cluster map (presenters/runs/cluster_map.py, partials/cluster_map.html): nodes grouped by
zone, bound pods as chips inside their node, nominations as ghost chips, what a cycle did to each
node, and a bounded picture of a big cluster."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.urls import reverse

from playground.models import Run, RunFrame
from playground.ownership import SESSION_KEY
from playground.presenters.runs import cluster_map, run_screen
from playground.presenters.runs.screen import Screen
from playground.selectors.frame_views import view_at
from playground.services import gallery
from tests.web.services.runs.test_runs_services import OWNER, act, inline_worker, start  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db


def _page(client: Client, run: Any, query: str = "") -> str:
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    return client.get(reverse("playground:run", args=[run.share_token]) + query).content.decode()


def _map(html: str) -> str:
    start_at = html.index('id="run-map"')
    return html[start_at: html.index("</section>", start_at)]


def _node_html(map_html: str, node: str) -> str:
    """The element of node `node` in the map (its box, up to the next box or the end)."""
    at = map_html.index(f'data-node="{node}"')
    nxt = map_html.find('<div class="mnode', at)
    return map_html[at: nxt if nxt >= 0 else len(map_html)]


def test_bound_pods_are_chips_inside_their_node(client: Client, inline_worker: list) -> None:  # noqa: F811
    run = start("resource-fit")
    for _ in range(12):
        act(run, "step")
    html = _map(_page(client, run))
    view = view_at(run=run, step=run.head_step)
    assert html.count("data-node=") == len(view["nodes"])
    bound = [(n["name"], p) for n in view["nodes"] for p in n["pods"]]
    assert bound
    for node, pod in bound:
        assert f'data-pod="{pod}"' in _node_html(html, node)


def _steps_until(run: Any, found: Any, limit: int = 40) -> dict[str, Any]:
    """Step `run` until `found(view)` holds; the view then."""
    for _ in range(limit):
        view = view_at(run=run, step=run.head_step)
        if found(view):
            return view
        act(run, "step")
    raise AssertionError("never happened")


def test_nodes_are_grouped_by_zone(client: Client, inline_worker: list) -> None:  # noqa: F811
    run = start("topology-spread")
    view = view_at(run=run, step=run.head_step)
    html = _map(_page(client, run))
    zones = {n["name"]: n["labels"]["topology.kubernetes.io/zone"] for n in view["nodes"]}
    assert len(set(zones.values())) > 1
    for zone in set(zones.values()):
        at = html.index(f'data-zone="{zone}"')
        end = html.find("data-zone=", at + 1)
        group = html[at: end if end >= 0 else len(html)]
        assert sorted(n for n, z in zones.items() if z == zone) == sorted(
            n for n in zones if f'data-node="{n}"' in group
        )


def test_a_nomination_is_a_ghost_chip_on_its_node(client: Client, inline_worker: list) -> None:  # noqa: F811
    run = start("priority-preemption")
    view = _steps_until(run, lambda v: any(n["nominated"] for n in v["nodes"]))
    node = next(n for n in view["nodes"] if n["nominated"])
    html = _map(_page(client, run))
    box = _node_html(html, node["name"])
    for pod in node["nominated"]:
        assert f'data-ghost="{pod}"' in box
        assert f'data-pod="{pod}"' not in box  # its own chip is in a queue, not on the node
    assert 'class="mmark preempt"' in box  # the node preemption made room on, this step


def test_a_cycle_dims_the_rejected_nodes_and_outlines_the_chosen(client: Client, inline_worker: list) -> None:  # noqa: F811
    run = start("zone-bound-volume")
    act(run, "step")
    act(run, "step")
    screen_html = _map(_page(client, run))
    selected = run_screen(run=run, actor=OWNER).first("selected")
    assert selected is not None
    chosen = _node_html(screen_html, selected["node"])
    assert chosen.startswith('data-node="') and "chosen" in chosen
    rejected = [m for m in screen_html.split('<div class="mnode')[1:] if m.split('"')[0].count("rejected")]
    assert rejected, "the lesson's cycle rejects a node for its volume's zone"
    assert all("filtered out by VolumeBinding" in m for m in rejected)
    assert all('tabindex="0"' in m and "aria-label=" in m for m in screen_html.split('<div class="mnode')[1:])


def _synthetic_view(nodes: int, pods_per_node: int, zones: int) -> dict[str, Any]:
    """A view as Simulation.view() gives it, at a size no unit test can run: `nodes` nodes in
    `zones` zones, each with `pods_per_node` bound pods, and a queue."""
    node_list, pods = [], []
    for i in range(nodes):
        keys = [f"default/p-{i:05d}-{j:03d}" for j in range(pods_per_node)]
        node_list.append({
            "name": f"node-{i:05d}", "labels": {"topology.kubernetes.io/zone": f"zone-{i % zones}"},
            "taints": [], "unschedulable": False, "allocatable": {"cpu": 8000, "memory": 2**34, "pods": 110},
            "requested": {"cpu": 100 * pods_per_node, "memory": 2**24 * pods_per_node}, "pods": keys,
            "assumed": [], "deleting": [], "nominated": [],
        })
        pods += [{"key": k, "status": "Bound", "node": f"node-{i:05d}", "priority": 0, "owner": "ReplicaSet/web"}
                 for k in keys]
    queue = [{"pod": f"default/q-{i}"} for i in range(50)]
    return {"clock": 0.0, "nodes": node_list, "pods": pods,
            "queues": {"activeQ": queue, "backoffQ": [], "unschedulable": [], "counts": {"activeQ": 5000}}}


def _screen(view: dict[str, Any], params: dict[str, str]) -> Screen:
    run = Run(share_token="big-map", kubernetes_version="v1.35")
    frame = RunFrame(run=run, step=2, result="clock")
    return Screen(run=run, frame=frame, pinned=False, can_control=False, reveal=None, groups=[], view=view,
                  previous=view, frame_events=[], params=params)


def test_a_big_cluster_is_drawn_as_zones_with_a_bounded_size() -> None:
    """5,000 nodes and 150,000 pods: every node a cell with its pod count (chips past the budget),
    grouped by zone, the whole map within 300 KB; a zone's drill-down a page of full boxes."""
    view = _synthetic_view(5000, 30, 6)  # 5,000 nodes, 150,000 pods
    screen = _screen(view, {})
    m = screen.cluster_map
    assert m["large"] and not m["chips"] and len(m["groups"]) == 6
    assert sum(len(g["cells"]) for g in m["groups"]) == 5000 and sum(g["pods"] for g in m["groups"]) == 150_000
    first = render_to_string("playground/runs/partials/cluster_map.html", {"screen": screen, "run": screen.run})
    assert len(first.encode()) <= 300_000
    assert first.count("data-node=") == 5000
    zone = _screen(view, {"map_zone": "/zone-1", "map_page": "2"})
    drill = zone.cluster_map
    assert drill["zone"]["zone"] == "zone-1" and drill["page"].number == 2
    html = render_to_string("playground/runs/partials/cluster_map_body.html",
                            {"screen": zone, "run": zone.run, "m": drill})
    assert len(html.encode()) <= 50_000
    assert html.count("data-node=") == cluster_map.MAP_PAGE
    assert all(b["name"] in {n["name"] for n in view["nodes"][1::6]} for b in drill["boxes"])
    assert "+25 more" in html  # 30 pods, 5 drawn per node


def test_chips_are_coloured_by_owner_and_named_uniquely() -> None:
    assert cluster_map.owner_colour("a/web-1", None) == cluster_map.owner_colour("a/web-2", None)
    assert cluster_map.owner_colour("a/x", "ReplicaSet/web") == cluster_map.owner_colour("a/y", "ReplicaSet/web")
    names = {cluster_map.transition_name(k) for k in ("a/b.c", "a/b_c", "a.b/c", "a/b-c")}
    assert len(names) == 4 and all(n.replace("-", "").replace("_", "").isalnum() for n in names)


def test_every_gallery_lesson_draws_its_nodes_on_the_map(client: Client, inline_worker: list) -> None:  # noqa: F811
    """Each gallery scenario's run page, three steps in: every node of the view has its box,
    with its bound pods' chips inside."""
    slugs = [entry.slug for entry in gallery.gallery_entries()]
    assert len(slugs) > 30
    for slug in slugs:
        run = start(slug)
        for _ in range(3):
            act(run, "step")
        html = _page(client, run)
        view = view_at(run=run, step=run.head_step)
        drawn = _map(html).count("data-node=")
        assert drawn == len(view["nodes"]) > 0, slug
        for node in view["nodes"]:
            box = _node_html(_map(html), node["name"])
            assert all(f'data-pod="{p}"' in box for p in node["pods"][: cluster_map.CHIPS_PER_NODE]), slug


def test_zonal_volumes_sit_in_their_zone_and_nodes_count_their_pods_volumes(client: Client, inline_worker: list) -> None:  # noqa: F811
    run = start("zone-bound-volume")
    for _ in range(2):
        act(run, "step")
    html = _map(_page(client, run))
    view = view_at(run=run, step=run.head_step)
    zone_a = html[html.index('data-zone="zone-a"'): html.index('data-zone="zone-b"')]
    assert "▣ orders-disk" in zone_a and "orders-disk" not in html[html.index('data-zone="zone-b"'):]
    users = {u for c in view["storageClaims"] for u in c["usedBy"]}
    holders = [n for n in view["nodes"] if users & set(n["pods"])]
    assert holders
    for node in holders:
        assert 'class="mmark vol"' in _node_html(html, node["name"])


def test_a_refreshed_map_body_carries_the_step_and_counts(client: Client, inline_worker: list) -> None:  # noqa: F811
    """Above 50 nodes a step's update fetches the map's body: its heading's counts move with it."""
    from playground.services.runs import actions as svc
    from playground.services.scenarios import scenario_create
    from tests.web.scale import big_cluster_yaml

    run = svc.run_start(scenario=scenario_create(actor=OWNER, name="60", yaml_text=big_cluster_yaml(60, 5)), actor=OWNER)
    _page(client, run)  # the viewer's session
    for _ in range(2):
        act(run, "step")
    body = client.get(reverse("playground:run_map", args=[run.share_token])).content.decode()
    bound = sum(len(n["pods"]) for n in view_at(run=run, step=run.head_step)["nodes"])
    assert bound == 2 and "2 bound pods" in body and 'data-step="2"' in body
    assert body.count("data-node=") == 60


class _Where(HTMLParser):
    """pod -> the data-node of the innermost element around its chip, and every data-node seen."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str | None] = []
        self.nodes: list[str] = []
        self.pods: dict[str, str | None] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        node = found.get("data-node")
        if node:
            self.nodes.append(node)
        if found.get("data-pod"):
            self.pods[str(found["data-pod"])] = next((n for n in reversed(self.stack) if n), None)
        if tag not in {"input", "br", "img", "meta", "link"}:
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        if self.stack:
            self.stack.pop()


def _where(html: str) -> _Where:
    parser = _Where()
    parser.feed(html)
    return parser


def test_a_big_map_draws_every_node_with_its_pods_inside() -> None:
    """From 500 nodes each node is a compact cell (data-node) holding its bound pods' chips, in
    its zone's group; past the chip budget a cell shows its count instead."""
    view = _synthetic_view(600, 3, 4)
    screen = _screen(view, {})
    html = render_to_string("playground/runs/partials/cluster_map.html", {"screen": screen, "run": screen.run})
    where = _where(html)
    assert sorted(where.nodes) == sorted(n["name"] for n in view["nodes"])
    bound = {p: n["name"] for n in view["nodes"] for p in n["pods"]}
    assert {p: where.pods[p] for p in bound} == bound
    for zone in range(4):
        group = html[html.index(f'data-zone="/zone-{zone}"'):]
        group = group[: group.find('class="mgroup"', 1) if 'class="mgroup"' in group[1:] else len(group)]
        assert group.count("data-node=") == 150
    counted = _screen(_synthetic_view(600, 30, 4), {})  # 18,000 pods: past the chips' budget
    html = render_to_string("playground/runs/partials/cluster_map.html", {"screen": counted, "run": counted.run})
    where = _where(html)
    assert len(where.nodes) == 600 and not any(n for n in where.pods.values())
    assert '<b class="c4 m0" data-node="node-00000">30</b>' in html  # cpu 37.5%, memory 2.9%


def _live_map(run: Any) -> str:
    """The cluster map's part of the live update every viewer of `run` is pushed (live_render)."""
    from playground.consumers import live_render

    update = live_render.shared_update(run.id, OWNER, True, 0.0)
    assert update is not None
    html = update.html
    at = html.find('<template id="map-delta"')
    return html[at: html.index("</template>", at) + len("</template>")] if at >= 0 else ""


def test_a_live_step_carries_only_the_nodes_it_changed(client: Client, inline_worker: list) -> None:  # noqa: F811
    """A step's live update of a big map is the changed cells (here: where the pod bound), the
    queues and the heading: its size does not grow with the cluster (600 against 1,200 nodes)."""
    from playground.services.runs import actions as svc
    from playground.services.scenarios import scenario_create
    from tests.web.scale import big_cluster_yaml

    sizes = {}
    for nodes in (600, 1200):
        yaml_text = big_cluster_yaml(nodes, 40)
        run = svc.run_start(scenario=scenario_create(actor=OWNER, name=str(nodes), yaml_text=yaml_text), actor=OWNER)
        for _ in range(3):
            act(run, "step")
        run.refresh_from_db()
        delta = _live_map(run)
        assert delta, "a live step of a big map is a delta, not a whole map nor a fetch"
        before, after = view_at(run=run, step=run.head_step - 1), view_at(run=run, step=run.head_step)
        changed = [n["name"] for n, o in zip(after["nodes"], before["nodes"], strict=True) if n["pods"] != o["pods"]]
        assert changed
        where = _where(delta)
        assert set(changed) <= set(where.nodes) and len(where.nodes) <= 2  # the bind's node (and last cycle's)
        for node in after["nodes"]:
            if node["name"] in changed:
                assert all(where.pods[p] == node["name"] for p in node["pods"])
        assert f'data-seq="{run_screen(run=run, actor=OWNER).shown_seq}"' in delta
        sizes[nodes] = len(delta.encode())
    assert max(sizes.values()) < 8_000 and abs(sizes[600] - sizes[1200]) < 200, sizes
