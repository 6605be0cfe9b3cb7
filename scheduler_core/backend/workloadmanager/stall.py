"""When a run with a gang that can never complete is over.

Upstream's scheduler never stops: a gang short of members waits at Permit for its 5-minute
deadline, every waiting member is rejected and requeued, and the gang forms again with a new
deadline, forever. A simulation has to end, so the engine decides: a gang's Permit timeout that
comes due again, for a later deadline, with nothing in the cluster changed since the group's
previous timeout (no pod bound, created or deleted, no node added or removed, no action
applied) would only repeat that round. The run is then over (settled), with the members still
waiting reported Pending and their latest FailedScheduling message; the round is not replayed.
Any change in between (a pod bound elsewhere, a node added by a timeline action) lets the
timeout run as usual.
"""

from __future__ import annotations

from typing import Any


def cluster_fingerprint(sched: Any, actions_applied: int) -> tuple[int, int, int, int]:
    """What must change for another round of a gang to possibly end differently."""
    cs = sched.cluster
    bound = sum(1 for r in cs.records.values() if r.status == "Bound")
    return bound, len(cs.pods), len(cs.nodes), actions_applied


class GangStallDetector:
    """Per pod group: the deadline of its last timeout round and the cluster fingerprint then."""

    def __init__(self) -> None:
        self.rounds: dict[Any, tuple[float, tuple[int, int, int, int]]] = {}

    def stalled(self, group: Any, deadline: float, fingerprint: tuple[int, int, int, int]) -> bool:
        """True when this timeout would repeat the group's previous round; else records it."""
        prev = self.rounds.get(group)
        if prev is not None and prev[0] < deadline and prev[1] == fingerprint:
            return True
        if prev is None or prev[0] != deadline:
            self.rounds[group] = (deadline, fingerprint)
        return False
