"""Each gallery explanation's factual claims (its `# expect:` block) hold when the scenario runs."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import pytest

from playground.selectors.gallery import GalleryEntry, gallery_entries
from scheduler_core.extender.sample import serve
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

ENTRIES = gallery_entries()


@pytest.fixture(scope="module")
def extender_url() -> Any:
    server = serve(port=0, quiet=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _run(entry: GalleryEntry, extender_url: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    text = entry.text
    if entry.expect.get("extender") == "running":
        text = text.replace("http://127.0.0.1:8888", extender_url)
    sim = Simulation(load_scenario_text(text, source=entry.path.name), seed=0, record_events=True,
                     feature_gates=entry.feature_gates or None)
    sim.run(3600.0)
    return sim.view(), sim.sink.events


def test_every_gallery_scenario_states_checkable_claims() -> None:
    assert len(ENTRIES) >= 10
    for entry in ENTRIES:
        assert entry.expect, f"{entry.path.name}: no '# expect:' block"
        assert "- " not in entry.explanation.replace(" - ", ""), f"{entry.path.name}: a word split by folding"


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.slug for e in ENTRIES])
def test_gallery_claims_hold(entry: GalleryEntry, extender_url: str) -> None:
    view, events = _run(entry, extender_url)
    expect = entry.expect
    pods = {p["key"].split("/", 1)[1]: p for p in view["pods"]}
    for pod, node in (expect.get("bound") or {}).items():
        assert pods[pod]["status"] == "Bound" and pods[pod]["node"] == node, (pod, pods[pod])
    for pod, part in (expect.get("pending") or {}).items():
        assert pods[pod]["status"] == "Pending" and part in (pods[pod]["message"] or ""), (pod, pods[pod])
    for pod, by in (expect.get("deleted") or {}).items():
        assert pods[pod]["status"] == "Deleted" and pods[pod]["deletedBy"] == by, (pod, pods[pod])
    counts = Counter(p["node"] for p in pods.values() if p["status"] == "Bound")
    for node, count in (expect.get("nodeCounts") or {}).items():
        assert counts.get(node, 0) == count, (node, counts)
    reasons = {e["reason"] for e in events if e["type"] == "k8s_event"}
    assert set(expect.get("events") or []) <= reasons, reasons
    for pod, at in (expect.get("eventTimes") or {}).items():
        times = [e["time"] for e in events if e["type"] == "k8s_event" and e["object"].endswith("/" + pod)
                 and e["reason"] == "TaintManagerEviction"]
        assert times == [float(at)], (pod, times)
    if "filterCutoff" in expect:
        cutoffs = {e["num_to_find"] for e in events if e["type"] == "filter_verdicts"}
        assert cutoffs == {expect["filterCutoff"]}, cutoffs
    if "nodes" in expect:
        assert len(view["nodes"]) == expect["nodes"]
