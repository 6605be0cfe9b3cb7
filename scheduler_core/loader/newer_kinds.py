"""Objects and fields from Kubernetes v1.36 and v1.37 clusters, read by the v1.35.4 loader.

A dump of a newer cluster holds kinds at apiVersions v1.35.4 never served (a
scheduling.k8s.io/v1beta1 Workload, PodGroups, a resource.k8s.io/v1 DeviceTaintRule) and fields
it never had (a pod's spec.schedulingGroup). Refusing them as "unsupported kind" would refuse a
real cluster, so before the strict checks this pass:

* reads an object under the v1.35.4 apiVersion with the same fields and meaning, when there is
  one (`NewerKind.simulated_as`), and says so;
* otherwise leaves the object out of the run, and says which release introduced it and what
  v1.35.4 does instead;
* removes newer fields from the objects v1.35.4 reads, saying the same.

Each note is a located `LoadWarning` of category "newer-version", once per (kind, apiVersion or
field) with a count of the other objects, like the "not simulated" ones. Fields v1.35.4 reads too
but whose gate later went GA (`CONTEXT_FIELDS`) are noted only when the scenario holds something
newer, so a v1.35 manifest loads exactly as before. The facts are in
`scheduler_core.api.newer_versions`. The caller's documents are never changed: changed objects
are copies.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.errors import LoadWarning
from scheduler_core.api.newer_versions import CONTEXT_FIELDS, NEWER_FIELDS, NEWER_KINDS, NewerField, NewerKind

__all__ = ["NEWER_CATEGORY", "reduce_newer", "may_hold_newer", "kinds_and_fields"]

NEWER_CATEGORY = "newer-version"  # LoadWarning.category of these notes

# Looked up once per object of a dump that may hold a million: by key, paths split once.
_KINDS: dict[tuple[str, str], NewerKind] = {(k.kind, k.api_version): k for k in NEWER_KINDS}


def _by_kind(fields: tuple[NewerField, ...]) -> dict[str, list[tuple[NewerField, list[str]]]]:
    out: dict[str, list[tuple[NewerField, list[str]]]] = {}
    for f in fields:
        out.setdefault(f.kind, []).append((f, f.path.split(".")))
    return out


_FIELDS = _by_kind(NEWER_FIELDS)
_CONTEXT = _by_kind(CONTEXT_FIELDS)


def _needles() -> tuple[str, ...]:
    """One word per newer kind and newer field that any object needing this pass must hold as a
    key or value: a newer kind's name, a newer field's last key. Without any of them (and with
    no escapes, below) the pass would find nothing. Each is searched once, and a word that holds
    another one already searched ("CompositePodGroup" holds "PodGroup") is left out."""
    words = {k.kind for k in NEWER_KINDS} | {f.path.split(".")[-1].removesuffix("[]")
                                             for f in NEWER_FIELDS}
    return tuple(sorted(w for w in words if not any(o != w and o in w for o in words)))


_NEEDLES = _needles()


def may_hold_newer(text: str) -> bool:
    """Whether YAML `text` can decode to an object `reduce_newer` changes or notes.

    A big cluster's text is scanned in C for a few words (tens of milliseconds) rather than
    every decoded object walked in Python (a few tenths of a second for 150,000 pods). Why a
    word's absence is proof: a key or value equal to it is in the text as written unless an
    escape spells it (a double-quoted "\\u0065"), hence any backslash answers yes; a
    scalar folded over lines gains a space, which none of the words has; anchors, aliases,
    merge keys and tags only repeat or label text that is itself in the file. Comments may
    answer yes wrongly, which costs only the walk.
    """
    return "\\" in text or any(word in text for word in _NEEDLES)


class _Notes:
    """One note per key, at its first occurrence, counting the other objects that share it."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.by_key: dict[tuple[str, str], LoadWarning] = {}
        self.dropped: list[tuple[str, str, str]] = []  # (kind, "ns/name", reason)

    def add(self, key: tuple[str, str], doc: int, obj: dict[str, Any], field: str | None,
            reason: str) -> None:
        first = self.by_key.get(key)
        if first is not None:
            first.more += 1
            return
        self.by_key[key] = LoadWarning(reason, file=self.source, document=doc,
                                       kind=str(obj.get("kind")), name=_name(obj), field=field,
                                       category=NEWER_CATEGORY)


def _name(obj: dict[str, Any]) -> str | None:
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str):
        return None
    ns = meta.get("namespace")
    return f"{ns}/{meta['name']}" if isinstance(ns, str) and ns else meta["name"]


def _present(obj: Any, parts: list[str]) -> bool:
    """Whether the dotted path (a "[]" part: every list item) holds a non-empty value."""
    if not parts:
        return obj not in (None, {}, [], "")
    head, rest = parts[0], parts[1:]
    if head.endswith("[]"):
        items = obj.get(head[:-2]) if isinstance(obj, dict) else None
        return isinstance(items, list) and any(_present(it, rest) for it in items)
    return isinstance(obj, dict) and head in obj and _present(obj[head], rest)


