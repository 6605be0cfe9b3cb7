"""Which pods, nodes and Deployments exist: the one question every cluster action's check asks.

An action names objects (`Ref`): one it creates must not exist yet, one it uses or deletes must.
That rule is `first_missing`, written once here; what differs between the places that ask is only
where the names come from (`Names`):

- `ClusterNames`: the live cluster of a running simulation (a user's action, a due timeline action);
- `TimelineNames`: the scenario's objects replayed through its Timeline on names alone, by the
  loader, so each timeline action refers to something that exists at its time;
- `StoredNames`: a stored view of a run (the web's head step) plus the actions queued after it,
  so a form is refused in the request rather than failing in the worker.

How each place words a refusal stays its own (a loader error located in the document, the API
server's NotFound on a due timeline action, a form field's message); `Missing` carries the facts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

__all__ = ["Names", "Ref", "Missing", "ClusterNames", "TimelineNames", "StoredNames", "first_missing",
           "replay", "pod_key"]

Kind = Literal["Pod", "Node", "Deployment"]
Op = Literal["uses", "creates", "deletes"]


class Names(Protocol):
    """Answers whether an object of `kind` (Pod: "namespace/name"; Node: its name; Deployment:
    "namespace/name") exists."""

    def exists(self, kind: str, name: str) -> bool: ...


@dataclass(frozen=True, slots=True)
class Ref:
    """An object an action names: `field` is the action's field that names it ("pod", "node",
    "name"); `op` says whether the action uses, creates or deletes it."""

    kind: Kind
    name: str
    field: str
    op: Op = "uses"


@dataclass(frozen=True, slots=True)
class Missing:
    """A reference the names refute: an object to create that exists already (`exists`), or one to
    use or delete that does not."""

    ref: Ref

    @property
    def exists(self) -> bool:
        return self.ref.op == "creates"

    def message(self) -> str:
        """`pod "default/a" does not exist`, `node "n1" already exists` (Deployment: "... does
        not exist in the scenario", as there is no action that adds one)."""
        if self.ref.kind == "Deployment":
            return f'Deployment "{self.ref.name}" does not exist in the scenario'
        state = "already exists" if self.exists else "does not exist"
        return f'{self.ref.kind.lower()} "{self.ref.name}" {state}'


def first_missing(refs: Iterable[Ref], names: Names) -> Missing | None:
    """The rule: a created object must not exist yet, a used or deleted one must."""
    for ref in refs:
        if names.exists(ref.kind, ref.name) == (ref.op != "creates"):
            continue
        return Missing(ref)
    return None


def replay(refs: Iterable[Ref], names: NameSet) -> None:
    """Carry an applied action's effect on names forward (objects created are added, deleted
    ones removed)."""
    for ref in refs:
        if ref.op == "creates":
            names.add(ref.kind, ref.name)
        elif ref.op == "deletes":
            names.discard(ref.kind, ref.name)


def pod_key(ref: str) -> str:
    """`ns/name` or `name` (namespace default) -> `ns/name`."""
    return ref if "/" in ref else f"default/{ref}"


class ClusterNames:
    """The live cluster of a simulation (pods: those not deleted; Deployments: the scenario's)."""

    __slots__ = ("cluster", "deployments")

    def __init__(self, sim: Any) -> None:
        self.cluster = sim.scheduler.cluster
        summary = sim.scenario.load_summary
        self.deployments = summary.scale_targets if summary is not None else {}

    def exists(self, kind: str, name: str) -> bool:
        if kind == "Pod":
            return name in self.cluster.pods
        if kind == "Node":
            return name in self.cluster.nodes
        return name in self.deployments


@dataclass
class NameSet:
    """Names held as sets, changed as actions are replayed over them."""

    nodes: set[str] = field(default_factory=set)
    pods: set[str] = field(default_factory=set)
    deployments: set[str] = field(default_factory=set)

    def _set(self, kind: str) -> set[str]:
        return self.pods if kind == "Pod" else self.nodes if kind == "Node" else self.deployments

    def exists(self, kind: str, name: str) -> bool:
        return name in self._set(kind)

    def add(self, kind: str, name: str) -> None:
        self._set(kind).add(name)

    def discard(self, kind: str, name: str) -> None:
        self._set(kind).discard(name)


class TimelineNames(NameSet):
    """The scenario's objects at time 0, which the loader's replay of the Timeline changes."""

    @classmethod
    def of_scenario(cls, scenario: Any, deployments: Iterable[str] = ()) -> TimelineNames:
        return cls(nodes={n.name for n in scenario.nodes}, pods={p.key for p in scenario.pods},
                   deployments=set(deployments))


class StoredNames(NameSet):
    """A run's stored view (`Simulation.view()` as the web keeps it): its nodes, the pods not
    deleted, its Deployments. The web replays the actions queued after it on top."""

    @classmethod
    def of_view(cls, view: dict[str, Any]) -> StoredNames:
        return cls(nodes={n["name"] for n in view.get("nodes", [])},
                   pods={p["key"] for p in view.get("pods", []) if p.get("status") != "Deleted"},
                   deployments={d["key"] for d in view.get("deployments") or []})
