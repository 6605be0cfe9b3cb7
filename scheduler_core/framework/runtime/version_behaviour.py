"""The algorithms whose older (v1.30) form differs from v1.35, each chosen by a feature gate.

The scheduling code calls these with one line where the versions part ways; the gate decides
(scheduler_core.featuregate.features). Each older variant is re-implemented from upstream v1.30.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from scheduler_core.api.types import Pod
from scheduler_core.featuregate.features import FeatureGates
from scheduler_core.framework.node_to_status import NodeToStatus
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import NodeInfo
from scheduler_core.util.goheap import heap_init, heap_pop

if TYPE_CHECKING:
    from scheduler_core.framework.runtime.framework import NodePluginScores


class Scheduler(Protocol):
    """What v1.30's selectHost needs of the scheduler: its RNG, event sink and queue."""

    rng: Any
    sink: Any
    queue: Any

# v1.30's selectHost also returns the top nodes for its log line; the walk pops at least these.
NUMBER_OF_HIGHEST_SCORED_NODES_TO_REPORT = 3


def prefilter_result_absent_status(gates: FeatureGates, unschedulable_plugins: set[str]) -> Status:
    """The status of nodes a PreFilterResult excluded from the filter walk.

    v1.35: UnschedulableAndUnresolvable, naming the plugins ("didn't satisfy plugin(s) [...]"):
    the FailedScheduling message counts them and preemption skips them. v1.30: no status at all
    (a Go map without the node): nothing is counted but the 0/N total, and since a missing
    status is not UnschedulableAndUnresolvable, preemption dry-runs those nodes too."""
    if gates.prefilter_result_reasons:
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                      f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(unschedulable_plugins))}]")
    return Status(Code.SUCCESS)


def preemption_potential_nodes(gates: FeatureGates, m: NodeToStatus, all_nodes: list[NodeInfo]) -> list[NodeInfo]:
    """The nodes preemption dry-runs, in node-tree order.

    v1.35 (NodesForStatusCode(Unschedulable)): only nodes whose filters said Unschedulable.
    v1.30.6 (nodesWherePreemptionMightHelp, node-tree order): only nodes with an explicit
    Unschedulable status; a node absent from the map (excluded by a PreFilterResult, so never
    filtered) counts as "Preemption is not helpful for scheduling", like an unresolvable one,
    although the FailedScheduling part before "preemption:" does not count it."""
    if gates.prefilter_result_reasons:
        return m.nodes_for_status_code(all_nodes, Code.UNSCHEDULABLE)
    explicit = m.node_to_status
    return [n for n in all_nodes if (st := explicit.get(n.name)) is not None and st.code == Code.UNSCHEDULABLE]


def _total_greater(a: NodePluginScores, b: NodePluginScores) -> bool:
    return a.total_score > b.total_score


def select_host_reservoir(sched: Scheduler, pod: Pod, scores: list[NodePluginScores]) -> str:
    """v1.30 selectHost: pop the score heap (ordered by total only); every further node with the
    top total replaces the choice with probability 1/k (reservoir sampling, k = how many top
    nodes seen so far). The walk also pops until it holds the top 3 for the log line, which
    draws no random numbers. Upstream draws from math/rand; here from the run's seeded RNG."""
    h = list(scores)
    heap_init(h, _total_greater)
    top = heap_pop(h, _total_greater)
    selected = top
    count_of_max = 1
    popped = 1
    while h:
        ns = heap_pop(h, _total_greater)
        if ns.total_score != top.total_score and popped >= NUMBER_OF_HIGHEST_SCORED_NODES_TO_REPORT:
            break
        if ns.total_score == top.total_score:
            count_of_max += 1
            if sched.rng.randrange(count_of_max) == 0:
                selected = ns
        popped += 1
    if sched.sink.wants("selected"):
        ties = [s.name for s in scores if s.total_score == top.total_score]
        sched.sink.emit("selected", cycle=sched.queue.scheduling_cycle, pod=pod.key, node=selected.name,
                        score=selected.total_score, ties=ties, sampling="reservoir")
    return selected.name
