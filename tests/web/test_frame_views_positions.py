"""`frame_views.apply` with the view's positions (key -> index, kept along a run's views by
selectors.frame_views) puts a step's changed entries in place of a copy of the lists, and gives
exactly the view the pass over every entry gives, for random views and deltas; the run page's
reads keep passing the positions along while the order stays."""

from __future__ import annotations

import random
from typing import Any

from playground import frame_views


def _view(rng: random.Random, pods: int, nodes: int) -> dict[str, Any]:
    return {
        "clock": rng.random(),
        "nodes": [{"name": f"n{i}", "pods": []} for i in range(nodes)],
        "pods": [{"key": f"default/p{i}", "status": "Pending"} for i in range(pods)],
    }


def _next(rng: random.Random, view: dict[str, Any]) -> dict[str, Any]:
    """The view after a random step: a few entries changed, sometimes a pod added."""
    pods = list(view["pods"])
    nodes = list(view["nodes"])
    for _ in range(rng.randint(0, 4)):
        i = rng.randrange(len(pods))
        pods[i] = {**pods[i], "status": rng.choice(["Pending", "Bound", "Deleted"]), "node": rng.choice(nodes)["name"]}
    if rng.random() < 0.3:
        j = rng.randrange(len(nodes))
        nodes[j] = {**nodes[j], "pods": [p["key"] for p in rng.sample(pods, 2)]}
    if rng.random() < 0.2:
        pods.append({"key": f"default/new{len(pods)}", "status": "Pending"})
    return {**view, "clock": view["clock"] + 1, "nodes": nodes, "pods": pods}


def test_applying_with_positions_is_applying_without() -> None:
    rng = random.Random(42)
    before = _view(rng, 200, 20)
    positions = frame_views.positions_of(before)
    for _ in range(300):
        after = _next(rng, before)
        delta = frame_views.diff(before, after, base=0)
        fast = frame_views.apply(before, delta, positions)
        assert fast == frame_views.apply(before, delta) == after
        # the untouched entries are the same objects (the next view shares them)
        assert all(a is b for a, b in zip(fast["pods"], before["pods"], strict=False)
                   if a["key"] not in delta["pods"])
        if "podsOrder" in delta or "nodesOrder" in delta:
            positions = frame_views.positions_of(fast)
        before = fast
