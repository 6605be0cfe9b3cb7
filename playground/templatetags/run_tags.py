"""Filters for the run page: seconds, and one line of text per engine event (autoescaped)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from html import escape  # the plain function: Django's lazy-aware wrapper costs more per call
from typing import Any

from django import template
from django.utils.formats import localize
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe

from playground.presenters.runs.reason_notes import notes_for
from playground.templatetags.text_tags import plural
from scheduler_core.events.compact import feasible_nodes, num_not_evaluated, score_totals

register = template.Library()


@register.filter
def secs(value: Any) -> str:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return "—"
    return f"{number:g}s"


@register.filter
def pod_name(key: Any) -> str:
    text = str(key or "")
    return text.split("/", 1)[1] if text.startswith("default/") else text


@register.filter
def object_namespace(key: Any) -> str:
    """An event's involved object "namespace/name": its namespace (kubectl's NAMESPACE column)."""
    text = str(key or "")
    return text.split("/", 1)[0] if "/" in text else ""


@register.filter
def object_name(key: Any) -> str:
    """An event's involved object "namespace/name": its name (kubectl's OBJECT reads pod/<name>)."""
    return str(key or "").rsplit("/", 1)[-1]


def _reasons(event: dict[str, Any]) -> str:
    reasons = event.get("reasons") or []
    return ("; ".join(str(r) for r in reasons)) if reasons else ""


def _hint_list(hints: Any) -> str:
    out = []
    for h in hints or []:
        note = " (no hint function)" if h.get("default") else (" (hint error)" if h.get("error") else "")
        out.append(f"{h.get('plugin')}: {h.get('hint')}{note}")
    return ", ".join(out)


@register.filter
def queue_hints(event: dict[str, Any]) -> str:
    """Which plugins' queueing hints moved a pod, and the queue's resulting strategy
    ("NodeResourcesFit: Queue → QueueAfterBackoff"); "" for a move no hint decided."""
    if not event.get("strategy"):
        return ""
    asked = _hint_list(event.get("hints"))
    return f"hints {asked} → {event['strategy']}" if asked else str(event["strategy"])


SUMMARY_LIMIT = 300  # characters of one log line: a whole cluster's worth of fields is not a line


@register.filter
def event_summary(event: dict[str, Any]) -> str:
    """A plain-text line for the event log (the template escapes it), at most SUMMARY_LIMIT long."""
    text = _summary(event)
    return text if len(text) <= SUMMARY_LIMIT else text[: SUMMARY_LIMIT - 1] + "…"


def _summary(event: dict[str, Any]) -> str:
    t = event.get("type")
    pod = event.get("pod", "")
    if t == "queue_move":
        why = event.get("event") or event.get("reason") or ""
        hints = queue_hints(event)
        return f"{pod}: {event.get('from')} → {event.get('to')} ({why})" + (f" — {hints}" if hints else "")
    if t == "start_summary":  # a big start's queue entries, stored as one event (services/runs/start_summary.py)
        groups = "; ".join(
            f"{plural(int(g.get('count') or 0), 'pod')} → {g.get('to')} ({g.get('reason')}), e.g. "
            + ", ".join(str(p) for p in (g.get("pods") or [])[:2])
            for g in event.get("moves") or []
        )
        return (f"{plural(int(event.get('count') or 0), 'pod')} entered the scheduling queue at the start "
                f"(events {event.get('first_seq')}–{event.get('last_seq')}, one line here): {groups}")
    if t == "queue_hints_skipped":
        shown = ", ".join(f"{p.get('pod')} ({_hint_list(p.get('hints'))})" for p in event.get("pods") or [])
        more = int(event.get("count") or 0) - len(event.get("pods") or [])
        return (f"{event.get('event')}: every hint asked said QueueSkip, {plural(int(event.get('count') or 0), 'pod')} "
                f"stay unschedulable: {shown}" + (f" and {more} more" if more > 0 else ""))
    if t == "cycle_started":
        return f"cycle {event.get('cycle')}: {pod} (attempt {event.get('attempts')})"
    if t == "prefilter" and "results" in event:
        ran = [f"{r.get('plugin')} {r.get('code')}" + (f" — {_reasons(r)}" if _reasons(r) else "")
               for r in event["results"] if r.get("code") != "Skip"]
        skipped = sum(1 for r in event["results"] if r.get("code") == "Skip")
        return f"{pod}: PreFilter " + ", ".join(ran) + (f"; {skipped} skipped" if skipped else "")
    if t in ("prefilter", "postfilter"):
        extra = _reasons(event)
        return f"{pod}: {event.get('plugin')} {event.get('code')}" + (f" — {extra}" if extra else "")
    if t == "node_list":
        return f"{pod}: Filter walks a list of {plural(len(event.get('nodes') or []), 'node')} (written when it changes)"
    if t == "filter_verdicts":
        return (
            f"{pod}: {len(feasible_nodes(event))} feasible of {len(event.get('nodes') or [])} evaluated, "
            f"{num_not_evaluated(event)} not evaluated"
        )
    if t == "scores":
        return f"{pod}: scored {plural(len(score_totals(event)), 'node')}"
    if t == "selected":
        if event.get("score") is None:  # one feasible node: upstream uses it without scoring
            return f"{pod} → {event.get('node')} (the only feasible node: not scored)"
        return f"{pod} → {event.get('node')} (score {event.get('score')}, ties {len(event.get('ties') or [])})"
    if t == "run_started":
        profiles = ", ".join(event.get("profiles") or {})
        return (f"seed {event.get('seed')}, {plural(int(event.get('nodes') or 0), 'node')}, "
                f"{plural(int(event.get('pods') or 0), 'pod')}" + (f", profiles {profiles}" if profiles else ""))
    if t == "extension_point":
        extra = _reasons(event)
        return f"{pod}: {event.get('point')} {event.get('plugin') or ''} {event.get('code')}" + (
            f" — {extra}" if extra else ""
        )
    if t == "preemption":
        chosen = event.get("chosen") or "no node"
        return f"{pod}: {len(event.get('candidates') or [])} candidates, chose {chosen} — {_plain(event.get('why'))}"
    if t == "k8s_event":
        return f"{event.get('eventType')} {event.get('reason')} {event.get('object')}: {event.get('message')}"
    if t == "node_lifecycle":
        return f"node {event.get('node')}: {event.get('change')} (by {event.get('by')})"
    if t == "forgotten":
        return f"{pod}: the scheduler cache forgot its assumption on {event.get('node')}" + (
            f" (binding failed: {event.get('why')})" if event.get("why") else "")
    if t == "assumed":
        return f"{pod}: assumed onto {event.get('node')} in the scheduler cache"
    if t == "clock":
        return f"clock {event.get('from')}s → {event.get('to')}s"
    if t == "cluster_action":
        return f"{event.get('action')} {_plain(event.get('params'))}".strip()
    if t == "drain":  # kubectl drain's own line (scheduler_core/actions/drain_node.py)
        return f"kubectl drain {event.get('node')}: {event.get('line')}"
    if t == "timeline_action_failed":
        return (f"Timeline {event.get('action')} of {str(event.get('kind') or '').lower()} {event.get('object')} "
                f"skipped: the API server answered {event.get('reason')}: {event.get('message')}")
    skip = {"seq", "time", "type"}
    return ", ".join(f"{k}={_plain(v)}" for k, v in event.items() if k not in skip and not _empty(v))


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _plain(value: Any) -> str:
    """A value as a learner reads it, not as Python prints it: no None, no quotes or brackets of a
    dict or list repr; yes/no for booleans; nested values in parentheses."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        parts = [f"{k} {_nested(v)}" for k, v in value.items() if not _empty(v)]
        return ", ".join(parts) if parts else "none"
    if isinstance(value, (list, tuple)):
        return ", ".join(_nested(v) for v in value) if value else "none"
    return str(value)


