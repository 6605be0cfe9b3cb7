"""What loading did to a scenario's documents: objects kept, created by a controller, dropped.

Shown to the user after an import, so nothing from a cluster dump disappears silently.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any, NamedTuple

KEPT = "kept"
CREATED = "created"
DROPPED = "dropped"


class SummaryEntry(NamedTuple):
    """One object and what happened to it, with the reason in words. A tuple: a dump's summary
    has an entry per pod (150,000), kept by the run's engine, so its checkpoints write them as
    columns and a restore makes them back without a Python call each (`WorkloadSummary`)."""

    outcome: str  # KEPT, CREATED or DROPPED
    kind: str
    name: str  # "namespace/name" or "name" for cluster-scoped objects
    reason: str


# A SummaryEntry made without its Python-level __new__ (the same tuple, a third of the cost).
_entry = tuple.__new__
_SUMMARY_ENTRY = SummaryEntry
_intern = sys.intern


@dataclass
class ScaleTarget:
    """What scaling a Deployment at run time needs: its current ReplicaSet and pod template."""

    namespace: str
    deployment: str
    replica_set: str
    replica_set_uid: str
    template: dict[str, Any]  # the ReplicaSet's pod template (pod-template-hash label included)


@dataclass
class WorkloadSummary:
    entries: list[SummaryEntry] = field(default_factory=list)
    scale_targets: dict[str, ScaleTarget] = field(default_factory=dict)  # "ns/deployment"
    source_format: str = "manifests"  # or "kubectl-list", "kube-scheduler-simulator"

    def add(self, outcome: str, kind: str, name: str, reason: str) -> None:
        """Note one object. The strings are interned: each document has its own copy of its
        kind, and a pod's "namespace/name" is then the very string its key is (`Pod.key`)."""
        self.entries.append(_entry(_SUMMARY_ENTRY, (_intern(outcome), _intern(kind), _intern(name),
                                                    _intern(reason))))

    def add_kept(self, kinds_and_names: list[tuple[str, str]]) -> None:
        """`add(KEPT, kind, name, "as given")` for each pair, in order: what an input's every
        object not a controller gets (150,000 times for a dump, one loop here)."""
        kept, given = _intern(KEPT), _intern("as given")
        self.entries.extend([_entry(_SUMMARY_ENTRY, (kept, _intern(kind), _intern(name), given))
                             for kind, name in kinds_and_names])

    def __getstate__(self) -> dict[str, Any]:
        """The entries as four columns (made and written by C code: no call per entry)."""
        state = dict(self.__dict__)
        state["entries"] = tuple(zip(*self.entries, strict=True))
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        columns = state.pop("entries")
        self.__dict__.update(state)
        self.entries = list(map(tuple.__new__, repeat(SummaryEntry), zip(*columns, strict=True)))

    def count(self, outcome: str) -> Counter[str]:
        """Objects per kind with that outcome."""
        return Counter(e.kind for e in self.entries if e.outcome == outcome)

    def is_trivial(self) -> bool:
        """True when loading changed nothing worth telling (plain manifests, no controllers)."""
        return not any(e.outcome != KEPT for e in self.entries) and self.source_format == "manifests"

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form: totals per outcome and kind, then every entry that is not a plain
        'kept' (those are many and say nothing beyond the totals)."""
        return {
            "format": self.source_format,
            "totals": {o: dict(sorted(self.count(o).items())) for o in (KEPT, CREATED, DROPPED)},
            "details": [
                {"outcome": e.outcome, "kind": e.kind, "name": e.name, "reason": e.reason}
                for e in self.entries if e.outcome != KEPT or e.reason != "as given"
            ],
        }

    def lines(self) -> list[str]:
        """Human-readable summary, one line per outcome and kind, then the reasons."""
        out: list[str] = []
        for outcome in (KEPT, CREATED, DROPPED):
            counts = self.count(outcome)
            if counts:
                out.append(f"{outcome}: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
        reasons = Counter((e.outcome, e.kind, e.reason) for e in self.entries
                          if e.outcome != KEPT or e.reason != "as given")
        for (outcome, kind, reason), n in sorted(reasons.items()):
            out.append(f"  {outcome} {n} {kind}: {reason}")
        return out
