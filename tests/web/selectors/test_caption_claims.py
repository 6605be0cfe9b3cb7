"""What a lesson caption or a "Reading an older article?" entry says about a named cycle holds in
the run it points to. A caption that names a tie, a winner or a plugin's verdict is a claim about
that cycle's events; the claims below are read from the text and checked against the engine's
events for the scenario (seed 0), so a caption can no longer name a tie at the wrong cycle.

Understood claims (node, pod and plugin names must be the scenario's own, or the phrase is not a claim):
- "A and B tie", "a tie between A and B", "A and B now leave the same share free": the cycle's
  `selected` event has exactly those nodes as its tie set;
- "N wins": the cycle's `selected` node is N;
- "P rejects N" / "P rejected N": plugin P's Filter verdict on node N is not Success;
- "P is not evaluated on N": P has no verdict on N, or NotEvaluated (Filter stopped before it);
- "P refuses it at PreFilter" / "P's PreFilter rejects": P's PreFilter result is a rejection;
- "P's Filter then refuses every node": P's verdict on every evaluated node is a rejection;
- "X is popped from backoffQ": the pod the cycle starts with is X, popped from backoffQ.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest

from playground import then_and_now
from playground.selectors.gallery import GalleryEntry, gallery_entries
from scheduler_core.events.compact import iter_verdicts, prefilter_results
from scheduler_core.extender.sample import serve
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

ENTRIES = {e.slug: e for e in gallery_entries()}
NAME = r"([a-z0-9][a-z0-9.-]*[a-z0-9])"
PLUGIN = r"([A-Z][A-Za-z]+)"
REJECTED = ("Unschedulable", "UnschedulableAndUnresolvable", "Error")


@dataclass(frozen=True)
class Claim:
    kind: str
    args: tuple[str, ...]


def claims_in(text: str, nodes: set[str], plugins: set[str]) -> list[Claim]:
    """The claims `text` makes, keeping only those whose names are the scenario's nodes and plugins."""
    found: list[Claim] = []
    for pattern in (rf"\b{NAME} and {NAME} (?:now )?(?:tie\b|leave the same share free)", rf"\btie between {NAME} and {NAME}"):
        found += [Claim("tie", m.groups()) for m in re.finditer(pattern, text)]
    found += [Claim("wins", (m.group(1),)) for m in re.finditer(rf"\b{NAME} wins\b", text)]
    found += [Claim("rejects", m.groups()) for m in re.finditer(rf"\b{PLUGIN} reject(?:s|ed) {NAME}\b", text)]
    found += [Claim("not_evaluated", m.groups()) for m in re.finditer(rf"\b{PLUGIN} is not evaluated on {NAME}\b", text)]
    for pattern in (rf"\b{PLUGIN} refuses it at PreFilter", rf"\b{PLUGIN}'s? PreFilter rejects", rf"\b{PLUGIN} rejects it already at PreFilter"):
        found += [Claim("prefilter_rejects", m.groups()) for m in re.finditer(pattern, text)]
    found += [Claim("filter_refuses_all", m.groups())
              for m in re.finditer(rf"\b{PLUGIN}'s? PreFilter [^.]*?its Filter (?:then )?refuses every node", text)]
    found += [Claim("popped_from_backoff", (m.group(1),)) for m in re.finditer(rf"\b{NAME} is popped from backoffQ", text)]
    kept = []
    for claim in found:
        names = [a for a in claim.args if not a[0].isupper()]
        named_plugins = [a for a in claim.args if a[0].isupper()]
        if all(n in nodes for n in names) and all(p in plugins for p in named_plugins):
            kept.append(claim)
    return kept


