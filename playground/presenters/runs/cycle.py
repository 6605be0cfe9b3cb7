"""The cycle inspector (partials/cycle_inspector.html and its parts filter_matrix.html,
extender_calls.html, scores.html, binding.html): one scheduling cycle, extension point by
extension point, as the engine recorded it. Nothing here re-derives a scheduler decision."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from playground.presenters.runs import reason_notes
from playground.selectors.points import POINT_LABELS
from scheduler_core.events.compact import feasible_nodes, filter_plugins, iter_verdicts, prefilter_results, score_table
from scheduler_core.featuregate.features import gates_for

if TYPE_CHECKING:
    from playground.presenters.runs.screen import Screen


def point_labels(screen: Screen) -> list[dict[str, Any]]:
    """The extension-point groups of this cycle, with which are revealed and which is current."""
    revealed = len(screen.groups) if screen.reveal is None else screen.reveal
    popped = screen.pop
    return [
        {
            "key": g,
            "label": popped["label"] if g == "queue" and popped else POINT_LABELS[g],
            "shown": i < revealed,
            "current": i == revealed - 1,
        }
        for i, g in enumerate(screen.groups)
    ]


def cycle_started(screen: Screen) -> dict[str, Any] | None:
    return screen.first("cycle_started")


def snapshot(screen: Screen) -> dict[str, Any] | None:
    """This cycle's UpdateSnapshot: the snapshot's generation and how much of it was refreshed."""
    return screen.first("snapshot")


def prefilters(screen: Screen) -> list[dict[str, Any]]:
    return prefilter_results(screen.all("prefilter"))


# What each filter-matrix symbol means; the page prints this legend under the matrix.
FILTER_LEGEND = [
    ("pass", "✓", "the plugin ran and the node passed"),
    ("skip", "·", "skipped: the plugin's PreFilter said it has nothing to check for this pod"),
    ("notrun", "–", "not run: an earlier plugin already rejected the node, so the walk stopped there"),
    ("reject", "✗", "rejected the node (the reason follows)"),
    ("error", "!", "the plugin failed with an error"),
    ("unsent", "∅", "not sent to the extender: the Filter plugins had already rejected the node"),
]
_CANCELLED = "_"  # the engine's marker for a node that passed after enough feasible nodes were found


def _cell(verdict: dict[str, Any] | None) -> dict[str, Any]:
    """One matrix cell: the engine's verdict, with the symbol and kind the legend explains."""
    verdict = verdict or {"code": "NotEvaluated"}
    code = verdict.get("code", "")
    reasons = list(verdict.get("reasons") or [])
    kind = {"Success": "pass", "Skip": "skip", "NotEvaluated": "notrun", "Error": "error"}.get(code, "reject")
    symbol = dict((k, sym) for k, sym, _ in FILTER_LEGEND)[kind]
    text = {"pass": "passed", "skip": "skipped (PreFilter)", "notrun": "not run"}.get(kind, code)
    return {
        "code": code,
        "kind": kind,
        "symbol": symbol,
        "reasons": reasons,
        "title": text + (": " + "; ".join(reasons) if reasons else ""),
    }


def _extender_filters(screen: Screen) -> list[dict[str, Any]]:
    """The extender filter calls of this cycle: which nodes each one kept and which it rejected."""
    result = []
    for call in screen.all("extender_call"):
        if call.get("verb") != "filter":
            continue
        changed = call.get("changed") or {}
        rejected = {n: "removed by the extender" for n in changed.get("removed", [])}
        rejected.update(changed.get("failed") or {})
        rejected.update(changed.get("failedAndUnresolvable") or {})
        result.append({"call": call, "rejected": rejected, "passed": set(changed.get("passed") or [])})
    return result


def filter_matrix(screen: Screen) -> dict[str, Any] | None:
    """Nodes x Filter plugins (then one column per filtering extender), each cell the verdict as
    the engine recorded it: plugins after a node's first rejection are "not run", never ✗. A node
    that passed after the search had found enough feasible nodes is dropped (upstream cancels its
    walk); nodes the search never reached (percentageOfNodesToScore) are rows of their own."""
    event = screen.first("filter_verdicts")
    if event is None:
        return None
    plugins = [p for p in filter_plugins(event) if p != _CANCELLED]
    extenders = _extender_filters(screen)
    plugin_feasible = feasible_nodes(event)
    feasible = set(plugin_feasible)
    rows = []
    for node, node_verdicts in iter_verdicts(event):
        if _CANCELLED in node_verdicts:
            rows.append({"node": node, "cells": [], "feasible": False, "evaluated": True, "dropped": True})
            continue
        cells = [_cell(node_verdicts.get(plugin)) for plugin in plugins]
        passed = node in feasible
        for ext in extenders:
            if not passed or not ext["call"].get("ok"):
                reason = "not sent: the node was already rejected"
                if passed:
                    reason = "extender error: " + str(ext["call"].get("error") or "") + (
                        " (ignorable: skipped)" if ext["call"].get("ignorable") else ""
                    )
                kind = "unsent" if not passed else "error"
                symbol = "∅" if not passed else "!"
                cells.append({"code": kind, "kind": kind, "symbol": symbol, "reasons": [], "title": reason})
            elif node in ext["rejected"]:
                why = ext["rejected"][node]
                cells.append({"code": "Unschedulable", "kind": "reject", "symbol": "✗", "reasons": [why], "title": why})
                passed = False
            else:
                cells.append(_cell({"code": "Success"}))
        rows.append({"node": node, "cells": cells, "feasible": passed, "evaluated": True, "dropped": False})
    for node in screen.not_evaluated:
        rows.append({"node": node, "cells": [], "feasible": False, "evaluated": False, "dropped": False})
    feasible_count = sum(1 for r in rows if r["feasible"])
    columns = [{"name": p, "extender": False} for p in plugins] + [
        {"name": "extender " + str(x["call"].get("extender", "")), "extender": True} for x in extenders
    ]
    num_to_find = event.get("num_to_find")
    return {
        "event": event,
        "plugins": plugins,
        "columns": columns,
        "rows": rows,
        "feasible_count": feasible_count,
        "plugin_feasible_count": len(plugin_feasible),
        "extender_removed": len(plugin_feasible) - feasible_count,
        "dropped": [r["node"] for r in rows if r["dropped"]],
        "not_evaluated": screen.not_evaluated,
        "num_to_find": num_to_find,
        "start_index": event.get("start_index"),
        "nominated_only": event.get("nominated_only", False),
        "nominated_tried": screen.first("nominated_node_tried"),
        "legend": [{"kind": k, "symbol": sym, "text": text} for k, sym, text in FILTER_LEGEND],
        # What the volume and device reasons in this matrix mean (only those that occur).
        "notes": reason_notes.notes_for([r for row in rows for c in row["cells"] for r in c["reasons"]]
                                        + [r for p in screen.all("prefilter") for x in p.get("results") or []
                                           for r in x.get("reasons") or []]),
    }


