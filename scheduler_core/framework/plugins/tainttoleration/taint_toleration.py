"""TaintToleration: NoSchedule/NoExecute taints the pod does not tolerate rule a node out;
untolerated PreferNoSchedule taints lower its score (fewer is better, normalised in reverse)."""

from __future__ import annotations

from typing import Any

from scheduler_core.api.types import TAINT_EFFECT_PREFER_NO_SCHEDULE, Node, Pod, Toleration
from scheduler_core.backend.cache.kept_columns import take_column
from scheduler_core.backend.cache.node_arrays import NODE_ROWS_KEY, NodeRows
from scheduler_core.featuregate.features import gates_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import (
    MAX_NODE_SCORE,
    ClusterEventWithHint,
    EnqueueExtensions,
    FilterPlugin,
    PreScorePlugin,
    ScorePlugin,
)
from scheduler_core.framework.plugins import names
from scheduler_core.framework.plugins.helper import signing
from scheduler_core.framework.plugins.helper.normalize_score import (
    default_normalize_score,
    default_normalize_score_values,
)
from scheduler_core.framework.plugins.helper.podutil import same_pod
from scheduler_core.framework.plugins.helper.taint import (
    do_not_schedule_taints_filter_func,
    find_matching_untolerated_taint,
    tolerations_tolerate_taint,
)
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import (
    ActionType,
    ClusterEvent,
    EventResource,
    NodeInfo,
    NodeScore,
    QueueingHint,
)

PRE_SCORE_STATE_KEY = "PreScore" + names.TAINT_TOLERATION
ERR_REASON_NOT_MATCH = "node(s) had taints that the pod didn't tolerate"
ERR_REASON_UNTOLERATED = "node(s) had untolerated taint(s)"

_filter_fn = do_not_schedule_taints_filter_func()


class _PreScoreState:
    __slots__ = ("tolerations_prefer_no_schedule",)

    def __init__(self, tolerations: list[Toleration]) -> None:
        self.tolerations_prefer_no_schedule = tolerations


def get_all_toleration_prefer_no_schedule(tolerations: list[Toleration]) -> list[Toleration]:
    """Tolerations with effect PreferNoSchedule or no effect (which covers every effect)."""
    return [t for t in tolerations if not t.effect or t.effect == TAINT_EFFECT_PREFER_NO_SCHEDULE]


def count_intolerable_taints_prefer_no_schedule(node: Node, tolerations: list[Toleration],
                                                comparison_operators: bool = False) -> int:
    n = 0
    for taint in node.taints:
        if taint.effect != TAINT_EFFECT_PREFER_NO_SCHEDULE:
            continue
        if not tolerations_tolerate_taint(tolerations, taint, comparison_operators):
            n += 1
    return n


def _snapshot_count(handle: Any, trait: str) -> int | None:
    """How many nodes of the cycle's snapshot have `trait` (None when there is no snapshot)."""
    return getattr(getattr(handle, "snapshot", None), trait, None)


def _has_taints(nodes: list[NodeInfo]) -> list[bool]:
    return [bool(ni.node.taints) for ni in nodes]


def _rows_for(state: CycleState, nodes: list[NodeInfo]) -> NodeRows | None:
    """The fast path's rows in the cycle state when they are the rows of `nodes` (same list, or
    one row per node), else None."""
    rows = state.get(NODE_ROWS_KEY)
    if type(rows) is not NodeRows or (rows.nodes is not None and rows.nodes is not nodes):
        return None
    idx = rows.idx
    count = len(range(*idx.indices(len(rows.arrays.cols)))) if type(idx) is slice else len(idx)
    return rows if count == len(nodes) else None


def _tainted_positions(state: CycleState, nodes: list[NodeInfo]) -> list[int] | None:
    """The positions in `nodes` of the nodes with taints, from the fast path's rows of `nodes`
    (written for a Filter batch or the Score phase) and a column of every node's answer kept
    with the node arrays: at tens of thousands of nodes with a few tainted, the plugin then
    looks at those few instead of every node's taint list. None without such rows."""
    rows = _rows_for(state, nodes)
    if rows is None:
        return None
    arrays, idx = rows.arrays, rows.idx
    import numpy as np

    mask = take_column(arrays, _TAINTED_KEY, idx, lambda: np.array(_has_taints(arrays.nodes), dtype=bool),
                       _has_taints)
    if mask is None:
        return None
    return np.flatnonzero(mask).tolist()


# The kept column's key: whether a node has taints does not depend on the plugin's settings.
_TAINTED_KEY = ("TaintToleration", "has-taints")