def _without(obj: Any, parts: list[str]) -> Any:
    """A copy of `obj` with the path removed, copying only what lies along it."""
    if not isinstance(obj, dict):
        return obj
    head, rest = parts[0], parts[1:]
    out = dict(obj)
    if head.endswith("[]"):
        items = obj.get(head[:-2])
        if isinstance(items, list):
            out[head[:-2]] = [_without(it, rest) for it in items]
        return out
    if not rest:
        out.pop(head, None)
    elif head in out:
        out[head] = _without(out[head], rest)
    return out


def _note(entry: NewerField) -> str:
    return f"introduced in Kubernetes {entry.release} ({entry.source}); {entry.instead}"


def _context_note(entry: NewerField) -> str:
    return f"changed by Kubernetes {entry.release} ({entry.source}); {entry.instead}"


def _reduce(obj: Any, doc: int, prefix: str, notes: _Notes,
            context: list[tuple[NewerField, int, str, dict[str, Any]]]) -> tuple[Any, bool]:
    """(the object as v1.35.4 reads it, or None to leave it out; whether it was newer).
    `prefix` locates a List item ("items[3].") in its document."""
    if not isinstance(obj, dict):
        return obj, False
    kind, api_version = obj.get("kind"), obj.get("apiVersion")
    if not isinstance(kind, str) or not isinstance(api_version, str):
        return obj, False
    entry = _KINDS.get((kind, api_version))
    if entry is not None:
        reason = (f"{kind} {api_version} introduced in Kubernetes {entry.release} "
                  f"({entry.source}); {entry.instead}")
        notes.add((kind, api_version), doc, obj, f"{prefix}apiVersion" if entry.simulated_as else
                  (prefix.rstrip(".") or None), reason)
        if entry.simulated_as is not None:
            return {**obj, "apiVersion": entry.simulated_as}, True
        notes.dropped.append((kind, _name(obj) or "?", f"introduced in Kubernetes {entry.release}; "
                                                       "not simulated"))
        return None, True
    newer = False
    for field, parts in _FIELDS.get(kind, ()):
        if _present(obj, parts):
            notes.add((kind, field.path), doc, obj, prefix + field.path, _note(field))
            obj = _without(obj, parts)
            newer = True
    for field, parts in _CONTEXT.get(kind, ()):
        if _present(obj, parts):
            context.append((field, doc, prefix, obj))
    return obj, newer


def reduce_newer(docs: list[Any], source: str, text: str | None = None,
                 ) -> tuple[list[Any], list[LoadWarning], list[tuple[str, str, str]]]:
    """The documents as v1.35.4 reads them (same length, so document numbers stay right), the
    notes on what was newer, and the objects left out as (kind, name, reason). `text`, when
    given, is the YAML the documents were decoded from: if it cannot hold anything newer
    (`may_hold_newer`), the documents come back as they are without being walked."""
    if text is not None and not may_hold_newer(text):
        return list(docs), [], []
    notes = _Notes(source)
    context: list[tuple[NewerField, int, str, dict[str, Any]]] = []
    out = list(docs)
    newer = False
    for i, d in enumerate(docs):
        if not isinstance(d, dict):
            continue
        items = d.get("items")
        if (d.get("kind") == "List" or (d.get("kind") is None and "items" in d)) and isinstance(items, list):
            kept, changed = [], False
            for j, it in enumerate(items):
                reduced, was_newer = _reduce(it, i + 1, f"items[{j}].", notes, context)
                newer = newer or was_newer
                changed = changed or reduced is not it
                if reduced is not None:
                    kept.append(reduced)
            if changed:
                out[i] = {**d, "items": kept}
            continue
        reduced, was_newer = _reduce(d, i + 1, "", notes, context)
        newer = newer or was_newer
        if reduced is None:
            out[i] = {"apiVersion": "v1", "kind": "List", "items": []}
        else:
            out[i] = reduced
    if newer:  # a newer cluster's dump: say what its GA features mean here
        for field, doc, prefix, obj in context:
            notes.add((field.kind, field.path), doc, obj, prefix + field.path, _context_note(field))
    return out, list(notes.by_key.values()), notes.dropped


def kinds_and_fields(docs: list[Any], fields: set[str]) -> tuple[set[str], set[str]]:
    """The kinds the decoded documents hold (List items included, at any apiVersion) and which
    of `fields` ("Kind:dotted.path", "[]" for every list item) they set, non-empty. Read from
    the objects, so a kind or key named inside a string or a comment is not one; the run page's
    "newer releases' changes" notice asks this of a run's snapshot."""
    wanted: dict[str, list[tuple[str, list[str]]]] = {}
    for f in fields:
        kind, _, path = f.partition(":")
        wanted.setdefault(kind, []).append((f, path.split(".")))
    kinds: set[str] = set()
    found: set[str] = set()

    def visit(obj: Any) -> None:
        kind = obj.get("kind")
        if not isinstance(kind, str):
            return
        kinds.add(kind)
        for name, parts in wanted.get(kind, ()):
            if name not in found and _present(obj, parts):
                found.add(name)

    for d in docs:
        if not isinstance(d, dict):
            continue
        items = d.get("items")
        if (d.get("kind") == "List" or (d.get("kind") is None and "items" in d)) and isinstance(items, list):
            for it in items:
                if isinstance(it, dict):
                    visit(it)
            continue
        visit(d)
    return kinds, found
