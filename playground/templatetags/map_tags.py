"""Filters that draw the cluster map's node boxes, compact node cells and pod chips (presenters/runs/cluster_map.py).

Built in Python rather than template loops: a map holds hundreds of boxes and thousands of
chips, and a template include per chip costs several times more. Every value printed is escaped.
"""

from __future__ import annotations

from html import escape
from typing import Any

from django import template
from django.utils.safestring import mark_safe
from django.utils.text import slugify

from playground.presenters.runs import cluster_map_delta

register = template.Library()

_CHIP_MARKS = ("victim", "deleting", "assumed", "evicting")
_MARK_WORDS = {"notready": "NotReady", "preempt": "preemption"}  # a node mark's word, when not its class


def _chip(c: dict[str, Any]) -> str:
    classes = ["mchip", f"own-{c['colour']}"]
    classes += [mark for mark in _CHIP_MARKS if c.get(mark)]
    if c["priority"] > 0:
        classes.append("prio")
    if c.get("ghost"):
        # A nominated pod is also in a queue, where its own chip (and transition name) is.
        classes.append("ghost")
        hook = f'data-ghost="{escape(c["key"])}" style="view-transition-name: g{c["vt"][1:]}"'
    elif c.get("leaving"):
        classes.append("leaving")
        hook = f'data-left="{escape(c["key"])}" style="view-transition-name: {c["vt"]}"'
    else:
        hook = f'data-pod="{escape(c["key"])}" style="view-transition-name: {c["vt"]}"'
    badge = '<b class="mprio" aria-hidden="true">▲</b>' if c["priority"] > 0 else ""
    return (
        f'<li class="{" ".join(classes)}" {hook} title="{escape(c["title"])}">'
        f"{badge}<span>{escape(c['name'])}</span></li>"
    )


@register.filter
def map_chips(chips: Any) -> str:
    """A row of pod chips (a queue's, or a node's bound pods)."""
    return mark_safe("".join(_chip(c) for c in chips or ()))  # noqa: S308 - built from escaped values


def _node(n: dict[str, Any]) -> str:
    classes = ["mnode"] + [kind for kind, _ in n["marks"]]
    if n["rejected"]:
        classes.append("rejected")
    if n["heat"]:
        classes.append(f"heat-{n['heat']}")
    if n["chosen"]:
        classes.append("chosen")
    name = escape(n["name"])
    marks = "".join(
        f'<span class="mmark {kind}" title="{escape(text)}">{_MARK_WORDS.get(kind, kind)}</span>' for kind, text in n["marks"]
    )
    if n["rejected"]:
        marks += f'<span class="mmark out" title="filtered out by {escape(", ".join(n["rejected"]))}">✕ {escape(n["rejected"][0])}</span>'
    if n["chosen"]:
        marks += '<span class="mmark pick">chosen</span>'
    if n["volumes"]:
        count = len(n["volumes"])
        marks += (f'<span class="mmark vol" title="volumes: {escape(", ".join(n["volumes"]))}">'
                  f'{count} volume{"s" if count != 1 else ""}</span>')
    bars = "".join(
        f'<span class="mbar {b["name"]}" title="{b["name"]} {escape(b["text"])}"><i style="width: {b["pct"]}%"></i>'
        f'<small>{b["name"][:3]} {escape(b["text"])}</small></span>'
        for b in n["bars"]
    )
    pods = map_chips(n["chips"]) + map_chips(n["gone"]) + map_chips(n["ghosts"])
    if n["more"]:
        pods += f'<li class="map-more">+{n["more"]} more</li>'
    return (
        f'<div class="{" ".join(classes)}" data-node="{name}" tabindex="0" aria-label="{escape(n["label"])}"'
        f' title="{escape(n["label"])}" style="view-transition-name: n{n["vt"]}">'
        f'<div class="mhead"><a class="mname" href="#node-{escape(slugify(n["name"]))}" data-open-node="{name}">{name}</a>{marks}</div>'
        f'<div class="mbars">{bars}</div><ul class="mpods">{pods}</ul></div>'
    )


@register.filter
def map_nodes(boxes: Any) -> str:
    """Node boxes (cluster_map's `_node_box`), each with its bars, marks and chips."""
    return mark_safe("".join(_node(n) for n in boxes or ()))  # noqa: S308 - built from escaped values


def _cell(c: dict[str, Any]) -> str:
    """A compact node cell: `c<cpu decile> m<memory decile>` and its one-letter marks as
    classes; inside, one `<i>` per bound pod (`o<owner colour>`, `p` when its priority is above
    0), or the pod count when the map draws no chips."""
    classes = f"c{c['cpu']} m{c['memory']}" + "".join(f" {letter}" for letter in c["marks"])
    if c["chips"] is None:
        inside = str(c["count"]) if c["count"] else ""
    else:
        inside = "".join(
            f'<i class="o{colour}{" p" if prio else ""}" data-pod="{escape(key)}"></i>' for key, colour, prio in c["chips"]
        )
    return f'<b class="{classes}" data-node="{escape(c["name"])}">{inside}</b>'


@register.filter
def map_cells(cells: Any) -> str:
    """Compact node cells (cluster_map's `_cell`), for a map of AGGREGATE_AT nodes or more."""
    return mark_safe("".join(_cell(c) for c in cells or ()))  # noqa: S308 - built from escaped values


@register.simple_tag
def map_delta(screen: Any) -> dict[str, Any] | None:
    """This step's change to a big map for a live update (presenters/runs/cluster_map_delta.py)."""
    return cluster_map_delta.map_delta(screen)
