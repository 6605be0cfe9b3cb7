"""docs/architecture.md says how a live step reaches the cluster map as the code does it: whole
up to SMALL_CLUSTER nodes, past that the step's change in the `<template id="map-delta">` that
cluster_map_delta.html renders and run-page.js looks for, never the refresh marker alone."""

from __future__ import annotations

from pathlib import Path

from playground.presenters.runs.cluster import SMALL_CLUSTER
from playground.presenters.runs.cluster_map_delta import DELTA_NODES

ROOT = Path(__file__).resolve().parents[2]


def _templates_paragraph() -> str:
    text = (ROOT / "docs/architecture.md").read_text()
    start = text.index("**Templates**")
    return " ".join(text[start:text.index("\n\n", start)].split())


def test_the_doc_describes_the_big_maps_delta_as_the_code_sends_it() -> None:
    para = _templates_paragraph()
    assert "(cluster, cluster map, pods" not in para  # the map is not only a refresh marker
    assert f"up to {SMALL_CLUSTER} nodes" in para and "`SMALL_CLUSTER`" in para and "`DELTA_NODES`" in para
    assert DELTA_NODES > 0
    tag = '<template id="map-delta"'
    assert f"`{tag}>`" in para
    assert tag in (ROOT / "templates/playground/runs/partials/cluster_map_delta.html").read_text()
    assert tag in (ROOT / "static/js/run-page.js").read_text()
    assert "`playground/presenters/runs/cluster_map_delta.py`" in para and "`data-node`" in para
