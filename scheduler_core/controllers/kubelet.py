"""The kubelet's end of a graceful deletion, on the virtual clock.

A pod deleted with a grace period (the graceful termination option: preemption victims, evictions
and taint-manager deletions get a deletionTimestamp first) is removed from the API server when
its kubelet has stopped it, terminationGracePeriodSeconds later. The API server keeps the
deadlines (`APIServer.pending_deletions`); this entry of the run's controllers wakes the run when
one is due and finishes those deletions, earliest first.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.controllers.timers import Controller

__all__ = ["GracefulDeletions"]


class GracefulDeletions(Controller):
    """Deletes terminating pods whose grace period has passed."""

    name = "kubelet"

    @classmethod
    def for_run(cls, api: Any) -> GracefulDeletions:
        return cls()

    def next_wakeup(self, sim: Any) -> float | None:
        return sim.apiserver.next_deletion_time()

    def run_due(self, sim: Any, now: float) -> bool:
        """The deletions are reported as pod events; the run does not report settling anew."""
        sim.apiserver.finish_terminations()
        return False