@pytest.fixture(scope="module")
def extender_url() -> Iterator[str]:
    server = serve(port=0, quiet=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@cache
def _events(slug: str, extender_url: str) -> tuple[list[dict[str, Any]], frozenset[str], frozenset[str]]:
    entry: GalleryEntry = ENTRIES[slug]
    text = entry.text.replace("http://127.0.0.1:8888", extender_url)
    sim = Simulation(load_scenario_text(text, source=entry.path.name), seed=0, record_events=True,
                     feature_gates=entry.feature_gates or None)
    sim.run(3600.0)
    events = sim.sink.events
    nodes = frozenset(n["name"] for n in sim.view()["nodes"]) | frozenset(
        p["key"].split("/", 1)[1] for p in sim.view()["pods"])
    plugins = frozenset(p for e in events if e["type"] == "filter_verdicts" for _, row in iter_verdicts(e) for p in row)
    plugins |= frozenset(r["plugin"] for e in events if e["type"] == "prefilter" for r in prefilter_results([e]))
    return events, nodes, plugins


def check(claim: Claim, cycle: int, events: list[dict[str, Any]]) -> str | None:
    """None when the claim holds at `cycle`, else what the run shows instead."""
    of_cycle = [e for e in events if e.get("cycle") == cycle]
    selected = next((e for e in of_cycle if e["type"] == "selected"), None)
    verdicts = [dict(iter_verdicts(e)) for e in of_cycle if e["type"] == "filter_verdicts"]
    if claim.kind == "tie":
        ties = set(selected["ties"]) if selected else set()
        return None if ties == set(claim.args) else f"the tie set is {sorted(ties)}"
    if claim.kind == "wins":
        node = selected["node"] if selected else None
        return None if node == claim.args[0] else f"{node} wins"
    if claim.kind in ("rejects", "not_evaluated"):
        plugin, node = claim.args
        codes = [v[node].get(plugin, {}).get("code") for v in verdicts if node in v]
        if claim.kind == "rejects":
            return None if any(c in REJECTED for c in codes) else f"{plugin} on {node}: {codes}"
        return None if codes and all(c in (None, "NotEvaluated") for c in codes) else f"{plugin} on {node}: {codes}"
    if claim.kind == "prefilter_rejects":
        results = [r for r in prefilter_results([e for e in of_cycle if e["type"] == "prefilter"])
                   if r["plugin"] == claim.args[0]]
        codes = [r["code"] for r in results]
        return None if any(c in REJECTED for c in codes) else f"{claim.args[0]}'s PreFilter: {codes}"
    if claim.kind == "filter_refuses_all":
        rows = [row for v in verdicts for row in v.values()]
        codes = [row.get(claim.args[0], {}).get("code") for row in rows]
        return None if codes and all(c in REJECTED for c in codes) else f"{claim.args[0]}'s Filter: {codes}"
    if claim.kind == "popped_from_backoff":
        started = next((e for e in of_cycle if e["type"] == "cycle_started"), None)
        if started is None or started["pod"].split("/", 1)[1] != claim.args[0]:
            return f"the cycle starts with {started and started['pod']}"
        pops = [e for e in events if e["type"] == "queue_move" and e["pod"] == started["pod"]
                and e["to"] == "none" and e["seq"] < started["seq"]]
        return None if pops and pops[-1]["from"] == "backoffQ" else f"popped from {pops[-1]['from'] if pops else None}"
    raise AssertionError(claim.kind)


def _lesson_stops() -> list[tuple[str, int, str]]:
    stops = []
    for slug, entry in ENTRIES.items():
        for lesson in load_scenario_text(entry.text, source=entry.path.name).lessons:
            stops += [(slug, s.cycle, s.caption) for s in lesson.steps if s.cycle is not None]
    return stops


def _then_and_now_looks() -> list[tuple[str, int, str]]:
    looks = []
    for e in then_and_now.ENTRIES:
        m = re.match(r"Cycle (\d+): (.*)", e.look)
        if e.gallery and m:
            looks.append((e.gallery, int(m.group(1)), m.group(2)))
    return looks


STOPS = _lesson_stops() + _then_and_now_looks()


@pytest.mark.parametrize(("slug", "cycle", "text"), STOPS, ids=[f"{s}-c{c}-{i}" for i, (s, c, _) in enumerate(STOPS)])
def test_what_a_caption_says_about_its_cycle_holds(slug: str, cycle: int, text: str, extender_url: str) -> None:
    events, nodes, plugins = _events(slug, extender_url)
    wrong = {f"{c.kind}{c.args}": why for c in claims_in(text, set(nodes), set(plugins))
             if (why := check(c, cycle, events)) is not None}
    assert wrong == {}, f"{slug} cycle {cycle}: {text}"


def test_the_checker_reads_claims_from_the_captions_and_catches_a_wrong_one(extender_url: str) -> None:
    """Not vacuous: the captions make claims of every kind, and the caption the issue found wrong
    (a tie between large and medium at resource-fit's cycle 3) is refused."""
    kinds = set()
    for slug, _, text in STOPS:
        _, nodes, plugins = _events(slug, extender_url)
        kinds |= {c.kind for c in claims_in(text, set(nodes), set(plugins))}
    assert {"tie", "wins", "rejects", "not_evaluated", "filter_refuses_all", "popped_from_backoff"} <= kinds
    events, nodes, plugins = _events("resource-fit", extender_url)
    old = "large and medium now leave the same share free, and medium wins this time."
    (tie, wins) = claims_in(old, set(nodes), set(plugins))
    assert check(tie, 3, events) == "the tie set is ['medium']" and check(wins, 3, events) is None
    assert check(tie, 2, events) is None
    events, nodes, plugins = _events("read-write-once-pod", extender_url)
    (wrong,) = claims_in("VolumeRestrictions refuses it at PreFilter", set(nodes), set(plugins))
    assert check(wrong, 1, events) is not None
