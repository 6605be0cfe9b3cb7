"""PodTopologySpread PreScore/Score/NormalizeScore: the soft (ScheduleAnyway) constraints.

A node's raw score is, summed over constraints, `matching pods in its domain × log(domains + 2) +
(maxSkew - 1)`; fewer matching pods is better, so NormalizeScore inverts it onto 0..100. Hostname
domains are counted per node in Score (each node is its own domain). Nodes missing a topology key
are "ignored" and score 0 — except under system-default spreading, where a node without a zone
label may still be scored for hostname spreading.
"""

from __future__ import annotations

import math

from scheduler_core.api.types import LABEL_HOSTNAME, Pod
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import MAX_NODE_SCORE
from scheduler_core.framework.plugins.helper.spread import SelectorError
from scheduler_core.framework.plugins.podtopologyspread.common import (
    SCHEDULE_ANYWAY,
    RequiredNodeAffinity,
    SpreadConstraint,
    count_pods_match_selector,
    filter_topology_spread_constraints,
    node_labels_match_spread_constraints,
)
from scheduler_core.framework.status import SKIP, Status
from scheduler_core.framework.types import NodeInfo, NodeScore

NAME = "PodTopologySpread"
PRE_SCORE_STATE_KEY = "PreScore" + NAME
_INVALID_SCORE = -1


class PreScoreState:
    """What Score and NormalizeScore read; never mutated after PreScore, so clone() shares it."""

    __slots__ = ("constraints", "ignored_nodes", "topology_value_to_pod_counts", "topology_normalizing_weight")

    def __init__(self) -> None:
        self.constraints: list[SpreadConstraint] = []
        self.ignored_nodes: set[str] = set()
        self.topology_value_to_pod_counts: list[dict[str, int]] = []
        self.topology_normalizing_weight: list[float] = []

    def clone(self) -> PreScoreState:
        return self


def topology_normalizing_weight(size: int) -> float:
    """log(size + 2): counts in topologies with many domains weigh more than in ones with few."""
    return math.log(size + 2)


def score_for_count(cnt: int, max_skew: int, tp_weight: float) -> float:
    """`maxSkew - 1` is added so that small differences between domains are watered down."""
    return cnt * tp_weight + (max_skew - 1)


def _round_half_away(x: float) -> int:
    """Go's math.Round (half away from zero), not Python's banker's rounding."""
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


class ScoringMixin:
    """PreScore, Score and NormalizeScore of PodTopologySpread (mixed into the plugin)."""

    comparison_operators: bool = False  # set by the plugin from its gates
    node_inclusion_policy: bool = True

    def _init_pre_score_state(self, s: PreScoreState, pod: Pod, filtered_nodes: list[NodeInfo],
                              require_all_topologies: bool) -> None:
        if pod.topology_spread_constraints:
            s.constraints = filter_topology_spread_constraints(
                pod.topology_spread_constraints, pod.labels, SCHEDULE_ANYWAY,
                self.node_inclusion_policy)
        else:
            s.constraints = self._build_default_constraints(pod, SCHEDULE_ANYWAY)
        if not s.constraints:
            return
        n_c = len(s.constraints)
        s.topology_value_to_pod_counts = [{} for _ in range(n_c)]
        topo_size = [0] * n_c
        for ni in filtered_nodes:
            node = ni.node
            labels = node.labels
            if require_all_topologies and not node_labels_match_spread_constraints(labels, s.constraints):
                s.ignored_nodes.add(node.name)
                continue
            for i, c in enumerate(s.constraints):
                if c.topology_key == LABEL_HOSTNAME:
                    continue
                value = labels.get(c.topology_key, "")
                m = s.topology_value_to_pod_counts[i]
                if value not in m:
                    m[value] = 0
                    topo_size[i] += 1
        weights = []
        for i, c in enumerate(s.constraints):
            sz = topo_size[i]
            if c.topology_key == LABEL_HOSTNAME:
                sz = len(filtered_nodes) - len(s.ignored_nodes)
            weights.append(topology_normalizing_weight(sz))
        s.topology_normalizing_weight = weights

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        all_nodes = self.handle.snapshot.list()
        if not all_nodes:
            return SKIP
        s = PreScoreState()
        # Only non-system-default spreading requires every topology label, so that nodes without a
        # zone label still take part in hostname spreading under the system defaults.
        require_all = bool(pod.topology_spread_constraints) or not self.system_defaulted
        try:
            self._init_pre_score_state(s, pod, nodes, require_all)
        except SelectorError as e:
            return Status.error(f"calculating preScoreState: obtaining pod's soft topology spread "
                                f"constraints: {e}")
        if not s.constraints:
            return SKIP

        required = RequiredNodeAffinity(pod)
        ns = pod.namespace
        constraints = s.constraints
        counts = s.topology_value_to_pod_counts
        for ni in all_nodes:
            node = ni.node
            labels = node.labels
            if require_all and not node_labels_match_spread_constraints(labels, constraints):
                continue
            for i, c in enumerate(constraints):
                if not c.match_node_inclusion_policies(pod, node, required, self.comparison_operators):
                    continue
                value = labels.get(c.topology_key, "")
                m = counts[i]
                if value not in m:  # no candidate node in this domain (or hostname: done in Score)
                    continue
                m[value] += count_pods_match_selector(ni.pods, c.selector, ns)
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        s: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return 0, Status.error(f"error reading {PRE_SCORE_STATE_KEY!r} from cycleState: not found")
        node = node_info.node
        if node.name in s.ignored_nodes:
            return 0, None
        labels = node.labels
        score = 0.0
        for i, c in enumerate(s.constraints):
            tp_val = labels.get(c.topology_key)
            if tp_val is None:
                continue
            if c.topology_key == LABEL_HOSTNAME:
                cnt = count_pods_match_selector(node_info.pods, c.selector, pod.namespace)
            else:
                cnt = s.topology_value_to_pod_counts[i].get(tp_val, 0)
            score += score_for_count(cnt, c.max_skew, s.topology_normalizing_weight[i])
        return _round_half_away(score), None

    def score_extensions(self):  # noqa: ANN201 - returns self (ScoreExtensions)
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        s: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return Status.error(f"error reading {PRE_SCORE_STATE_KEY!r} from cycleState: not found")
        ignored = s.ignored_nodes
        min_score = (1 << 63) - 1
        max_score = 0
        for ns in scores:
            if ns.name in ignored:
                ns.score = _INVALID_SCORE
                continue
            if ns.score < min_score:
                min_score = ns.score
            if ns.score > max_score:
                max_score = ns.score
        for ns in scores:
            if ns.score == _INVALID_SCORE:
                ns.score = 0
                continue
            if max_score == 0:
                ns.score = MAX_NODE_SCORE
                continue
            ns.score = MAX_NODE_SCORE * (max_score + min_score - ns.score) // max_score
        return None
