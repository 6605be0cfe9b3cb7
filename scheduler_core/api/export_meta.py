"""An object's metadata as a manifest writes it: shared by every kind's export.

Its own module so that the per-kind exporters (storage_export, export_resource) and export.py,
which imports them, can all use it without an import cycle.
"""

from __future__ import annotations

from typing import Any


def object_meta(name: str, namespace: str | None = None, labels: dict[str, str] | None = None,
                annotations: dict[str, str] | None = None) -> dict[str, Any]:
    """metadata: the name, then the namespace (None: a cluster-scoped kind), labels and
    annotations when there are any."""
    m: dict[str, Any] = {"name": name}
    if namespace is not None:
        m["namespace"] = namespace
    if labels:
        m["labels"] = dict(labels)
    if annotations:
        m["annotations"] = dict(annotations)
    return m