def _untolerated_positions(state: CycleState, nodes: list[NodeInfo], tolerations: list[Toleration],
                           comparison_operators: bool) -> list[int] | None:
    """The positions in `nodes` of the nodes with a NoSchedule or NoExecute taint that
    `tolerations` do not tolerate, from the fast path's rows of `nodes` and a column of every
    node's answer kept with the node arrays per set of tolerations (the pods of a workload share
    theirs; a node's answer changes only with its taints). The column is worked out on the
    tainted nodes only. None without such rows."""
    rows = _rows_for(state, nodes)
    if rows is None:
        return None
    arrays, idx = rows.arrays, rows.idx
    import numpy as np

    def untolerated(some: list[NodeInfo]) -> list[bool]:
        return [bool(ni.node.taints) and find_matching_untolerated_taint(
            ni.node.taints, tolerations, _filter_fn, comparison_operators) is not None for ni in some]

    def every_row() -> Any:
        all_nodes = arrays.nodes
        col = np.zeros(len(all_nodes), dtype=bool)
        tainted = np.flatnonzero(np.array(_has_taints(all_nodes), dtype=bool)).tolist()
        if tainted:
            col[tainted] = untolerated([all_nodes[k] for k in tainted])
        return col

    key = ("TaintToleration", "untolerated", comparison_operators,
           tuple((t.key, t.operator, t.value, t.effect) for t in tolerations))
    mask = take_column(arrays, key, idx, every_row, untolerated)
    if mask is None:
        return None
    return np.flatnonzero(mask).tolist()


class TaintToleration(FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions):
    name = names.TAINT_TOLERATION
    filter_reads_only = True  # Filter keeps nothing per node

    def __init__(self, args: dict[str, Any] | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        gates = gates_of(handle)
        self.single_reason = gates.taint_toleration_single_reason
        # TaintTolerationComparisonOperators (alpha): Gt/Lt tolerations compare numeric values.
        self.comparison_operators = bool(gates.overrides) and gates.enabled("TaintTolerationComparisonOperators")

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        taints = node_info.node.taints
        if not taints:
            return None
        taint = find_matching_untolerated_taint(taints, pod.tolerations, _filter_fn, self.comparison_operators)
        if taint is None:
            return None
        if self.single_reason:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNTOLERATED)
        # Older releases named the node's first untolerated taint (one bucket per taint).
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}")

    def filter_nodes(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> list[Status | None]:
        if _snapshot_count(self.handle, "num_tainted") == 0:
            return [None] * len(nodes)  # no node has taints: nothing to look at
        if self.single_reason:
            # One reason whatever the taint: the nodes rejected share one Status, the same
            # code and reason on each as `filter` gives.
            bad = _untolerated_positions(state, nodes, pod.tolerations, self.comparison_operators)
            if bad is not None:
                out_: list[Status | None] = [None] * len(nodes)
                if bad:
                    st = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNTOLERATED)
                    for k in bad:
                        out_[k] = st
                return out_
        f = self.filter
        tainted = _tainted_positions(state, nodes)
        if tainted is None:
            return [f(state, pod, ni) if ni.node.taints else None for ni in nodes]
        out: list[Status | None] = [None] * len(nodes)
        for k in tainted:
            out[k] = f(state, pod, nodes[k])
        return out

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(get_all_toleration_prefer_no_schedule(pod.tolerations)))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return 0, Status.error(f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        node = node_info.node
        if not node.taints:
            return 0, None
        return count_intolerable_taints_prefer_no_schedule(node, s.tolerations_prefer_no_schedule,
                                                           self.comparison_operators), None

    def score_nodes(self, state: CycleState, pod: Pod,
                    nodes: list[NodeInfo]) -> tuple[list[int] | None, Status | None]:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return None, Status.error(f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        tols = s.tolerations_prefer_no_schedule
        if _snapshot_count(self.handle, "num_tainted") == 0:
            return [0] * len(nodes), None
        cmp = self.comparison_operators
        tainted = _tainted_positions(state, nodes)
        if tainted is None:
            return [count_intolerable_taints_prefer_no_schedule(ni.node, tols, cmp) if ni.node.taints else 0
                    for ni in nodes], None
        out = [0] * len(nodes)
        for k in tainted:
            out[k] = count_intolerable_taints_prefer_no_schedule(nodes[k].node, tols, cmp)
        return out, None

    def score_extensions(self) -> TaintToleration:
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        return default_normalize_score(MAX_NODE_SCORE, True, scores)

    def normalize_score_values(self, state: CycleState, pod: Pod, scores: list[int]) -> Status | None:
        return default_normalize_score_values(MAX_NODE_SCORE, True, scores)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
                self.is_schedulable_after_node_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_TOLERATIONS),
                self.is_schedulable_after_pod_toleration_change,
            ),
        ]

    def is_schedulable_after_node_change(self, pod: Pod, old: Node | None, new: Node) -> int:
        """Queue only when the change turns an untolerated node into a tolerated one."""
        was_untolerated = True
        if old is not None:
            was_untolerated = find_matching_untolerated_taint(old.taints, pod.tolerations, _filter_fn, self.comparison_operators) is not None
        is_untolerated = find_matching_untolerated_taint(new.taints, pod.tolerations, _filter_fn, self.comparison_operators) is not None
        if was_untolerated and not is_untolerated:
            return QueueingHint.QUEUE
        return QueueingHint.SKIP

    def is_schedulable_after_pod_toleration_change(self, pod: Pod, old: Any, new: Pod) -> int:
        return QueueingHint.QUEUE if same_pod(new, pod) else QueueingHint.SKIP

    def sign_pod(self, pod: Pod) -> dict[str, Any]:
        """This plugin's fragments of the pod's batching signature (upstream SignPod)."""
        return {"tolerations": signing.tolerations(pod)}
