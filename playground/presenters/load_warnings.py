"""The loader's "not simulated" warnings in words for the scenario page.

The loader reports each (kind, field) once with a count of the other objects that have it. A
cluster dump still gives a hundred such lines, mostly the same few fields (metadata.uid,
managedFields, status.conditions) on every kind; the page groups them by field, so the list
reads "metadata.managedFields: 30 Nodes, 4 PriorityClasses, ... (first: document 1, Node n1)".
The heading says the reason once: "Accepted but not simulated".

References to objects the scenario lacks (a DeviceClass a claim names) are warnings of another
category: the API server accepts them and the scheduler reacts at run time; `reference_lines`
lists them one by one, each with what the scheduler will do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = ["not_simulated_lines", "reference_lines", "newer_lines", "NOT_SIMULATED_TAG", "REFERENCE_TAG",
           "NEWER_TAG"]

# The message tag that marks a flashed warning line (plain posts redirect before rendering).
NOT_SIMULATED_TAG = "not-simulated"
# The tag of a flashed reference warning: an object named that the scenario lacks, accepted as
# the API server accepts it (the line says what the scheduler will do about it).
REFERENCE_TAG = "missing-reference"
REFERENCE = "reference"  # LoadWarning.category of such a warning (loader/resource_build.py)
# A kind or field a Kubernetes v1.36/v1.37 cluster serves, read by the v1.35.4 loader: each line
# names the release that introduced it and what the simulated version does instead
# (loader/newer_kinds.py). Flashed with this tag, listed apart.
NEWER_TAG = "newer-version"
NEWER = "newer-version"  # LoadWarning.category of such a note

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
        if getattr(warning, "category", None) in (REFERENCE, NEWER):
            continue  # listed apart: reference_lines, newer_lines
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


def reference_lines(warnings: Iterable[Any]) -> list[str]:
    """One line per reference to an object the scenario lacks (not grouped: each names its own
    missing object), where it is and what the scheduler will do, in the loader's order."""
    lines = []
    for w in warnings:
        if getattr(w, "category", None) != REFERENCE:
            continue
        line = f"{_where(w)}: {w.field}: {w.reason}" if w.field else f"{_where(w)}: {w.reason}"
        if w.more:
            line += f" (also in {_plural(w.more, 'more ' + (w.kind or 'object'))})"
        lines.append(line)
    return lines


def newer_lines(warnings: Iterable[Any]) -> list[str]:
    """One line per newer kind or field (from a v1.36/v1.37 cluster), where it first is, which
    release introduced it and what the simulated v1.35.4 does instead, in the loader's order."""
    lines = []
    for w in warnings:
        if getattr(w, "category", None) != NEWER:
            continue
        line = f"{_where(w)}: {w.field}: {w.reason}" if w.field else f"{_where(w)}: {w.reason}"
        if w.more:
            line += f" (also in {_plural(w.more, 'more ' + (w.kind or 'object'))})"
        lines.append(line)
    return lines
