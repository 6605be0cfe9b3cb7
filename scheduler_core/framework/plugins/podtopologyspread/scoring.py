"""PodTopologySpread PreScore/Score/NormalizeScore: the soft (ScheduleAnyway) constraints.

A node's raw score is, summed over constraints, `matching pods in its domain × log(domains + 2) +
(maxSkew - 1)`; fewer matching pods is better, so NormalizeScore inverts it onto 0..100. Hostname
domains are counted per node in Score (each node is its own domain). Nodes missing a topology key
are "ignored" and score 0 — except under system-default spreading, where a node without a zone
label may still be scored for hostname spreading.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from scheduler_core.api.types import LABEL_HOSTNAME, Pod
from scheduler_core.backend.cache.node_arrays import FEASIBLE_ROWS_KEY, NODE_ROWS_KEY, NodeRows
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import MAX_NODE_SCORE
from scheduler_core.framework.plugins.helper.selector_column import node_selector_column
from scheduler_core.framework.plugins.helper.spread import SelectorError
from scheduler_core.framework.plugins.podtopologyspread.common import (
    POLICY_HONOR,
    SCHEDULE_ANYWAY,
    RequiredNodeAffinity,
    SpreadConstraint,
    count_pods_match_selector,
    filter_topology_spread_constraints,
    kept_count_keys,
    node_labels_match_spread_constraints,
)
from scheduler_core.framework.status import SKIP, Status
from scheduler_core.framework.types import NodeInfo, NodeScore

NAME = "PodTopologySpread"
PRE_SCORE_STATE_KEY = "PreScore" + NAME
_INVALID_SCORE = -1
_INT64_SAFE = 1 << 50  # raw scores below this: 100 x (max + min - score) stays inside int64
_MIN_ROWS = 64  # fewer candidates than this: the per-node loop is quicker than the vectors


class PreScoreState:
    """What Score and NormalizeScore read; never mutated after PreScore, so clone() shares it."""

    __slots__ = ("constraints", "ignored_nodes", "topology_value_to_pod_counts", "topology_normalizing_weight",
                 "index_keys", "ignored_positions", "row_scores")

    def __init__(self) -> None:
        self.constraints: list[SpreadConstraint] = []
        self.ignored_nodes: set[str] = set()
        self.topology_value_to_pod_counts: list[dict[str, int]] = []
        self.topology_normalizing_weight: list[float] = []
        # The key of each constraint in the snapshot's spreading counts, when PreScore read them.
        self.index_keys: list[int] | None = None
        # Positions of the ignored nodes among those score_nodes scored (None: not scored yet).
        self.ignored_positions: list[int] | None = None
        # (the list score_nodes returned, the same scores as int64) when the vector path made
        # them: NormalizeScore then reads the array instead of converting the list back.
        self.row_scores: tuple[list[int], Any] | None = None

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

    # Whether PreScore/Score may read the snapshot's kept counts (False: always walk the nodes,
    # the reference the equivalence tests compare against).
    use_kept_counts = True
    comparison_operators: bool = False  # set by the plugin from its gates
    node_inclusion_policy: bool = True

    def _soft_constraints(self, pod: Pod) -> list[SpreadConstraint]:
        """The pod's ScheduleAnyway constraints, or the default ones when it declares none."""
        if pod.topology_spread_constraints:
            return filter_topology_spread_constraints(
                pod.topology_spread_constraints, pod.labels, SCHEDULE_ANYWAY, self.node_inclusion_policy)
        return self._build_default_constraints(pod, SCHEDULE_ANYWAY)

    def _init_domains(self, s: PreScoreState, filtered_nodes: list[NodeInfo], require_all_topologies: bool) -> None:
        """The candidate nodes' domains (count 0 each), the ignored nodes and the weights."""
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
        self._set_weights(s, topo_size, len(filtered_nodes))

    @staticmethod
    def _set_weights(s: PreScoreState, topo_size: list[int], num_filtered: int) -> None:
        weights = []
        for i, c in enumerate(s.constraints):
            sz = topo_size[i]
            if c.topology_key == LABEL_HOSTNAME:
                sz = num_filtered - len(s.ignored_nodes)
            weights.append(topology_normalizing_weight(sz))
        s.topology_normalizing_weight = weights

    def _init_domains_from_rows(self, s: PreScoreState, state: CycleState, filtered_nodes: list[NodeInfo],
                                index: Any, require_all: bool) -> bool:
        """_init_domains from the filter walk's rows and the kept label columns (the distinct
        values among the candidates' rows), when no candidate can be ignored: False otherwise."""
        snap = self.handle.snapshot
        found = state.get(FEASIBLE_ROWS_KEY)
        if (not isinstance(found, NodeRows) or found.nodes is not filtered_nodes or snap.arrays is None
                or found.arrays is not snap.arrays or len(filtered_nodes) < _MIN_ROWS):
            return False
        infos = snap.node_info_list
        if require_all and any(index.nodes_with_label(c.topology_key) != len(infos) for c in s.constraints):
            return False  # some candidate may lack a label and be ignored: the walk names them
        import numpy as np

        n_c = len(s.constraints)
        s.topology_value_to_pod_counts = [{} for _ in range(n_c)]
        topo_size = [0] * n_c
        for i, c in enumerate(s.constraints):
            if c.topology_key == LABEL_HOSTNAME:
                continue
            codes, _, values = index.value_column(c.topology_key, infos)
            m = s.topology_value_to_pod_counts[i]
            for code in np.unique(codes[found.idx]).tolist():
                m["" if code < 0 else values[code]] = 0
            topo_size[i] = len(m)
        self._set_weights(s, topo_size, len(filtered_nodes))
        return True

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        all_nodes = self.handle.snapshot.list()
        if not all_nodes:
            return SKIP
        s = PreScoreState()
        # Only non-system-default spreading requires every topology label, so that nodes without a
        # zone label still take part in hostname spreading under the system defaults.
        require_all = bool(pod.topology_spread_constraints) or not self.system_defaulted
        try:
            s.constraints = self._soft_constraints(pod)
        except SelectorError as e:
            return Status.error(f"calculating preScoreState: obtaining pod's soft topology spread "
                                f"constraints: {e}")
        if not s.constraints:
            return SKIP
        keys = self._index_keys(s, pod, all_nodes, require_all)
        if keys is not None:
            index = self.handle.snapshot.spread_counts
            if not self._init_domains_from_rows(s, state, nodes, index, require_all):
                self._init_domains(s, nodes, require_all)
            self._fill_from_index(s, index, keys, require_all)
            state.write(PRE_SCORE_STATE_KEY, s)
            return None
        # Each node's matching pods from the kept counts when they have the constraints' keys
        # (node_count: None for a NodeInfo they do not hold), else counted from its pods.
        node_keys = self._node_keys(s, pod, all_nodes)
        # The candidates' domains do not depend on the counts: from the filter walk's rows and
        # the kept label columns too (synced to this snapshot by _node_keys), when they are there
        # (a pod with a nodeSelector comes here with a few thousand candidates at 65,000 nodes).
        index = self.handle.snapshot.spread_counts if node_keys is not None else None
        if index is None or not self._init_domains_from_rows(s, state, nodes, index, require_all):
            self._init_domains(s, nodes, require_all)
        required = RequiredNodeAffinity(pod)
        ns = pod.namespace
        constraints = s.constraints
        counts = s.topology_value_to_pod_counts
        if node_keys is not None and self._count_rows(s, pod, all_nodes, node_keys, required, require_all):
            s.index_keys = node_keys
            state.write(PRE_SCORE_STATE_KEY, s)
            return None
        node_count = self.handle.snapshot.spread_counts.node_count if node_keys is not None else None
        for ni in all_nodes:
            node = ni.node
            labels = node.labels
            if require_all and not node_labels_match_spread_constraints(labels, constraints):
                continue
            for i, c in enumerate(constraints):
                m = counts[i]
                if not m:  # no candidate domain (or hostname: counted in Score)
                    continue
                value = labels.get(c.topology_key, "")
                if value not in m:  # no candidate node in this domain
                    continue
                if not c.match_node_inclusion_policies(pod, node, required, self.comparison_operators):
                    continue
                cnt = node_count(node_keys[i], ni) if node_count is not None else None
                if cnt is None:
                    cnt = count_pods_match_selector(ni.pods, c.selector, ns)
                m[value] += cnt
        # Score reads hostname counts from the kept counts too (the same numbers).
        s.index_keys = node_keys
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    def _count_rows(self, s: PreScoreState, pod: Pod, all_nodes: list[NodeInfo], node_keys: list[int],
                    required: RequiredNodeAffinity, require_all: bool) -> bool:
        """The walk below as vectors over the snapshot's node arrays, when a node's inclusion is
        a label test: the pod's required node affinity is at most a nodeSelector (its kept
        column, as NodeAffinity's Filter reads it) and no node is tainted under a constraint
        honouring taints. Each candidate domain gets the sum of the kept per-node counts over
        the included nodes with its value (a node without the label reads as ""), as the walk
        adds them node by node. False (nothing done) otherwise."""
        snap = self.handle.snapshot
        if all_nodes is not snap.node_info_list or required.node_selector is not None:
            return False
        if snap.num_tainted and any(c.node_taints_policy == POLICY_HONOR for c in s.constraints):
            return False
        arrays = snap.node_arrays()
        if arrays is None or arrays.nodes is not all_nodes:
            return False
        import numpy as np

        index = snap.spread_counts
        selected = None
        if required.label_selector is not None and any(c.node_affinity_policy == POLICY_HONOR
                                                       for c in s.constraints):
            selected = node_selector_column(arrays, required.label_selector, slice(None))
            if selected is None:
                return False
        base = np.ones(len(all_nodes), dtype=bool)
        if require_all:
            for c in s.constraints:
                base &= index.value_column(c.topology_key, all_nodes)[0] >= 0
        for i, c in enumerate(s.constraints):
            m = s.topology_value_to_pod_counts[i]
            if not m:  # no candidate domain (or hostname: counted in Score)
                continue
            included = base & selected if selected is not None and c.node_affinity_policy == POLICY_HONOR else base
            codes, code_of, values = index.value_column(c.topology_key, all_nodes)
            counts = index.count_column(node_keys[i], all_nodes)
            per_code = np.bincount(codes[included] + 1, weights=counts[included], minlength=len(values) + 1)
            for value in m:
                code = code_of.get(value)
                total = per_code[code + 1] if code is not None else 0.0
                if value == "":
                    total += per_code[0]
                m[value] += int(total)
        return True

    def _node_keys(self, s: PreScoreState, pod: Pod, all_nodes: list[NodeInfo]) -> list[int] | None:
        """The constraints' keys in the snapshot's kept counts, for per-node counts only (the
        kept sums may not stand in for the walk), or None when some constraint has none."""
        snap = self.handle.snapshot
        index = getattr(snap, "spread_counts", None)
        if index is None or not self.use_kept_counts or all_nodes is not snap.node_info_list:
            return None
        if any(c.selector.empty() for c in s.constraints):
            return None
        keys = []
        for c in s.constraints:
            k = index.key(pod.namespace, c.selector, all_nodes, snap.generation)
            if k is None:
                return None
            keys.append(k)
        return keys

    def _index_keys(self, s: PreScoreState, pod: Pod, all_nodes: list[NodeInfo],
                    require_all: bool) -> list[int] | None:
        """The constraints' keys in the snapshot's kept counts (spread_counts.py), or None when
        those counts cannot stand in exactly for walking every node's pods.

        The kept sums cover every node carrying the label, so they equal the walk's sums when
        every node passes the walk's own tests: the pod's required node affinity is none (or
        no constraint honours it), no node is tainted (or no constraint honours taints), and,
        when every topology label is required, every node carries all of them (with a single
        label, the nodes without it are simply the value None, never read)."""
        if not self.use_kept_counts:
            return None
        return kept_count_keys(self.handle.snapshot, pod, s.constraints, all_nodes, require_all)

    @staticmethod
    def _fill_from_index(s: PreScoreState, index: Any, keys: list[int], require_all: bool) -> None:
        """The candidate domains' counts, read from the kept sums."""
        counts = s.topology_value_to_pod_counts
        for i, c in enumerate(s.constraints):
            m = counts[i]
            if not m:
                continue  # hostname spreading (counted in Score), or no candidate domain
            sums = index.sums_for(keys[i], c.topology_key)
            missing = 0 if require_all else sums.get(None, 0)
            for value in m:
                m[value] = sums.get(value, 0) + (missing if value == "" else 0)
        s.index_keys = keys

    def score_nodes(self, state: CycleState, pod: Pod,
                    nodes: list[NodeInfo]) -> tuple[list[int] | None, Status | None]:
        """Score for every node at once; hostname counts from the kept counts when PreScore
        used them (the same numbers Score counts from each node's pods)."""
        s: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return None, Status.error(f"error reading {PRE_SCORE_STATE_KEY!r} from cycleState: not found")
        ignored = s.ignored_nodes
        # Which of these nodes are ignored, for normalize_score_values (it sees no names).
        s.ignored_positions = [j for j, ni in enumerate(nodes) if ni.name in ignored] if ignored else []
        if s.index_keys is None:
            return super().score_nodes(state, pod, nodes)  # type: ignore[misc]
        snap = self.handle.snapshot
        index = snap.spread_counts
        rows = state.get(NODE_ROWS_KEY)
        if not ignored and isinstance(rows, NodeRows) and rows.arrays is snap.arrays:
            return self._score_rows(s, index, snap.node_info_list, rows.idx, len(nodes)), None
        ns = pod.namespace
        plan = []
        for i, c in enumerate(s.constraints):
            hostname = c.topology_key == LABEL_HOSTNAME
            plan.append((c.topology_key, hostname, s.index_keys[i], c.selector, c.max_skew - 1,
                         s.topology_normalizing_weight[i], s.topology_value_to_pod_counts[i]))
        out = []
        node_count = index.node_count
        for ni in nodes:
            if ignored and ni.name in ignored:
                out.append(0)
                continue
            labels = ni.node.labels
            score = 0.0
            for tk, hostname, k, selector, extra, weight, m in plan:
                tp_val = labels.get(tk)
                if tp_val is None:
                    continue
                if hostname:
                    cnt = node_count(k, ni)
                    if cnt is None:
                        cnt = count_pods_match_selector(ni.pods, selector, ns)
                else:
                    cnt = m.get(tp_val, 0)
                score += cnt * weight + extra
            out.append(_round_half_away(score))
        return out, None

    @staticmethod
    def _score_rows(s: PreScoreState, index: Any, infos: list[NodeInfo], idx: Any, n: int) -> list[int]:
        """score_nodes for the fast path's rows of the snapshot's node list, as vectors: the same
        float operations in the same order per node (a missing label adds 0.0, which changes no
        sum), rounded half up as Score rounds its non-negative sums. Keeps the int64 scores
        in `s.row_scores` for normalize_score_values."""
        import numpy as np

        assert s.index_keys is not None
        total = np.zeros(n, dtype=np.float64)
        for i, c in enumerate(s.constraints):
            weight = s.topology_normalizing_weight[i]
            extra = c.max_skew - 1
            codes, code_of, _ = index.value_column(c.topology_key, infos)
            picked = codes[idx]
            present = picked >= 0
            if c.topology_key == LABEL_HOSTNAME:
                part = index.count_column(s.index_keys[i], infos)[idx] * weight + extra
            else:
                m = s.topology_value_to_pod_counts[i]
                table = [0.0] * max(1, len(code_of) - 1)
                for value, code in code_of.items():
                    if code >= 0:
                        table[code] = m.get(value, 0) * weight + extra  # type: ignore[arg-type]
                part = np.asarray(table, dtype=np.float64)[np.where(present, picked, 0)]
            total += np.where(present, part, 0.0)
        scores = np.floor(total + 0.5).astype(np.int64)
        out = scores.tolist()
        s.row_scores = (out, scores)
        return out

    def normalize_score_values(self, state: CycleState, pod: Pod, scores: list[int]) -> Status | None:
        """normalize_score on the bare scores when no node is ignored (the usual case)."""
        s: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return Status.error(f"error reading {PRE_SCORE_STATE_KEY!r} from cycleState: not found")
        if not scores:
            return None
        ignored = s.ignored_positions
        if ignored is None:
            return Status.error("normalizing scores that score_nodes did not compute")
        if ignored:
            skip = set(ignored)
            kept = [x for j, x in enumerate(scores) if j not in skip]
        else:
            skip = set()
            kept = scores
        # The vector Score's own int64 scores, when these are the very scores it returned.
        made = s.row_scores[1] if s.row_scores is not None and s.row_scores[0] is scores and not skip else None
        if made is not None:
            min_score = int(made.min())
            max_score = max(0, int(made.max()))
        else:
            min_score = min(kept) if kept else 0
            max_score = max(0, max(kept)) if kept else 0
        if max_score == 0:
            out = [MAX_NODE_SCORE] * len(scores)
        elif made is not None and max_score < _INT64_SAFE:
            out = (MAX_NODE_SCORE * (max_score + min_score - made) // max_score).tolist()
        elif len(scores) >= _MIN_ROWS and max_score < _INT64_SAFE and (np := sys.modules.get("numpy")) is not None:
            # The same integer arithmetic on int64, when the vector paths have loaded NumPy.
            base = max_score + min_score
            out = (MAX_NODE_SCORE * (base - np.asarray(scores, dtype=np.int64)) // max_score).tolist()
        else:
            base = max_score + min_score
            out = [MAX_NODE_SCORE * (base - x) // max_score for x in scores]
        for j in skip:
            out[j] = 0
        scores[:] = out
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
