"""What a run keeps of its scenario once it has started: everything but the loaded nodes and pods,
of which it keeps only how many there were.

Why: after the start the nodes and pods live in the API server's store (and the scheduler's
cache), and a pod bound during the run is a new object there. A run that kept the scenario's
own lists would hold, and write into every checkpoint, a second copy of each pod bound since
the start (late in a 5,000 x 150,000 run, about a third of the checkpoint). What later use reads
from the scenario is small: its PriorityClasses and admission settings, the loader's summary,
the DeschedulerPolicy, and the number of objects loaded (a live action's created object takes
its uid and creation index after them: `parse_action`). The lists are replaced by `Released`,
which answers `len()` and refuses every other read loudly, so a reader added later that needs
the loaded objects fails in the tests instead of silently seeing an empty cluster: it reads the
run's store instead (`sim.scheduler.cluster`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn

from scheduler_core.api.scenario import Scenario

__all__ = ["Released", "ReleasedObjectsError", "released_after_start"]


class ReleasedObjectsError(RuntimeError):
    """A read of the loaded nodes or pods from a started run's scenario."""


class Released(Sequence[Any]):
    """The count of a scenario's loaded objects of one kind, without the objects."""

    __slots__ = ("count", "kind")

    def __init__(self, kind: str, count: int) -> None:
        self.kind = kind
        self.count = count

    def __len__(self) -> int:
        return self.count

    def _refuse(self) -> NoReturn:
        raise ReleasedObjectsError(
            f"a started run keeps only the number of its scenario's {self.kind} ({self.count}); "
            f"read them from the run's cluster state (sim.scheduler.cluster)")

    def __getitem__(self, index: Any) -> NoReturn:
        self._refuse()

    def __iter__(self) -> Iterator[Any]:
        self._refuse()

    def __contains__(self, value: object) -> bool:
        self._refuse()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Released) and (self.kind, self.count) == (other.kind, other.count)

    def __hash__(self) -> int:
        return hash((self.kind, self.count))

    def __repr__(self) -> str:
        return f"Released({self.kind!r}, {self.count})"

    def __reduce__(self) -> tuple[type[Released], tuple[str, int]]:
        return Released, (self.kind, self.count)


def released_after_start(scenario: Scenario) -> Scenario:
    """A copy of `scenario` with its nodes and pods released (counted, not held). The scenario
    handed in is not changed: a caller may start another run from it."""
    return dataclasses.replace(scenario, nodes=Released("nodes", len(scenario.nodes)),  # type: ignore[arg-type]
                               pods=Released("pods", len(scenario.pods)))  # type: ignore[arg-type]
