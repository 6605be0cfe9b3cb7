"""PodTopologySpread PreFilter/Filter: the hard (DoNotSchedule) constraints.

PreFilter counts, per constraint and topology value, the pods matching the constraint's selector
on eligible nodes, and keeps the two smallest counts (the "critical paths") so Filter can check
`matching pods in the node's domain + self-match - global minimum <= maxSkew` in O(constraints)
per node. With fewer eligible domains than `minDomains`, the global minimum is taken as 0.

When every node is eligible for every constraint (see `_kept_counts`), the counts are read from
the snapshot's kept sums (backend/cache/spread_counts.py) instead of counting every node's pods,
with the domains in the order the node list first shows them, as the walk meets them (the
critical paths keep the first of equal counts, so the order is part of the result).
"""

from __future__ import annotations

from scheduler_core.api.types import Node, Pod
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.plugins.helper.spread import SelectorError
from scheduler_core.framework.plugins.podtopologyspread.common import (
    RequiredNodeAffinity,
    SpreadConstraint,
    count_pods_match_selector,
    kept_count_keys,
    node_labels_match_spread_constraints,
)
from scheduler_core.framework.status import SKIP, Code, Status
from scheduler_core.framework.types import NodeInfo, PodInfo, PreFilterResult

NAME = "PodTopologySpread"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

_MAX_INT32 = (1 << 31) - 1


class CriticalPaths:
    """The two lowest-count domains of one constraint. paths[0] always holds the minimum; the
    second entry is >= the first but not necessarily the true second minimum (as upstream)."""

    __slots__ = ("v0", "n0", "v1", "n1")

    def __init__(self, v0: str = "", n0: int = _MAX_INT32, v1: str = "", n1: int = _MAX_INT32) -> None:
        self.v0, self.n0, self.v1, self.n1 = v0, n0, v1, n1

    def update(self, tp_val: str, num: int) -> None:
        if tp_val == self.v0:
            self.n0 = num
            if self.n0 > self.n1:
                self.v0, self.n0, self.v1, self.n1 = self.v1, self.n1, self.v0, self.n0
        elif tp_val == self.v1:
            self.n1 = num
            if self.n0 > self.n1:
                self.v0, self.n0, self.v1, self.n1 = self.v1, self.n1, self.v0, self.n0
        elif num < self.n0:
            self.v1, self.n1 = self.v0, self.n0
            self.v0, self.n0 = tp_val, num
        elif num < self.n1:
            self.v1, self.n1 = tp_val, num

    def copy(self) -> CriticalPaths:
        return CriticalPaths(self.v0, self.n0, self.v1, self.n1)

    def as_tuple(self) -> tuple[tuple[str, int], tuple[str, int]]:
        return ((self.v0, self.n0), (self.v1, self.n1))

    def __repr__(self) -> str:
        return f"CriticalPaths({self.as_tuple()})"


class PreFilterState:
    """What Filter reads. An empty `constraints` list is a legitimate state that admits every node."""

    __slots__ = ("constraints", "critical_paths", "tp_value_to_match_num", "self_match")

    def __init__(self, constraints: list[SpreadConstraint] | None = None,
                 critical_paths: list[CriticalPaths] | None = None,
                 tp_value_to_match_num: list[dict[str, int]] | None = None,
                 self_match: list[int] | None = None) -> None:
        self.constraints = constraints or []
        self.critical_paths = critical_paths or []
        self.tp_value_to_match_num = tp_value_to_match_num or []
        # Whether the incoming pod matches each constraint's own selector (1/0): its labels
        # don't change during the cycle, so it is computed once instead of per node.
        self.self_match = self_match or []

    def min_match_num(self, i: int, min_domains: int) -> int:
        """Global minimum for constraint i; 0 while fewer domains than minDomains are eligible."""
        if len(self.tp_value_to_match_num[i]) < min_domains:
            return 0
        return self.critical_paths[i].n0

    def clone(self) -> PreFilterState:
        return PreFilterState(
            self.constraints,  # shared: never mutated
            [p.copy() for p in self.critical_paths],
            [dict(m) for m in self.tp_value_to_match_num],
            self.self_match,
        )