def _nested(value: Any) -> str:
    text = _plain(value)
    return f"({text})" if isinstance(value, (dict, list, tuple)) and value else text


register.filter("plural", plural)


def _joined(items: Iterable[Any], one: Callable[[Any], str]) -> str:
    """`one(item)` for each item, joined: safe because each `one` escapes what it prints. The
    run page's grids are built so, not in template loops (per cell, a loop costs several times
    more)."""
    return mark_safe("".join(map(one, items)))  # noqa: S308 - every part is built from escaped values


def _heat_cell(c: dict[str, Any]) -> str:
    cls = f" {escape(c['cls'])}" if c["cls"] else ""
    return f'<i class="u{int(c["u"])}{cls}" title="{escape(c["name"])}"></i>'


@register.filter
def heatmap_cells(cells: Any) -> str:
    """The heatmap's cells (node_search.heatmap), one `<i>` per node. Built here, not in a
    template loop: at 5,000 nodes the loop was most of the cluster panel's render time."""
    return _joined(cells, _heat_cell)


def _html(value: Any) -> str:
    """`{{ value }}` as a template prints it (localised, then escaped), without the template
    machinery for the common cases: text and whole numbers."""
    kind = type(value)
    if kind is str:
        return escape(value)
    if kind is int:
        return str(value)
    return conditional_escape(localize(value))


