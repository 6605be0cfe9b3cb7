"""InterPodAffinity PreScore/Score/NormalizeScore: preferred pod (anti-)affinity, both directions.

Every (topologyKey, value) pair accumulates weights: + for each existing pod matching one of the
incoming pod's preferred affinity terms, - for its preferred anti-affinity terms, and likewise
for existing pods' preferred terms matching the incoming pod, plus `hardPodAffinityWeight` for an
existing pod's *required* affinity terms matching it. A node scores the sum over the pairs its
labels carry; NormalizeScore maps min..max onto 0..100.
"""

from __future__ import annotations

from scheduler_core.api.types import Node, Pod
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import MAX_NODE_SCORE
from scheduler_core.framework.plugins.interpodaffinity.filtering import IncomingPod, NamespaceLabels
from scheduler_core.framework.status import SKIP, Code, Status
from scheduler_core.framework.types import NodeInfo, NodeScore, PodInfo

NAME = "InterPodAffinity"
PRE_SCORE_STATE_KEY = "PreScore" + NAME

ScoreMap = dict[str, dict[str, int]]


class PreScoreState:
    """topologyKey -> value -> accumulated weight; read-only after PreScore, so clone() shares it."""

    __slots__ = ("topology_score", "pod_info", "namespace_labels")

    def __init__(self) -> None:
        self.topology_score: ScoreMap = {}
        self.pod_info: IncomingPod | None = None
        self.namespace_labels: dict[str, str] = {}

    def clone(self) -> PreScoreState:
        return self


def _add(m: ScoreMap, node: Node, tk: str, delta: int) -> None:
    tv = node.labels.get(tk)
    if tv is not None:
        d = m.get(tk)
        if d is None:
            d = m[tk] = {}
        d[tv] = d.get(tv, 0) + delta


class ScoringMixin:
    """PreScore, Score and NormalizeScore of InterPodAffinity (mixed into the plugin)."""

    def _process_existing_pod(self, s: PreScoreState, existing: PodInfo, node: Node, incoming: Pod,
                              m: ScoreMap) -> None:
        if not node.labels:
            return
        ep = existing.pod
        pi = s.pod_info
        for t, w in pi.preferred_affinity_terms:
            if t.matches(ep):
                _add(m, node, t.topology_key, w)
        for t, w in pi.preferred_anti_affinity_terms:
            if t.matches(ep):
                _add(m, node, t.topology_key, -w)
        ns_labels = s.namespace_labels
        hard = self.hard_pod_affinity_weight
        if hard > 0:
            for t in existing.required_affinity_terms:
                if t.matches(incoming, ns_labels):
                    _add(m, node, t.topology_key, hard)
        for wt in existing.preferred_affinity_terms:
            if wt.term.matches(incoming, ns_labels):
                _add(m, node, wt.term.topology_key, wt.weight)
        for wt in existing.preferred_anti_affinity_terms:
            if wt.term.matches(incoming, ns_labels):
                _add(m, node, wt.term.topology_key, -wt.weight)

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        snapshot = getattr(self.handle, "snapshot", None)
        if snapshot is None:
            return Status(Code.ERROR, "empty shared lister in InterPodAffinity PreScore")
        aff = pod.affinity
        has_pref_affinity = aff is not None and aff.pod_affinity is not None and bool(aff.pod_affinity.preferred)
        has_pref_anti = (aff is not None and aff.pod_anti_affinity is not None
                         and bool(aff.pod_anti_affinity.preferred))
        has_constraints = has_pref_affinity or has_pref_anti
        if self.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return SKIP
        # Without preferred terms of its own, only pods with affinity can contribute.
        all_nodes = snapshot.list() if has_constraints else snapshot.have_pods_with_affinity_list()
        if not all_nodes and aff is None:
            return SKIP  # no pod to score against: the topology score stays empty

        s = PreScoreState()
        ns_cache = NamespaceLabels(getattr(self.handle, "cluster", None))
        s.pod_info = IncomingPod(pod, ns_cache)
        s.namespace_labels = ns_cache.get(pod.namespace)
        if not has_constraints and self.use_kept_counts and hasattr(snapshot, "affinity_counts"):
            # Only the existing pods' terms count: their kept sums per topology pair.
            s.topology_score = snapshot.affinity_counts.score_map(
                pod, s.namespace_labels, self.hard_pod_affinity_weight, snapshot.node_info_list,
                snapshot.generation) if all_nodes else {}
            if not s.topology_score:
                return SKIP
            state.write(PRE_SCORE_STATE_KEY, s)
            return None
        m = s.topology_score
        for ni in all_nodes:
            node = ni.node
            for existing in (ni.pods if has_constraints else ni.pods_with_affinity):
                self._process_existing_pod(s, existing, node, pod, m)
        if not m:
            return SKIP
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        s: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return 0, Status.error(f"failed to read {PRE_SCORE_STATE_KEY!r} from cycleState: not found")
        labels = node_info.node.labels
        score = 0
        for tk, values in s.topology_score.items():
            v = labels.get(tk)
            if v is not None:
                score += values.get(v, 0)
        return score, None

    def score_extensions(self):  # noqa: ANN201 - returns self (ScoreExtensions)
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        s: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return Status.error(f"failed to read {PRE_SCORE_STATE_KEY!r} from cycleState: not found")
        if not s.topology_score:
            return None
        if not scores:
            return None
        min_count = min(ns.score for ns in scores)
        max_count = max(ns.score for ns in scores)
        diff = max_count - min_count
        for ns in scores:
            f = 0.0
            if diff > 0:
                f = float(MAX_NODE_SCORE) * (float(ns.score - min_count) / float(diff))
            ns.score = int(f)
        return None

    def normalize_score_values(self, state: CycleState, pod: Pod, scores: list[int]) -> Status | None:
        """normalize_score on the bare scores (node order), in place."""
        s: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return Status.error(f"failed to read {PRE_SCORE_STATE_KEY!r} from cycleState: not found")
        if not s.topology_score or not scores:
            return None
        min_count = min(scores)
        diff = max(scores) - min_count
        if diff > 0:
            fd = float(diff)
            scores[:] = [int(float(MAX_NODE_SCORE) * (float(sc - min_count) / fd)) for sc in scores]
        else:
            scores[:] = [0] * len(scores)
        return None
