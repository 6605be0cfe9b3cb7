"""NodeAffinity: `nodeSelector` and required node affinity decide which nodes are feasible
(UnschedulableAndUnresolvable otherwise); preferred terms add their weights to a node's score.

PreFilter narrows the node set when every required term pins `metadata.name` with matchFields In
(a PreFilterResult), and rejects the pod outright when those pins cannot intersect. Args
`addedAffinity` add a scheduler-enforced affinity to every pod of the profile.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.types import (
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PreferredSchedulingTerm,
)
from scheduler_core.backend.cache.node_arrays import NODE_ROWS_KEY, NodeRows
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import (
    MAX_NODE_SCORE,
    ClusterEventWithHint,
    EnqueueExtensions,
    FilterPlugin,
    PluginArgsError,
    PreFilterPlugin,
    PreScorePlugin,
    ScorePlugin,
)
from scheduler_core.framework.plugins import names
from scheduler_core.framework.plugins.helper import signing
from scheduler_core.framework.plugins.helper.nodeaffinity import (
    LazyErrorNodeSelector,
    NodeSelectorError,
    PreferredSchedulingTerms,
    RequiredNodeAffinity,
    new_node_selector,
)
from scheduler_core.framework.plugins.helper.normalize_score import (
    default_normalize_score,
    default_normalize_score_values,
)
from scheduler_core.framework.plugins.helper.selector_column import node_selector_column
from scheduler_core.framework.status import SKIP, Code, Status
from scheduler_core.framework.types import (
    ActionType,
    ClusterEvent,
    EventResource,
    NodeInfo,
    NodeScore,
    PreFilterResult,
    QueueingHint,
)

PRE_SCORE_STATE_KEY = "PreScore" + names.NODE_AFFINITY
PRE_FILTER_STATE_KEY = "PreFilter" + names.NODE_AFFINITY

ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"

OBJECT_NAME_FIELD = "metadata.name"


class _PreFilterState:
    __slots__ = ("required_node_selector_and_affinity",)

    def __init__(self, r: RequiredNodeAffinity) -> None:
        self.required_node_selector_and_affinity = r

    def clone(self) -> _PreFilterState:
        return self


class _PreScoreState:
    __slots__ = ("preferred_node_affinity",)

    def __init__(self, p: PreferredSchedulingTerms | None) -> None:
        self.preferred_node_affinity = p

    def clone(self) -> _PreScoreState:
        return self


def _get_pod_preferred_node_affinity(pod: Pod) -> PreferredSchedulingTerms | None:
    """Raises NodeSelectorError when a preferred term does not parse."""
    aff = pod.affinity
    if aff is not None and aff.node_affinity is not None and aff.node_affinity.preferred:
        return PreferredSchedulingTerms(aff.node_affinity.preferred)
    return None


class NodeAffinity(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions):
    name = names.NODE_AFFINITY
    filter_reads_only = True  # Filter keeps nothing per node

    def __init__(self, args: dict[str, Any] | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        self.added_node_selector: LazyErrorNodeSelector | None = None
        self.added_pref_sched_terms: PreferredSchedulingTerms | None = None
        added = (args or {}).get("addedAffinity")
        if added:
            path = "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution"
            req = added.get("requiredDuringSchedulingIgnoredDuringExecution")
            try:
                if req is not None:
                    self.added_node_selector = new_node_selector(_parse_node_selector(req), path)
                pref = added.get("preferredDuringSchedulingIgnoredDuringExecution")
                if pref:
                    path = "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution"
                    self.added_pref_sched_terms = PreferredSchedulingTerms(
                        [_parse_preferred_term(t) for t in pref], path
                    )
            except (NodeSelectorError, TypeError, ValueError, AttributeError, KeyError) as e:
                raise PluginArgsError(f"{self.name}: {e}") from e

    # --- PreFilter / Filter -------------------------------------------------------------------

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        aff = pod.affinity
        required = aff.node_affinity.required if aff is not None and aff.node_affinity is not None else None
        if required is None and self.added_node_selector is None and not pod.node_selector:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(RequiredNodeAffinity(pod)))
        if required is None or not required.node_selector_terms:
            return None, None

        node_names: set[str] | None = None
        for term in required.node_selector_terms:
            term_names: set[str] | None = None
            for r in term.match_fields:
                if r.key == OBJECT_NAME_FIELD and r.operator == "In":
                    s = set(r.values)
                    term_names = s if term_names is None else term_names & s
            if term_names is None:
                # A term without a metadata.name pin admits every node (terms are ORed).
                return None, None
            node_names = term_names if node_names is None else node_names | term_names
        if node_names is not None and not node_names:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_CONFLICT)
        if node_names:
            return PreFilterResult(node_names), None
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        node = node_info.node
        if self.added_node_selector is not None and not self.added_node_selector.match(node):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_ENFORCED)
        s = state.get(PRE_FILTER_STATE_KEY)
        required = s.required_node_selector_and_affinity if s is not None else RequiredNodeAffinity(pod)
        if not required.match(node):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_POD)
        return None

    def filter_nodes(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> list[Status | None]:
        """`filter` on every node; a pod with only a nodeSelector (the common case: required
        node affinity absent, no added selector) compares the selector's labels in one loop."""
        s = state.get(PRE_FILTER_STATE_KEY)
        if self.added_node_selector is not None or s is None:
            return super().filter_nodes(state, pod, nodes)
        required = s.required_node_selector_and_affinity
        pairs = required.label_selector
        if required.node_selector is not None or pairs is None:
            return super().filter_nodes(state, pod, nodes)
        rows = state.get(NODE_ROWS_KEY)
        if type(rows) is NodeRows and rows.nodes is nodes:
            out = self._filter_rows(rows, pairs)
            if out is not None:
                return out
        out = []
        append = out.append
        rejected = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        if len(pairs) == 1:
            ((key, value),) = pairs
            for ni in nodes:
                append(None if ni.node.labels.get(key) == value else Status(rejected, ERR_REASON_POD))
            return out
        for ni in nodes:
            labels = ni.node.labels
            for k, v in pairs:
                if labels.get(k) != v:
                    append(Status(rejected, ERR_REASON_POD))
                    break
            else:
                append(None)
        return out

    def _filter_rows(self, rows: NodeRows, pairs: tuple[tuple[str, str], ...]) -> list[Status | None] | None:
        """The nodeSelector test of the fast path's rows, from a column of every node's answer
        kept with the node arrays (a selector's answer changes only with a node's labels, so it
        is computed once per selector, then for the rows rewritten since). The nodes it rejects
        share one Status: the same code and reason on each, as upstream's per-node statuses
        read. None when the arrays cannot keep columns."""
        import numpy as np

        mask = node_selector_column(rows.arrays, pairs, rows.idx)
        if mask is None:
            return None
        st = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_POD)
        n = len(mask)
        # When few nodes are of one kind, the list is made of the other and those few are set
        # (a pod whose selector matches a small pool, or almost every node); else in NumPy.
        passing = int(np.count_nonzero(mask))
        if passing * 16 <= n:
            out: list[Status | None] = [st] * n
            for k in np.flatnonzero(mask).tolist():
                out[k] = None
            return out
        if (n - passing) * 16 <= n:
            out = [None] * n
            for k in np.flatnonzero(~mask).tolist():
                out[k] = st
            return out
        full = np.full(n, st, dtype=object)
        full[mask] = None
        return full.tolist()

    # --- PreScore / Score ---------------------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        try:
            preferred = _get_pod_preferred_node_affinity(pod)
        except NodeSelectorError as e:
            return Status.error(str(e))
        if preferred is None and self.added_pref_sched_terms is None:
            return SKIP
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(preferred))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        node = node_info.node
        count = 0
        if self.added_pref_sched_terms is not None:
            count += self.added_pref_sched_terms.score(node)
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            try:
                s = _PreScoreState(_get_pod_preferred_node_affinity(pod))
            except NodeSelectorError as e:
                return 0, Status.error(str(e))
        if s.preferred_node_affinity is not None:
            count += s.preferred_node_affinity.score(node)
        return count, None

    def score_extensions(self) -> NodeAffinity:
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        return default_normalize_score(MAX_NODE_SCORE, False, scores)

    def normalize_score_values(self, state: CycleState, pod: Pod, scores: list[int]) -> Status | None:
        return default_normalize_score_values(MAX_NODE_SCORE, False, scores)

    # --- Queueing -----------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
                self.is_schedulable_after_node_change,
            )
        ]

    def is_schedulable_after_node_change(self, pod: Pod, old: Node | None, new: Node) -> int:
        """Queue when a node is added matching the pod's required affinity, or an update makes a
        node newly match it."""
        if self.added_node_selector is not None and not self.added_node_selector.match(new):
            return QueueingHint.SKIP
        required = RequiredNodeAffinity(pod)
        if not required.match(new):
            return QueueingHint.SKIP
        if old is None:
            return QueueingHint.QUEUE
        if required.match(old):
            return QueueingHint.SKIP
        return QueueingHint.QUEUE

    def sign_pod(self, pod: Pod) -> dict[str, Any]:
        """This plugin's fragments of the pod's batching signature (upstream SignPod)."""
        return {"nodeAffinity": signing.node_affinity(pod),
                "nodeSelector": tuple(sorted(pod.node_selector.items()))}


# --- parsing args (camelCase YAML mappings) into API types -------------------------------------

def _parse_requirements(items: list[dict] | None) -> list[NodeSelectorRequirement]:
    out = []
    for r in items or []:
        out.append(NodeSelectorRequirement(key=r.get("key", ""), operator=r.get("operator", ""),
                                           values=tuple(str(v) for v in (r.get("values") or ()))))
    return out


def _parse_term(t: dict | None) -> NodeSelectorTerm:
    t = t or {}
    return NodeSelectorTerm(match_expressions=_parse_requirements(t.get("matchExpressions")),
                            match_fields=_parse_requirements(t.get("matchFields")))


def _parse_node_selector(ns: dict) -> NodeSelector:
    return NodeSelector(node_selector_terms=[_parse_term(t) for t in ns.get("nodeSelectorTerms") or []])


def _parse_preferred_term(t: dict) -> PreferredSchedulingTerm:
    return PreferredSchedulingTerm(weight=int(t.get("weight", 0)), preference=_parse_term(t.get("preference")))
