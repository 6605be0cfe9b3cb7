"""The loader's "not simulated" warnings in words for the scenario page.

The loader reports each (kind, field) once with a count of the other objects that have it. A
cluster dump still gives a hundred such lines, mostly the same few fields (metadata.uid,
managedFields, status.conditions) on every kind; the page groups them by field, so the list
reads "metadata.managedFields: 30 Nodes, 4 PriorityClasses, ... (first: document 1, Node n1)".
The heading says the reason once: "Accepted but not simulated".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = ["not_simulated_lines", "NOT_SIMULATED_TAG"]

# The message tag that marks a flashed warning line (plain posts redirect before rendering).
NOT_SIMULATED_TAG = "not-simulated"

_LIST_ITEM = re.compile(r"^items\[\d+\]\.")
_INDEX = re.compile(r"\[\d+\]")


def _plural(count: int, noun: str) -> str:
    if count == 1:
        return f"1 {noun}"
    return f"{count} {noun}{'es' if noun.endswith('s') else 's'}"


def _where(warning: Any) -> str:
    obj = " ".join(x for x in (warning.kind, warning.name) if x)
    if warning.document is not None:
        return f"document {warning.document}" + (f", {obj}" if obj else "")
    return obj


def not_simulated_lines(warnings: Iterable[Any]) -> list[str]:
    """One line per field (list position and indices dropped), naming how many objects of each
    kind carry it and where the first one is, in the loader's order."""
    groups: dict[str, tuple[Any, dict[str, int]]] = {}
    for warning in warnings:
        field = _INDEX.sub("[]", _LIST_ITEM.sub("", warning.field or ""))
        first, kinds = groups.setdefault(field, (warning, {}))
        kind = warning.kind or "object"
        kinds[kind] = kinds.get(kind, 0) + 1 + warning.more
    lines = []
    for field, (first, kinds) in groups.items():
        counts = ", ".join(_plural(n, kind) for kind, n in kinds.items())
        where = _where(first)
        lines.append(f"{field or '(object)'}: {counts}" + (f" (first: {where})" if where else ""))
    return lines