# The filter matrix and the score table are a cell per node and plugin: a few hundred cells at 40
# nodes. In a template loop they were most of a step's live-panel render time, which every page
# watching the run waits for; built here, they print the same HTML in about a fifth of the time.


def _filter_cell(v: dict[str, Any]) -> str:
    kind = escape(v["kind"])
    reasons = " " + "; ".join(_html(r) for r in v["reasons"]) if v["kind"] in ("reject", "error") else ""
    code = escape(str(v["code"]).replace(" ", ""))
    return (
        f'<td class="cell-{kind} code-{code}" title="{_html(v["title"])}" data-kind="{kind}">'
        f'{_html(v["symbol"])}{reasons}</td>'
    )


@register.filter
def filter_cells(cells: Any) -> str:
    """One filter-matrix row's cells (cycle.filter_matrix): the legend's symbol, the verdict's
    code as a class, its reasons after a rejection or an error."""
    return _joined(cells, _filter_cell)


def _score_cell(c: dict[str, Any] | None) -> str:
    if not c:
        return "<td></td>"
    return f'<td>{_html(c["raw"])} → {_html(c["normalized"])} → <strong>{_html(c["weighted"])}</strong></td>'


@register.filter
def score_cells(cells: Any) -> str:
    """One score-table row's cells (cycle.scores): raw → normalised → weighted per plugin."""
    return _joined(cells, _score_cell)


_LEAVING_TITLE = "deleted in the API; the scheduler still counts it until the Delete event reaches its informer"


def _pod_chip(p: dict[str, Any]) -> str:
    classes = "leaving" if p["deleting"] else "bound"
    if p["assumed"]:
        classes += " assumed"
    if p["moved"]:
        classes += " moved from-" + _html(p["moved"])
    title = f' title="{_LEAVING_TITLE}"' if p["deleting"] else ""
    small = " <small>deleting</small>" if p["deleting"] else ""
    return f'<li class="pod-chip {classes}" data-pod="{_html(p["key"])}"{title}>{_html(pod_name(p["key"]))}{small}</li>'


@register.filter
def pod_chips(items: Any) -> str:
    """A node card's bound pods (cluster.decorate's pod_items): one chip per pod, marked when it
    is leaving, assumed or has just moved here."""
    return _joined(items, _pod_chip)


def _nominated_chip(p: dict[str, Any]) -> str:
    moved = " moved" if p["moved"] else ""
    return (
        f'<li class="pod-chip ghost{moved}" data-pod="{_html(p["key"])}" title="nominated: preemption made room'
        f' here">{_html(pod_name(p["key"]))} <small>nominated</small></li>'
    )


@register.filter
def nominated_chips(items: Any) -> str:
    """A node card's nominated pods (cluster.decorate's nominated_items): ghost chips."""
    return _joined(items, _nominated_chip)


@register.filter
def reason_notes(message: Any) -> list[dict[str, str]]:
    """Plain-language notes for the volume and device reasons in a pod's why-pending message
    (or a list of reasons)."""
    return notes_for(message if isinstance(message, (str, list)) else None)
