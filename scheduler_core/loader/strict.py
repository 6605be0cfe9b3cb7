"""Strict decoding, as `kubectl apply --validate=strict` does it: every field must be one the
kind has; a misspelling is an error with a "did you mean"; real fields the playground does not
model are accepted and reported (once per kind and field) as not simulated."""

from __future__ import annotations

import difflib
import re
from typing import Any

from scheduler_core.api.errors import LoadWarning, ScenarioError
from scheduler_core.loader.reader import Location, join_path
from scheduler_core.loader.schema import KIND_SCHEMAS, NAMESPACED_KINDS, NOT_SIMULATED
from scheduler_core.loader.yaml_input import DuplicateKey

__all__ = ["NotSimulated", "check_fields", "check_object", "object_identity",
           "raise_duplicate_key"]

_INDEX_RE = re.compile(r"\[\d+\]")


class NotSimulated:
    """Collects "not simulated" warnings, one per (kind, field with indices dropped)."""

    def __init__(self) -> None:
        self._first: dict[tuple[str | None, str], LoadWarning] = {}
        self._objects: dict[tuple[str | None, str], set[tuple[int | None, str | None]]] = {}

    def add(self, loc: Location, field: str) -> None:
        key = (loc.kind, _INDEX_RE.sub("[]", field))
        first = self._first.get(key)
        who = (loc.index, loc.name)
        if first is None:
            self._first[key] = LoadWarning(
                "not simulated: accepted and ignored", file=loc.file, document=loc.index,
                kind=loc.kind, name=loc.name, field=field)
            self._objects[key] = {who}
            return
        seen = self._objects[key]
        if who not in seen:
            seen.add(who)
            first.more += 1

    def warnings(self) -> list[LoadWarning]:
        return list(self._first.values())


def _unknown(loc: Location, path: str, key: Any, known: dict[str, Any]) -> ScenarioError:
    name = key if isinstance(key, str) else repr(key)
    reason = f'unknown field "{name}"'
    close = difflib.get_close_matches(str(key), list(known), n=1, cutoff=0.7)
    if close:
        reason += f'; did you mean "{close[0]}"?'
    return loc.error(join_path(path, str(key)), reason)


def _empty(value: Any) -> bool:
    return value is None or value == {} or value == [] or value == ""


def check_fields(obj: Any, spec: Any, path: str, loc: Location, notes: NotSimulated) -> None:
    """Check `obj` against `spec` (see schema.py). Values of the wrong type are left to the
    parsers, which report them with the expected type."""
    if isinstance(spec, dict):
        if not isinstance(obj, dict):
            return
        for key, value in obj.items():
            sub = spec.get(key, spec) if isinstance(key, str) else spec
            if sub is spec:
                raise _unknown(loc, path, key, spec)
            if sub is None:
                continue
            if sub is NOT_SIMULATED:
                if not _empty(value):
                    notes.add(loc, join_path(path, key))
                continue
            check_fields(value, sub, join_path(path, key), loc, notes)
    elif isinstance(spec, list) and isinstance(obj, list):
        for i, item in enumerate(obj):
            check_fields(item, spec[0], f"{path}[{i}]", loc, notes)


def object_identity(obj: dict[str, Any], kind: str) -> str | None:
    """"namespace/name" or "name" as far as the raw object says, for locating errors."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str):
        return None
    if kind in NAMESPACED_KINDS:
        ns = meta.get("namespace")
        return f"{ns if isinstance(ns, str) and ns else 'default'}/{meta['name']}"
    return meta["name"]


def check_object(obj: dict[str, Any], kind: str, loc: Location, notes: NotSimulated,
                 prefix: str = "") -> None:
    """Check one object of a known kind (no-op for kinds without a schema)."""
    spec = KIND_SCHEMAS.get(kind)
    if spec is not None:
        check_fields(obj, spec, prefix, loc, notes)


def _find_path(root: Any, target: Any) -> str | None:
    """The field path of the container `target` inside `root` (identity), iteratively."""
    stack: list[tuple[Any, str]] = [(root, "")]
    seen: set[int] = set()
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            stack.extend((v, join_path(path, str(k))) for k, v in node.items()
                         if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(node)
                         if isinstance(v, (dict, list)))
    return None


def raise_duplicate_key(docs: list[Any], dup: DuplicateKey, source: str) -> None:
    """Refuse a duplicate mapping key, naming document, object and field like any error."""
    reason = f'duplicate key "{dup.key}": a field may be given only once'
    for i, doc in enumerate(docs, start=1):
        path = _find_path(doc, dup.mapping)
        if path is None:
            continue
        obj, kind = doc, None
        m = re.match(r"items\[(\d+)\]", path)
        if m and isinstance(doc, dict) and isinstance(doc.get("items"), list):
            obj = doc["items"][int(m.group(1))]
        if isinstance(obj, dict) and isinstance(obj.get("kind"), str):
            kind = obj["kind"]
        name = object_identity(obj, kind) if isinstance(obj, dict) and kind else None
        raise ScenarioError(reason, file=source, document=i, kind=kind, name=name,
                            field=join_path(path, str(dup.key)), line=dup.line)
    raise ScenarioError(reason, file=source, line=dup.line)
