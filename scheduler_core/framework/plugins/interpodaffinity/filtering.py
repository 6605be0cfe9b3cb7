"""InterPodAffinity PreFilter/Filter: required pod affinity and anti-affinity, both directions.

PreFilter counts, per (topologyKey, value) pair, (a) existing pods whose required anti-affinity
terms match the incoming pod, (b) existing pods matching all of the incoming pod's required
affinity terms, (c) existing pods matching each of its required anti-affinity terms. Filter then
answers per node from the node's labels alone.

The counts are read from what the snapshot keeps (`use_kept_counts`): (a) from the existing
pods' terms summed per group of alike terms (backend/cache/affinity_counts.py), (b) and (c) from
the matching-pod counts per topology value (backend/cache/spread_counts.py) when the incoming
terms have no namespace selector; otherwise every node's pods are walked.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.types import LabelSelector, Node, Pod
from scheduler_core.backend.cache.affinity_counts import selector_ident
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import SKIP, Code, Status
from scheduler_core.framework.types import AffinityTerm, NodeInfo, PodInfo, PreFilterResult

NAME = "InterPodAffinity"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME

ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"

TopologyPair = tuple[str, str]


class NamespaceLabels:
    """Namespace labels looked up once per namespace and cycle (upstream lists namespaces)."""

    __slots__ = ("_cluster", "_cache")

    def __init__(self, cluster: object) -> None:
        self._cluster = cluster
        self._cache: dict[str, dict[str, str]] = {}

    def get(self, ns: str) -> dict[str, str]:
        labels = self._cache.get(ns)
        if labels is None:
            labels = self._cluster.namespace_labels(ns) if self._cluster is not None else {}
            self._cache[ns] = labels
        return labels


class IncomingTerm:
    """An affinity term of the pod being scheduled, with its namespaceSelector resolved.

    Upstream unrolls a non-empty namespaceSelector into the term's namespace set by listing the
    namespaces it selects (mergeAffinityTermNamespacesIfNotEmpty); here the selector is checked
    against a candidate pod's namespace labels on demand, which selects the same pods. A nil
    selector adds no namespace, an empty one selects every namespace.
    """

    __slots__ = ("namespaces", "selector", "topology_key", "ns_selector", "ns_all", "_ns_labels")

    def __init__(self, term: AffinityTerm, ns_labels: NamespaceLabels) -> None:
        self.namespaces = term.namespaces
        self.selector: LabelSelector | None = term.selector
        self.topology_key = term.topology_key
        nss = term.namespace_selector
        self.ns_all = nss is not None and nss.is_empty()
        self.ns_selector = None if (nss is None or self.ns_all) else nss
        self._ns_labels = ns_labels

    def matches(self, pod: Pod) -> bool:
        if pod.namespace in self.namespaces or self.ns_all:
            pass
        elif self.ns_selector is None or not self.ns_selector.matches(self._ns_labels.get(pod.namespace)):
            return False
        return self.selector is not None and self.selector.matches(pod.labels)

    def __repr__(self) -> str:
        return f"IncomingTerm({self.topology_key!r}, ns={sorted(self.namespaces)}, {self.selector})"


class IncomingPod:
    """The pod being scheduled with its terms resolved (upstream's fresh PodInfo for the cycle)."""

    __slots__ = ("pod", "required_affinity_terms", "required_anti_affinity_terms",
                 "preferred_affinity_terms", "preferred_anti_affinity_terms")

    def __init__(self, pod: Pod, ns_labels: NamespaceLabels) -> None:
        pi = PodInfo(pod)
        self.pod = pod
        self.required_affinity_terms = [IncomingTerm(t, ns_labels) for t in pi.required_affinity_terms]
        self.required_anti_affinity_terms = [IncomingTerm(t, ns_labels) for t in pi.required_anti_affinity_terms]
        self.preferred_affinity_terms = [(IncomingTerm(w.term, ns_labels), w.weight)
                                         for w in pi.preferred_affinity_terms]
        self.preferred_anti_affinity_terms = [(IncomingTerm(w.term, ns_labels), w.weight)
                                              for w in pi.preferred_anti_affinity_terms]


def pod_matches_all_affinity_terms(terms: list, pod: Pod) -> bool:
    """True iff there is at least one term and the pod matches every one."""
    if not terms:
        return False
    for t in terms:
        if not t.matches(pod):
            return False
    return True


def _update(m: dict[TopologyPair, int], node: Node, tk: str, value: int) -> None:
    tv = node.labels.get(tk)
    if tv is not None:
        pair = (tk, tv)
        n = m.get(pair, 0) + value
        if n == 0:
            m.pop(pair, None)
        else:
            m[pair] = n


def _update_with_affinity_terms(m: dict[TopologyPair, int], terms: list[IncomingTerm], pod: Pod, node: Node,
                                value: int) -> None:
    if pod_matches_all_affinity_terms(terms, pod):
        for t in terms:
            _update(m, node, t.topology_key, value)


def _update_with_existing_anti_affinity_terms(m: dict[TopologyPair, int], terms: list[AffinityTerm], pod: Pod,
                                              ns_labels: dict[str, str] | None, node: Node, value: int) -> None:
    """An existing pod's anti-affinity terms against the incoming pod (its namespace's labels)."""
    for t in terms:
        if t.matches(pod, ns_labels):
            _update(m, node, t.topology_key, value)


def _update_with_anti_affinity_terms(m: dict[TopologyPair, int], terms: list[IncomingTerm], pod: Pod, node: Node,
                                     value: int) -> None:
    """The incoming pod's anti-affinity terms against another pod."""
    for t in terms:
        if t.matches(pod):
            _update(m, node, t.topology_key, value)


class PreFilterState:
    """Counts per topology pair; clone() copies them for preemption dry runs."""

    __slots__ = ("existing_anti_affinity_counts", "affinity_counts", "anti_affinity_counts", "pod_info",
                 "namespace_labels")

    def __init__(self) -> None:
        self.existing_anti_affinity_counts: dict[TopologyPair, int] = {}
        self.affinity_counts: dict[TopologyPair, int] = {}
        self.anti_affinity_counts: dict[TopologyPair, int] = {}
        self.pod_info: IncomingPod | None = None
        self.namespace_labels: dict[str, str] = {}

    def clone(self) -> PreFilterState:
        c = PreFilterState()
        c.existing_anti_affinity_counts = dict(self.existing_anti_affinity_counts)
        c.affinity_counts = dict(self.affinity_counts)
        c.anti_affinity_counts = dict(self.anti_affinity_counts)
        c.pod_info = self.pod_info
        c.namespace_labels = self.namespace_labels
        return c

    def update_with_pod(self, pinfo: PodInfo, node: Node | None, multiplier: int) -> None:
        if node is None:
            return
        incoming = self.pod_info
        _update_with_existing_anti_affinity_terms(self.existing_anti_affinity_counts,
                                                  pinfo.required_anti_affinity_terms, incoming.pod,
                                                  self.namespace_labels, node, multiplier)
        _update_with_affinity_terms(self.affinity_counts, incoming.required_affinity_terms, pinfo.pod, node,
                                    multiplier)
        _update_with_anti_affinity_terms(self.anti_affinity_counts, incoming.required_anti_affinity_terms,
                                         pinfo.pod, node, multiplier)


def satisfy_existing_pods_anti_affinity(s: PreFilterState, node: Node) -> bool:
    counts = s.existing_anti_affinity_counts
    if counts:
        for pair in node.labels.items():
            if counts.get(pair, 0) > 0:
                return False
    return True


def satisfy_pod_anti_affinity(s: PreFilterState, node: Node) -> bool:
    counts = s.anti_affinity_counts
    if counts:
        labels = node.labels
        for t in s.pod_info.required_anti_affinity_terms:
            tv = labels.get(t.topology_key)
            if tv is not None and counts.get((t.topology_key, tv), 0) > 0:
                return False
    return True


def satisfy_pod_affinity(s: PreFilterState, node: Node) -> bool:
    pods_exist = True
    labels = node.labels
    counts = s.affinity_counts
    terms = s.pod_info.required_affinity_terms
    for t in terms:
        tv = labels.get(t.topology_key)
        if tv is None:
            return False  # every topology label must exist on the node
        if counts.get((t.topology_key, tv), 0) <= 0:
            pods_exist = False
    if not pods_exist:
        # The first pod of a group with affinity to itself: let it in when no pod anywhere matches
        # the terms and the pod matches all of them itself.
        return not counts and pod_matches_all_affinity_terms(terms, s.pod_info.pod)
    return True


class _AllOf:
    """Label selectors that must all match (the incoming pod's required affinity terms)."""

    __slots__ = ("selectors",)

    def __init__(self, selectors: list[LabelSelector]) -> None:
        self.selectors = selectors

    def matches(self, labels: dict[str, str]) -> bool:
        for sel in self.selectors:
            if not sel.matches(labels):
                return False
        return True


def _kept_key(index: Any, terms: list[IncomingTerm], snap: Any) -> int | None:
    """The key, in the snapshot's kept counts, of the pods matching every one of `terms` (pods
    being deleted included, as the walk counts them), or None when not indexed."""
    namespaces: frozenset[str] | None = None
    for t in terms:
        if not t.ns_all:
            own = frozenset(t.namespaces)
            namespaces = own if namespaces is None else namespaces & own
    ident = ("pod-affinity", tuple((t.ns_all, tuple(sorted(t.namespaces)), selector_ident(t.selector))
                                   for t in terms))
    return index.key_for(ident, namespaces, _AllOf([t.selector for t in terms]), True, snap.node_info_list,
                         snap.generation)


def _add_sums(out: dict[TopologyPair, int], sums: dict[str | None, int], tk: str) -> None:
    for tv, n in sums.items():
        if tv is not None and n:
            pair = (tk, tv)
            out[pair] = out.get(pair, 0) + n


class FilteringMixin:
    """PreFilter, PreFilterExtensions and Filter of InterPodAffinity (mixed into the plugin)."""

    # Whether PreFilter/PreScore may read the snapshot's kept counts (False: always walk the
    # pods, the reference the equivalence tests compare against).
    use_kept_counts = True

    def _kept_incoming_counts(
        self, pi: IncomingPod, all_nodes: list[NodeInfo],
    ) -> tuple[dict[TopologyPair, int], dict[TopologyPair, int]] | None:
        """_incoming_affinity_anti_affinity_counts from the snapshot's kept counts, or None when
        they cannot stand in for the walk (a namespace selector, a missing label selector, or
        `all_nodes` not the snapshot's node list)."""
        snap = getattr(self.handle, "snapshot", None)
        index = getattr(snap, "spread_counts", None)
        if index is None or not self.use_kept_counts or all_nodes is not snap.node_info_list:
            return None
        aff_terms = pi.required_affinity_terms
        anti_terms = pi.required_anti_affinity_terms
        for t in (*aff_terms, *anti_terms):
            if t.ns_selector is not None or t.selector is None:
                return None
        keys = []
        if aff_terms:
            k = _kept_key(index, aff_terms, snap)
            if k is None:
                return None
            keys.append(k)
        for t in anti_terms:
            k = _kept_key(index, [t], snap)
            if k is None:
                return None
            keys.append(k)
        affinity: dict[TopologyPair, int] = {}
        anti: dict[TopologyPair, int] = {}
        if aff_terms:
            k = keys.pop(0)
            for t in aff_terms:
                _add_sums(affinity, index.sums_for(k, t.topology_key), t.topology_key)
        for t, k in zip(anti_terms, keys, strict=True):
            _add_sums(anti, index.sums_for(k, t.topology_key), t.topology_key)
        return affinity, anti

    def _existing_anti_affinity_counts(self, pod: Pod, ns_labels: dict[str, str],
                                       nodes: list[NodeInfo]) -> dict[TopologyPair, int]:
        result: dict[TopologyPair, int] = {}
        for ni in nodes:
            labels = ni.node.labels
            for existing in ni.pods_with_required_anti_affinity:
                for t in existing.required_anti_affinity_terms:
                    if t.matches(pod, ns_labels):
                        tv = labels.get(t.topology_key)
                        if tv is not None:
                            pair = (t.topology_key, tv)
                            result[pair] = result.get(pair, 0) + 1
        return result

    def _incoming_affinity_anti_affinity_counts(
        self, pi: IncomingPod, all_nodes: list[NodeInfo],
    ) -> tuple[dict[TopologyPair, int], dict[TopologyPair, int]]:
        affinity: dict[TopologyPair, int] = {}
        anti: dict[TopologyPair, int] = {}
        aff_terms = pi.required_affinity_terms
        anti_terms = pi.required_anti_affinity_terms
        if not aff_terms and not anti_terms:
            return affinity, anti
        kept = self._kept_incoming_counts(pi, all_nodes)
        if kept is not None:
            return kept
        for ni in all_nodes:
            labels = ni.node.labels
            for existing in ni.pods:
                ep = existing.pod
                if aff_terms and pod_matches_all_affinity_terms(aff_terms, ep):
                    for t in aff_terms:
                        tv = labels.get(t.topology_key)
                        if tv is not None:
                            pair = (t.topology_key, tv)
                            affinity[pair] = affinity.get(pair, 0) + 1
                for t in anti_terms:
                    if t.matches(ep):
                        tv = labels.get(t.topology_key)
                        if tv is not None:
                            pair = (t.topology_key, tv)
                            anti[pair] = anti.get(pair, 0) + 1
        return affinity, anti

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        with_anti = self.handle.snapshot.have_pods_with_required_anti_affinity_list()
        if not with_anti and pod.affinity is None:
            # No existing pod has required anti-affinity and the pod has no terms: every count
            # below would be empty, so the state would end in Skip. Said without building it
            # (most pods of most clusters, every cycle).
            return None, SKIP
        s = PreFilterState()
        cluster = getattr(self.handle, "cluster", None)
        ns_cache = NamespaceLabels(cluster)
        s.pod_info = IncomingPod(pod, ns_cache)
        s.namespace_labels = ns_cache.get(pod.namespace)
        snap = self.handle.snapshot
        if self.use_kept_counts and hasattr(snap, "affinity_counts") and nodes is snap.node_info_list:
            s.existing_anti_affinity_counts = snap.affinity_counts.anti_affinity_counts(
                pod, s.namespace_labels, snap.node_info_list, snap.generation) if with_anti else {}
        else:
            s.existing_anti_affinity_counts = self._existing_anti_affinity_counts(pod, s.namespace_labels,
                                                                                  with_anti)
        s.affinity_counts, s.anti_affinity_counts = self._incoming_affinity_anti_affinity_counts(s.pod_info, nodes)
        if (not s.existing_anti_affinity_counts and not s.pod_info.required_affinity_terms
                and not s.pod_info.required_anti_affinity_terms):
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    def pre_filter_extensions(self):  # noqa: ANN201 - returns self (PreFilterExtensions)
        return self

    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo,
                node_info: NodeInfo) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return Status.error(f"error reading {PRE_FILTER_STATE_KEY!r} from cycleState: not found")
        s.update_with_pod(pod_info_to_add, node_info.node, 1)
        return None

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return Status.error(f"error reading {PRE_FILTER_STATE_KEY!r} from cycleState: not found")
        s.update_with_pod(pod_info_to_remove, node_info.node, -1)
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        s: PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return Status.error(f"error reading {PRE_FILTER_STATE_KEY!r} from cycleState: not found")
        node = node_info.node
        if not satisfy_pod_affinity(s, node):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_AFFINITY_RULES_NOT_MATCH)
        if not satisfy_pod_anti_affinity(s, node):
            return Status(Code.UNSCHEDULABLE, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
        if not satisfy_existing_pods_anti_affinity(s, node):
            return Status(Code.UNSCHEDULABLE, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
        return None
