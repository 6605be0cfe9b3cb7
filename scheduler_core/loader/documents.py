"""Decoded YAML documents -> entries: `List`s flattened, kind and apiVersion checked, every
object's fields checked strictly against its kind's schema (unknown fields refused, fields the
playground does not model collected as "not simulated")."""

from __future__ import annotations

from typing import Any

from scheduler_core.loader.kinds import KINDS
from scheduler_core.loader.reader import Location, join_path, type_name
from scheduler_core.loader.schema import KIND_SCHEMAS
from scheduler_core.loader.strict import (
    NotSimulated,
    check_fields,
    check_object,
    object_identity,
)

__all__ = ["Entry", "CheckedObjects", "flatten_documents", "check_workload_documents",
           "CONSUMED_WORKLOADS"]


class Entry:
    """One object of a scenario: its document, kind, apiVersion and decoded mapping."""

    __slots__ = ("doc", "kind", "api_version", "obj")

    def __init__(self, doc: int, kind: str, api_version: str, obj: dict[str, Any]) -> None:
        self.doc = doc
        self.kind = kind
        self.api_version = api_version
        self.obj = obj


class CheckedObjects:
    """The objects `check_workload_documents` found valid, by identity, so `flatten_documents`
    does not walk them a second time (for a big cluster the strict walk is seconds).

    Why identity is enough: the workload controllers never add to an object the user wrote
    (what they create are new objects, made from deep copies of templates), and the same object
    under the same kind and document gets the same verdict from the same schema. Each object is
    held here as well, so its id cannot be reused by an object the controllers create later.
    """

    __slots__ = ("_by_id",)

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[dict[str, Any], int, str]] = {}

    def add(self, obj: dict[str, Any], doc: int, kind: str) -> None:
        self._by_id[id(obj)] = (obj, doc, kind)

    def contains(self, obj: dict[str, Any], doc: int, kind: str) -> bool:
        """Whether this very object was checked as `kind` in document `doc`."""
        seen = self._by_id.get(id(obj))
        return seen is not None and seen[0] is obj and seen[1] == doc and seen[2] == kind

    def __len__(self) -> int:
        return len(self._by_id)


def flatten_documents(docs: list[Any], source: str, notes: NotSimulated,
                      checked: CheckedObjects | None = None) -> list[Entry]:
    """One entry per object, in document order (List items in place). Objects in `checked`
    passed the same strict field check already and are not walked again."""
    out: list[Entry] = []
    for i, d in enumerate(docs, start=1):
        if d is None:
            continue
        ctx = Location(source, i)
        if not isinstance(d, dict):
            raise ctx.error(None, f"expected a Kubernetes object (a mapping), got {type_name(d)}")
        items: list[tuple[Any, str | None]]
        if d.get("kind") == "List" or (d.get("kind") is None and "items" in d
                                       and d.get("apiVersion") in (None, "v1")):
            raw_items = d.get("items")
            if raw_items is None:
                raw_items = []
            if not isinstance(raw_items, list):
                raise ctx.error("items", f"expected an array, got {type_name(raw_items)}")
            items = [(it, f"items[{j}]") for j, it in enumerate(raw_items)]
            check_fields(d, KIND_SCHEMAS["List"], "", Location(source, i, "List"), notes)
        else:
            items = [(d, None)]
        for it, prefix in items:
            if it is None:
                continue
            if not isinstance(it, dict):
                raise ctx.error(prefix, f"expected a Kubernetes object, got {type_name(it)}")
            kind = it.get("kind")
            api_version = it.get("apiVersion")
            if not kind or not isinstance(kind, str):
                raise ctx.error(join_path(prefix or "", "kind"), "Required value: object has no kind")
            if not api_version or not isinstance(api_version, str):
                raise Location(source, i, kind).error(join_path(prefix or "", "apiVersion"),
                                                  "Required value: object has no apiVersion")
            allowed = KINDS.get(kind)
            if allowed is None:
                raise Location(source, i, kind).error(
                    join_path(prefix or "", "kind"),
                    f'unsupported kind "{kind}" (supported: {", ".join(sorted(KINDS))})')
            if api_version not in allowed:
                raise Location(source, i, kind).error(
                    join_path(prefix or "", "apiVersion"),
                    f'unsupported apiVersion "{api_version}" for kind {kind} '
                    f'(expected {" or ".join(allowed)})')
            if checked is None or not checked.contains(it, i, kind):
                check_object(it, kind, Location(source, i, kind, object_identity(it, kind)),
                             notes, prefix or "")
            out.append(Entry(i, kind, api_version, it))
    return out


# Kinds the workload controllers replace by the pods they create (see
# scheduler_core.controllers.workloads); checked here, before expansion, so an error points at
# the user's own Deployment/DaemonSet/Job rather than at a pod made from its template.
CONSUMED_WORKLOADS: dict[str, tuple[str, ...]] = {
    "Deployment": ("apps/v1",), "DaemonSet": ("apps/v1",), "Job": ("batch/v1",),
}


def check_workload_documents(docs: list[Any], source: str, notes: NotSimulated) -> CheckedObjects:
    """Strict field check, before the workload controllers run, of every object of a kind the
    loader knows: the controllers' own kinds (which the loader never sees as entries) and the
    rest, so nothing malformed reaches the controllers. Kinds unknown here are left for
    `flatten_documents`, after a cluster dump's unmodelled kinds have been dropped. Returns the
    objects checked, which `flatten_documents` then need not check again."""
    checked = CheckedObjects()
    for i, d in enumerate(docs, start=1):
        if not isinstance(d, dict):
            continue
        raw_items = d.get("items") if d.get("kind") in ("List", None) else None
        items = ([(it, f"items[{j}]") for j, it in enumerate(raw_items)]
                 if isinstance(raw_items, list) else [(d, None)])
        for it, prefix in items:
            if not isinstance(it, dict):
                continue
            kind = it.get("kind")
            allowed = (CONSUMED_WORKLOADS.get(kind) or KINDS.get(kind)) if isinstance(kind, str) else None
            if allowed is None:
                continue
            api_version = it.get("apiVersion")
            if not api_version or not isinstance(api_version, str):
                raise Location(source, i, kind).error(join_path(prefix or "", "apiVersion"),
                                                      "Required value: object has no apiVersion")
            for part in ("metadata", "spec", "status"):
                if part in it and it[part] is not None and not isinstance(it[part], dict):
                    raise Location(source, i, kind).error(
                        join_path(prefix or "", part), f"expected a mapping, got {type_name(it[part])}")
            if api_version not in allowed:
                raise Location(source, i, kind).error(
                    join_path(prefix or "", "apiVersion"),
                    f'unsupported apiVersion "{api_version}" for kind {kind} '
                    f'(expected {" or ".join(allowed)})')
            check_object(it, kind, Location(source, i, kind, object_identity(it, kind)), notes,
                         prefix or "")
            checked.add(it, i, kind)
    return checked