class FilteringMixin:
    """PreFilter, PreFilterExtensions and Filter of PodTopologySpread (mixed into the plugin)."""

    comparison_operators: bool = False  # set by the plugin from its gates
    node_inclusion_policy: bool = True
    use_kept_counts = True  # (ScoringMixin's, the same switch)

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        try:
            s = self._cal_pre_filter_state(pod, nodes)
        except SelectorError as e:
            return None, Status.error(f"get constraints from pod: obtaining pod's hard topology spread "
                                      f"constraints: {e}")
        if not s.constraints:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    def pre_filter_extensions(self):  # noqa: ANN201 - returns self (PreFilterExtensions)
        return self

    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo,
                node_info: NodeInfo) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return Status.error(f"reading {PRE_FILTER_STATE_KEY!r} from cycleState: not found")
        self._update_with_pod(s, pod_info_to_add.pod, pod_to_schedule, node_info.node, 1)
        return None

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return Status.error(f"reading {PRE_FILTER_STATE_KEY!r} from cycleState: not found")
        self._update_with_pod(s, pod_info_to_remove.pod, pod_to_schedule, node_info.node, -1)
        return None

    def _update_with_pod(self, s: PreFilterState, updated: Pod, preemptor: Pod, node: Node | None,
                         delta: int) -> None:
        if s is None or updated.namespace != preemptor.namespace or node is None:
            return
        labels = node.labels
        if not node_labels_match_spread_constraints(labels, s.constraints):
            return
        required = RequiredNodeAffinity(preemptor)
        pod_labels = updated.labels
        for i, c in enumerate(s.constraints):
            if not c.selector.matches(pod_labels):
                continue
            if not c.match_node_inclusion_policies(preemptor, node, required, self.comparison_operators):
                continue
            v = labels[c.topology_key]
            m = s.tp_value_to_match_num[i]
            m[v] = m.get(v, 0) + delta
            s.critical_paths[i].update(v, m[v])

    def _cal_pre_filter_state(self, pod: Pod, all_nodes: list[NodeInfo]) -> PreFilterState:
        constraints = self._get_constraints(pod)
        if not constraints:
            return PreFilterState()
        n_c = len(constraints)
        tp_counts = self._kept_counts(pod, constraints, all_nodes)
        if tp_counts is None:
            tp_counts = self._walk_counts(pod, constraints, all_nodes)
        paths = []
        for i in range(n_c):
            cp = CriticalPaths()
            for value, num in tp_counts[i].items():
                cp.update(value, num)
            paths.append(cp)
        self_match = [1 if c.selector.matches(pod.labels) else 0 for c in constraints]
        return PreFilterState(constraints, paths, tp_counts, self_match)

    def _kept_counts(self, pod: Pod, constraints: list[SpreadConstraint],
                     all_nodes: list[NodeInfo]) -> list[dict[str, int]] | None:
        """_walk_counts from the snapshot's kept counts, or None when they cannot stand in for it
        exactly: the walk's node tests must pass on every node carrying the topology labels (no
        required node affinity under nodeAffinityPolicy Honor, no tainted node under
        nodeTaintsPolicy Honor), and with several topology keys every node must carry all of
        them; `all_nodes` must be the snapshot's node list the counts follow."""
        snap = getattr(self.handle, "snapshot", None)
        if (not self.use_kept_counts or getattr(snap, "spread_counts", None) is None
                or all_nodes is not snap.node_info_list):
            return None
        keys = kept_count_keys(snap, pod, constraints, all_nodes, require_all=True)
        if keys is None:
            return None
        index = snap.spread_counts
        tp_counts = []
        for i, c in enumerate(constraints):
            sums = index.sums_for(keys[i], c.topology_key)
            tp_counts.append({v: sums.get(v, 0) for v in index.value_order(c.topology_key, all_nodes)})
        return tp_counts

    def _walk_counts(self, pod: Pod, constraints: list[SpreadConstraint],
                     all_nodes: list[NodeInfo]) -> list[dict[str, int]]:
        """Per constraint, the matching pods per topology value of the eligible nodes, counted
        from every node's pods (values in the order the node list first shows them)."""
        n_c = len(constraints)
        tp_counts: list[dict[str, int]] = [{} for _ in range(n_c)]
        required = RequiredNodeAffinity(pod)
        ns = pod.namespace
        for ni in all_nodes:
            node = ni.node
            labels = node.labels
            if not node_labels_match_spread_constraints(labels, constraints):
                continue
            pods = ni.pods
            for i, c in enumerate(constraints):
                if not c.match_node_inclusion_policies(pod, node, required, self.comparison_operators):
                    continue
                value = labels[c.topology_key]
                cnt = count_pods_match_selector(pods, c.selector, ns)
                m = tp_counts[i]
                m[value] = m.get(value, 0) + cnt
        return tp_counts

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        s: PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return Status.error(f"reading {PRE_FILTER_STATE_KEY!r} from cycleState: not found")
        constraints = s.constraints
        if not constraints:
            return None
        labels = node_info.node.labels
        for i, c in enumerate(constraints):
            tp_val = labels.get(c.topology_key)
            if tp_val is None:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_NODE_LABEL_NOT_MATCH)
            match_num = s.tp_value_to_match_num[i].get(tp_val, 0)
            skew = match_num + s.self_match[i] - s.min_match_num(i, c.min_domains)
            if skew > c.max_skew:
                return Status(Code.UNSCHEDULABLE, ERR_REASON_CONSTRAINTS_NOT_MATCH)
        return None
