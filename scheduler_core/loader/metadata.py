"""ObjectMeta (name, namespace, labels, annotations), and the stable UID (`api/uid.py`) each object
gets from it."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from scheduler_core.api.types import OwnerReference
from scheduler_core.api.uid import stable_uid
from scheduler_core.api.validation import dns1123_label_error, dns1123_subdomain_error
from scheduler_core.loader.memo import ParseMemo, content_key
from scheduler_core.loader.reader import FieldReader

__all__ = ["parse_metadata", "stable_uid"]

# Label and annotation maps handed to pods, by content (memo.py): the replicas of a template
# repeat them, and one dict per content is what a checkpoint then writes once and a restore
# makes once. Shared by those pods, so never changed in place (a pod's labels change by a new
# Pod with a new map).
_SHARED_MAPS: ParseMemo[dict[str, str]] = ParseMemo()


def parse_metadata(r: FieldReader, obj: dict[str, Any], *, namespaced: bool,
              name_check: Callable[[str], str | None] = dns1123_subdomain_error,
              shared: bool = False) -> tuple[str, str, dict[str, str], dict[str, str]]:
    """name, namespace, labels, annotations. `shared` (pods): the label and annotation maps are
    those of an earlier object with the same ones, not to be changed in place, and the namespace
    is the interned string (each replica's YAML has its own copy of it); otherwise new dicts
    the caller may change."""
    meta = r.mapping(obj.get("metadata"), "metadata", required=True)
    name = r.string(meta.get("name"), "metadata.name")
    if not name:
        if meta.get("generateName"):
            raise r.err("metadata.name", "Required value: generateName is not supported; give "
                                         "every object a name")
        raise r.err("metadata.name", "Required value: name or generateName is required")
    namespace = ""
    if namespaced:
        namespace = r.string(meta.get("namespace"), "metadata.namespace") or "default"
        err = dns1123_label_error(namespace)
        if err:
            raise r.err("metadata.namespace", f'Invalid value: "{namespace}": {err}')
        r.doc.name = f"{namespace}/{name}"
    else:
        r.doc.name = name
    err = name_check(name)
    if err:
        raise r.err("metadata.name", f'Invalid value: "{name}": {err}')
    if shared:
        return (name, sys.intern(namespace), _shared_map(r, meta.get("labels"), "labels"),
                _shared_map(r, meta.get("annotations"), "annotations"))
    labels = r.labels(meta.get("labels"), "metadata.labels")
    annotations = r.string_map(meta.get("annotations"), "metadata.annotations")
    return name, namespace, labels, annotations


def _shared_map(r: FieldReader, raw: Any, field: str) -> dict[str, str]:
    """metadata.labels / metadata.annotations as one dict per content (see `_SHARED_MAPS`).
    The key is the raw items in order, with the field: only a map of strings (and nulls, read
    as "") is remembered, and no value of another type equals a string or None, so an equal
    key is the same map (as `FieldReader.labels` reasons)."""
    try:
        key = (field, tuple(raw.items())) if isinstance(raw, dict) else (field, raw)
        hit = _SHARED_MAPS.get(key)
    except TypeError:  # an unhashable value: the full check reports it
        key, hit = None, None
    if hit is not None:
        return hit
    path = f"metadata.{field}"
    parsed = r.labels(raw, path) if field == "labels" else r.string_map(raw, path)
    if key is not None:
        _SHARED_MAPS.put(key, parsed)
    return parsed



# Owner reference lists parsed already, by content (memo.py): every replica of a workload names
# the same owner. The parsed list is shared by those objects and never changed in place.
_OWNER_REFERENCES: ParseMemo[list[OwnerReference]] = ParseMemo()


def parse_owner_references(r: FieldReader, meta: dict[str, Any]) -> list[OwnerReference]:
    """metadata.ownerReferences: which object controls this one (a pod's ReplicaSet/StatefulSet/RC,
    whose selector the system-default topology spreading follows; a ResourceClaim's pod).
    Objects with the same references (the replicas of one workload) share one list."""
    raw = meta.get("ownerReferences")
    if not raw or not isinstance(raw, list):
        return _parse_owner_references(r, meta)
    key = content_key(raw)
    hit = _OWNER_REFERENCES.get(key) if key is not None else None
    if hit is not None:
        return hit
    refs = _parse_owner_references(r, meta)
    if key is not None:
        _OWNER_REFERENCES.put(key, refs)
    return refs


def _parse_owner_references(r: FieldReader, meta: dict[str, Any]) -> list[OwnerReference]:
    out = []
    for i, ref in enumerate(r.seq(meta.get("ownerReferences"), "metadata.ownerReferences")):
        p = f"metadata.ownerReferences[{i}]"
        m = r.mapping(ref, p, required=True)
        kind = r.string(m.get("kind"), f"{p}.kind")
        name = r.string(m.get("name"), f"{p}.name")
        if not kind or not name:
            raise r.err(p, "Required value: kind and name")
        out.append(OwnerReference(
            kind=kind, name=name, api_version=r.string(m.get("apiVersion"), f"{p}.apiVersion") or "v1",
            uid=r.string(m.get("uid"), f"{p}.uid"),
            controller=r.boolean(m.get("controller"), f"{p}.controller")))
    return out
