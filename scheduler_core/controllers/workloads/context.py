"""The objects of a scenario as the workload controllers see them: where each one sits in the
input (for error messages), which pods each controller already owns, which names are taken."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from scheduler_core.api.errors import ScenarioError


@dataclass
class Located:
    """A manifest and its place: 1-based document number, `items[j]` inside a List or ''."""

    doc: int
    path: str
    obj: dict[str, Any]
    # Read once: the expansion asks every object's kind several times, and no controller
    # changes an object's kind (a plain attribute: a cached_property takes a lock per first read,
    # a few hundred milliseconds over a 150,000-object dump).
    kind: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.kind = str(self.obj.get("kind") or "")

    @property
    def name(self) -> str:
        return str((self.obj.get("metadata") or {}).get("name") or "")

    @property
    def namespace(self) -> str:
        return str((self.obj.get("metadata") or {}).get("namespace") or "default")

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


def controller_of(obj: dict[str, Any]) -> tuple[str, str] | None:
    """(kind, name) of the ownerReference with controller: true, if any."""
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if isinstance(ref, dict) and ref.get("controller") is True:
            return str(ref.get("kind") or ""), str(ref.get("name") or "")
    return None


class ExpansionContext:
    """Indexes over every object of the input, kept up to date as controllers create objects."""

    def __init__(self, objects: list[Located], source: str) -> None:
        self.source = source
        self.nodes = [o.obj for o in objects if o.kind == "Node"]
        self._owned: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
        self._names: dict[tuple[str, str], set[str]] = defaultdict(set)
        for o in objects:
            self.register(o.obj)

    def register(self, obj: dict[str, Any]) -> None:
        """Record a (given or created) object: its name is taken, its controller owns it."""
        meta = obj.get("metadata") or {}
        ns = str(meta.get("namespace") or "default")
        self._names[(str(obj.get("kind") or ""), ns)].add(str(meta.get("name") or ""))
        refs = meta.get("ownerReferences")
        if refs:  # controller_of, inline: called for each of a dump's 150,000 objects
            for ref in refs:
                if isinstance(ref, dict) and ref.get("controller") is True:
                    self._owned[(str(ref.get("kind") or ""), ns, str(ref.get("name") or ""))].append(obj)
                    break

    def owned(self, owner_kind: str, namespace: str, owner_name: str,
              kind: str = "Pod") -> list[dict[str, Any]]:
        """Objects of `kind` whose controller is that owner."""
        return [o for o in self._owned[(owner_kind, namespace, owner_name)] if o.get("kind") == kind]

    def names(self, kind: str, namespace: str) -> set[str]:
        """The names of `kind` taken in the namespace (a live set: generators add to it)."""
        return self._names[(kind, namespace)]

    def error(self, where: Located, field: str | None, reason: str) -> ScenarioError:
        path = ".".join(p for p in (where.path, field or "") if p) or None
        return ScenarioError(reason, file=self.source, document=where.doc, kind=where.kind,
                             name=where.key if where.name else None, field=path)
