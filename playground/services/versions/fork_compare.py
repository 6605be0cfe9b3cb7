"""A fork against the run it was forked from: the first decision where they part, and why.

Both runs are read from their stored events (a fork carries its parent's log up to the fork
step, then its own), so nothing is re-run. Each run is compared as far as it has gone: a
decision one run has made and the other has not reached yet (it is not settled and its clock
is short of that time) is not a difference, only counted as "not reached yet".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from playground.models import Run
from playground.selectors.run_decisions import MAX_DECISION_EVENTS, decision_event_count, decision_events
from playground.services.versions.compare import CompareError
from scheduler_core.featuregate import parse_feature_gates
from scheduler_core.featuregate.features import FeatureGates, gates_for, with_overrides
from scheduler_core.questions.compare import PodDifference, compare_runs, record_run


@dataclass
class ForkComparison:
    fork: Run
    parent: Run
    labels: tuple[str, str]
    decisions: list[PodDifference]  # each pod's first differing decision, earliest first
    not_reached: list[PodDifference] = field(default_factory=list)  # only one run got there yet

    @property
    def first(self) -> PodDifference | None:
        return self.decisions[0] if self.decisions else None


def _gates(run: Run) -> FeatureGates:
    base = gates_for(run.kubernetes_version)
    return with_overrides(base, parse_feature_gates(run.feature_gates or None, base.version))


def _not_reached(diff: PodDifference, runs: tuple[Run, Run]) -> bool:
    """A decision on one side only, which the other run (not settled) has not reached in time."""
    for decision, other in ((diff.a, runs[1]), (diff.b, runs[0])):
        if decision is not None and diff.aspects == ["cycle on one side only"]:
            return other.status != Run.STATUS_SETTLED and decision.time >= other.clock
    return False


def compare_fork(*, fork: Run) -> ForkComparison:
    """Compare `fork` with the run it was forked from; CompareError when it has none (deleted,
    or not a fork) or either log is too long to read in a request."""
    parent = fork.forked_from
    if parent is None:
        raise CompareError("This run is not a fork (or the run it was forked from was deleted).")
    for run in (fork, parent):
        if decision_event_count(run=run) > MAX_DECISION_EVENTS:
            raise CompareError(
                f"A run here has more than {MAX_DECISION_EVENTS:,} scheduling events: too many to compare "
                "while you wait.")
    labels = (f"this fork (step {fork.head_step})", f"the original (step {parent.head_step})")
    diffs = compare_runs(record_run(decision_events(run=fork)), record_run(decision_events(run=parent)),
                         (_gates(fork), _gates(parent)), labels)
    shown = [d for d in diffs if not _not_reached(d, (fork, parent))]
    return ForkComparison(fork=fork, parent=parent, labels=labels, decisions=shown,
                          not_reached=[d for d in diffs if d not in shown])
