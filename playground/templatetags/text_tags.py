"""Filters for plain English on every page: counts with the right plural."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()

_IRREGULAR = {"is": "are", "was": "were", "has": "have"}


@register.filter
def plural(count: Any, noun: str) -> str:
    """`{{ n|plural:"node" }}` → "1 node", "2 nodes" (the last word takes the plural)."""
    try:
        number = len(count) if isinstance(count, (list, tuple, set, dict)) else int(count)
    except (TypeError, ValueError):
        return f"{count} {noun}"
    if number == 1:
        return f"1 {noun}"
    head, _, last = noun.rpartition(" ")
    word = _IRREGULAR.get(last) or (last + "es" if last.endswith(("s", "x", "ch", "sh")) else last + "s")
    return f"{number} {head + ' ' if head else ''}{word}"
