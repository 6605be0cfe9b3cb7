"""Reading the compact `filter_verdicts` and `scores` events (events.EVENT_TYPES, schema 3).

The engine records a cycle's verdicts as a table of distinct verdict rows with one row index
per evaluated node, and its scores as columns aligned with one node list
(framework/runtime/filter_record.py, framework.score_columns). Readers (the run page's
inspector, tests, tools reading `trace`) get the per-node, per-plugin view back from here, so
none of them depends on how the record is packed. Events stored before schema 2 (one dict per
node, one dict per plugin and node) and schema 2 (the not-evaluated nodes listed in every
`filter_verdicts`) read the same way.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

PASSING_CODES = frozenset({"Success", "Skip"})


# ---- prefilter ---------------------------------------------------------------------------------

def prefilter_results(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each PreFilter plugin's result ({plugin, code, reasons, node_names}) from a cycle's
    `prefilter` events: one event listing them all (schema 3), or one event per plugin."""
    out: list[dict[str, Any]] = []
    for event in events:
        if "results" in event:
            out.extend(event["results"])
        else:
            out.append(event)
    return out


# ---- filter_verdicts ---------------------------------------------------------------------------

def iter_verdicts(event: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(node, {plugin: verdict}) for every evaluated node, in evaluation order. The dicts of
    nodes with the same outcome are one shared object: read, do not change them."""
    if "outcome" not in event:  # schema 1
        old = event.get("verdicts") or {}
        for node in event.get("nodes") or []:
            yield node, old.get(node, {})
        return
    rows = event["verdicts"]
    yield from zip(event["nodes"], (rows[i] for i in event["outcome"]), strict=True)


def verdicts_by_node(event: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """{node: {plugin: verdict}} for the evaluated nodes (the schema-1 `verdicts` field)."""
    return dict(iter_verdicts(event))


def verdict_for(event: dict[str, Any], node: str, plugin: str) -> dict[str, Any] | None:
    """One plugin's verdict on one node ({"code", "reasons"?, "withNominatedPods"?}), or None
    when the node was not evaluated or the plugin has no verdict for it."""
    for name, row in iter_verdicts(event):
        if name == node:
            return row.get(plugin)
    return None


def filter_plugins(event: dict[str, Any]) -> list[str]:
    """The plugins with a verdict on some node, in the order they first appear (profile order;
    "_" last when the walk stopped at a node because enough were feasible)."""
    if "outcome" in event:
        seen_rows = dict.fromkeys(event["outcome"])
        rows = [event["verdicts"][i] for i in seen_rows]
    else:
        rows = [row for _, row in iter_verdicts(event)]
    plugins: dict[str, None] = {}
    for row in rows:
        plugins.update(dict.fromkeys(row))
    return list(plugins)


def row_passes(row: dict[str, Any]) -> bool:
    """Whether a verdict row is a node every plugin accepted."""
    return all(v.get("code") in PASSING_CODES for v in row.values())


def feasible_nodes(event: dict[str, Any]) -> list[str]:
    """The nodes the walk kept as feasible, in evaluation order."""
    if "outcome" not in event:
        return list(event.get("feasible") or [])
    rows = event["verdicts"]
    passing = [row_passes(row) for row in rows]
    out = [node for node, i in zip(event["nodes"], event["outcome"], strict=True) if passing[i]]
    return out[:event["num_feasible"]]


def outcome_groups(event: dict[str, Any]) -> list[tuple[dict[str, Any], list[str]]]:
    """The evaluated nodes grouped by identical verdict row, groups in order of first
    appearance, nodes in evaluation order: [(row, [nodes])]."""
    groups: dict[int, tuple[dict[str, Any], list[str]]] = {}
    if "outcome" in event:
        rows = event["verdicts"]
        for node, i in zip(event["nodes"], event["outcome"], strict=True):
            groups.setdefault(i, (rows[i], []))[1].append(node)
        return list(groups.values())
    keyed: dict[str, tuple[dict[str, Any], list[str]]] = {}
    for node, row in iter_verdicts(event):
        key = repr(sorted(row.items()))
        keyed.setdefault(key, (row, []))[1].append(node)
    return list(keyed.values())


def num_not_evaluated(event: dict[str, Any]) -> int:
    """How many nodes of the list the walk did not reach (the search stopped first)."""
    if "num_not_evaluated" in event:
        return int(event["num_not_evaluated"])
    return len(event.get("not_evaluated") or [])


def not_evaluated_nodes(event: dict[str, Any], node_list: dict[str, Any] | list[str] | None) -> list[str]:
    """The nodes the walk did not reach, in list order from where it stopped (wrapping around
    the list, as the walk does). `node_list` is the `node_list` event in effect for the cycle
    (the last one at or before it) or its names; without it only an older event's own list
    can answer, else []."""
    if "num_not_evaluated" not in event:  # schema 1/2: listed in the event
        return list(event.get("not_evaluated") or [])
    count = int(event["num_not_evaluated"])
    names = node_list.get("nodes") if isinstance(node_list, dict) else node_list
    if not count or not names:
        return []
    n, start = len(names), int(event.get("start_index") or 0) + len(event.get("nodes") or [])
    return [names[(start + i) % n] for i in range(min(count, n))]


# ---- scores ------------------------------------------------------------------------------------

@dataclass
class ScoreTable:
    """A `scores` event as rows: `cells[plugin][node]` is {"raw", "normalized", "weighted"} (and
    "extender": True for an extender's column), or absent when that column has no score for
    the node; `totals` {node: total} in the order the nodes were scored."""

    plugins: list[str]
    nodes: list[str]
    totals: dict[str, int]
    weights: dict[str, int]
    cells: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)

    def cell(self, plugin: str, node: str) -> dict[str, Any] | None:
        return self.cells.get(plugin, {}).get(node)


def _column(value: Any, n: int) -> list[Any]:
    return value if isinstance(value, list) else [value] * n


def score_table(event: dict[str, Any]) -> ScoreTable:
    """The per-node, per-plugin scores of a `scores` event."""
    weights = dict(event.get("weights") or {})
    if "raw" not in event:  # schema 1
        per = event.get("plugins") or {}
        totals = dict(event.get("totals") or {})
        nodes = list(totals) or sorted({n for cells in per.values() for n in cells})
        return ScoreTable(list(per), nodes, totals, weights, {p: dict(c) for p, c in per.items()})
    nodes = list(event["nodes"])
    n = len(nodes)
    extenders = set(event.get("extenders") or [])
    cells: dict[str, dict[str, dict[str, Any]]] = {}
    for plugin in event["plugins"]:
        raw = _column(event["raw"][plugin], n)
        normalized = _column(event["normalized"].get(plugin, event["raw"][plugin]), n)
        if plugin in extenders:
            weighted = _column(event["weighted"][plugin], n)
            cells[plugin] = {node: {"raw": r, "normalized": z, "weighted": w, "extender": True}
                             for node, r, z, w in zip(nodes, raw, normalized, weighted, strict=True)
                             if r is not None}
        else:
            w = weights[plugin]
            cells[plugin] = {node: {"raw": r, "normalized": z, "weighted": z * w}
                             for node, r, z in zip(nodes, raw, normalized, strict=True)}
    return ScoreTable(list(event["plugins"]), nodes, score_totals(event), weights, cells)


def score_totals(event: dict[str, Any]) -> dict[str, int]:
    """{node: total score} in the order the nodes were scored: stored when extenders added to
    them, else the sum of the plugins' normalised scores x weight."""
    if "raw" not in event:
        return dict(event.get("totals") or {})
    nodes = event["nodes"]
    n = len(nodes)
    if "totals" in event:
        return dict(zip(nodes, _column(event["totals"], n), strict=True))
    weights = event.get("weights") or {}
    totals = [0] * n
    for plugin in event["plugins"]:
        w = weights[plugin]
        col = _column(event["normalized"].get(plugin, event["raw"][plugin]), n)
        totals = [t + z * w for t, z in zip(totals, col, strict=True)]
    return dict(zip(nodes, totals, strict=True))