def scores(screen: Screen) -> dict[str, Any] | None:
    """Nodes x Score plugins (raw, normalised, weighted), best total first, the chosen node and
    its tie set marked."""
    event = screen.first("scores")
    if event is None:
        return None
    table = score_table(event)
    totals = table.totals
    chosen = screen.first("selected") or {}
    ties = set(chosen.get("ties") or [])
    nodes = table.nodes
    position = {node: i for i, node in enumerate(nodes)}
    rows = []
    for node in sorted(nodes, key=lambda n: (-(totals.get(n) or 0), position[n])):
        cells = [table.cell(p, node) for p in table.plugins]
        rows.append(
            {
                "node": node,
                "cells": cells,
                "total": totals.get(node),
                "tie": node in ties,
                "chosen": node == chosen.get("node"),
            }
        )
    return {"plugins": table.plugins, "weights": table.weights, "rows": rows, "ties": len(ties)}


def selected(screen: Screen) -> dict[str, Any] | None:
    """The cycle's `selected` event, with how the run's version breaks a tie (`heap_pop`): after
    v1.30 the first pop of the score heap wins (not random); v1.30 samples among the tied nodes."""
    event = screen.first("selected")
    if event is None:
        return None
    return {**event, "heap_pop": gates_for(screen.run.kubernetes_version).node_score_heap_tie_break}


def extender_calls(screen: Screen) -> list[dict[str, Any]]:
    """HTTP extender calls of this cycle (filter, prioritize, preempt, bind) with their
    latency and what each changed, as the engine recorded them."""
    rows = []
    for e in screen.all("extender_call"):
        changed = e.get("changed") or {}
        verb = e.get("verb")
        if verb == "filter":
            summary = (
                ", ".join(
                    [f"removed {n}" for n in changed.get("removed", [])]
                    + [f"{n}: {r}" for n, r in (changed.get("failed") or {}).items()]
                    + [f"{n} (unresolvable): {r}" for n, r in (changed.get("failedAndUnresolvable") or {}).items()]
                )
                or "kept every node"
            )
        elif verb == "prioritize":
            summary = ", ".join(f"{n} +{w}" for n, w in (changed.get("weighted") or {}).items())
        elif verb == "preempt":
            summary = (
                ", ".join(
                    [f"dropped node {n}" for n in changed.get("removed_nodes", [])]
                    + [f"spared {', '.join(v)} on {n}" for n, v in (changed.get("removed_victims") or {}).items()]
                )
                or "kept every candidate"
            )
        else:
            summary = f"bound to {changed.get('node')}" if changed.get("node") else ""
        rows.append({**e, "summary": summary})
    return rows


def postfilters(screen: Screen) -> list[dict[str, Any]]:
    return screen.all("postfilter")


def binding(screen: Screen) -> list[dict[str, Any]]:
    """The binding cycle's steps; Reserve and PreBind carry a note on what they did with volumes
    and devices (from this frame's storage changes and claim allocations), and the storage
    changes themselves (PreBind's, then the provisioner's and PV controller's) are listed."""
    events = screen.frame_events
    pod = (cycle_started(screen) or {}).get("pod")
    storage = [e for e in events if e["type"] == "storage_change"
               and str(e.get("by", "")).startswith("VolumeBinding") and str(e.get("change", "")).endswith(f"pod {pod}")]
    claims = [e for e in events if e["type"] == "resource_claim" and e.get("by") == "DynamicResources"
              and e.get("pod") == pod]
    rows = []
    for e in events:
        # resource_claim: what DynamicResources' PreBind (or Unreserve) wrote to a claim
        if e["type"] not in ("assumed", "extension_point", "bound", "permit_wait", "forgotten", "resource_claim",
                             "storage_change"):
            continue
        note = ""
        if e["type"] == "extension_point" and e.get("code") == "Success" and e.get("pod") == pod:
            if e.get("point") == "Reserve":
                note = reason_notes.reserve_note(storage, claims)
            elif e.get("point") == "PreBind":
                note = reason_notes.prebind_note(storage, claims)
        rows.append({**e, "note": note} if note else e)
    return rows


def failed_message(screen: Screen) -> str:
    """The FailedScheduling event's message for this cycle's pod, if it failed."""
    pod = (cycle_started(screen) or {}).get("pod")
    for e in screen.frame_events:
        if e["type"] == "k8s_event" and e.get("reason") == "FailedScheduling" and e.get("object") == pod:
            return e.get("message", "")
    return ""
