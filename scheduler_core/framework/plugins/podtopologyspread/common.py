"""Shared pieces of PodTopologySpread: the parsed constraint, node eligibility, pod counting.

A pod's `topologySpreadConstraints` are parsed once per extension point into `SpreadConstraint`
(selector resolved, matchLabelKeys merged in, minDomains and the node inclusion policies
defaulted). Only the constraints of one `whenUnsatisfiable` kind are kept: DoNotSchedule ones
filter, ScheduleAnyway ones score.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from scheduler_core.api.types import Node, Pod, TopologySpreadConstraint
from scheduler_core.framework.plugins.helper.nodeaffinity import RequiredNodeAffinity
from scheduler_core.framework.plugins.helper.spread import Selector
from scheduler_core.framework.plugins.helper.taint import (
    do_not_schedule_taints_filter_func,
    find_matching_untolerated_taint,
)
from scheduler_core.framework.types import PodInfo

__all__ = [
    "RequiredNodeAffinity",  # re-exported for the filtering/scoring modules
    "SpreadConstraint",
    "filter_topology_spread_constraints",
    "node_labels_match_spread_constraints",
    "count_pods_match_selector",
    "pod_labels_match_spread_constraints",
]

DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
POLICY_HONOR = "Honor"
POLICY_IGNORE = "Ignore"


class SpreadConstraint:
    """Upstream's internal topologySpreadConstraint: a v1 constraint with its selector parsed."""

    __slots__ = ("max_skew", "topology_key", "selector", "min_domains", "node_affinity_policy",
                 "node_taints_policy")

    def __init__(self, max_skew: int, topology_key: str, selector: Selector, min_domains: int = 1,
                 node_affinity_policy: str = POLICY_HONOR, node_taints_policy: str = POLICY_IGNORE) -> None:
        self.max_skew = max_skew
        self.topology_key = topology_key
        self.selector = selector
        self.min_domains = min_domains
        self.node_affinity_policy = node_affinity_policy
        self.node_taints_policy = node_taints_policy

    def match_node_inclusion_policies(self, pod: Pod, node: Node, required: RequiredNodeAffinity,
                                      comparison_operators: bool = False) -> bool:
        """Whether `node` counts as a domain member for this constraint: with nodeAffinityPolicy
        Honor it must satisfy the pod's nodeSelector/required node affinity, with
        nodeTaintsPolicy Honor the pod must tolerate its NoSchedule/NoExecute taints (Gt/Lt
        tolerations count only with TaintTolerationComparisonOperators, as in TaintToleration)."""
        if self.node_affinity_policy == POLICY_HONOR and not required.match(node):
            return False
        if self.node_taints_policy == POLICY_HONOR and has_untolerated_do_not_schedule_taint(
                node, pod, comparison_operators):
            return False
        return True

    def _key(self) -> tuple:
        return (self.max_skew, self.topology_key, self.selector, self.min_domains,
                self.node_affinity_policy, self.node_taints_policy)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SpreadConstraint):
            return NotImplemented
        return self._key() == other._key()

    def __repr__(self) -> str:
        return (f"SpreadConstraint(maxSkew={self.max_skew}, key={self.topology_key!r}, {self.selector!r}, "
                f"minDomains={self.min_domains}, affinity={self.node_affinity_policy}, "
                f"taints={self.node_taints_policy})")


_DO_NOT_SCHEDULE_TAINTS = do_not_schedule_taints_filter_func()


def has_untolerated_do_not_schedule_taint(node: Node, pod: Pod, comparison_operators: bool = False) -> bool:
    """v1helper.FindMatchingUntoleratedTaint restricted to NoSchedule/NoExecute taints."""
    if not node.taints:
        return False
    return find_matching_untolerated_taint(node.taints, pod.tolerations, _DO_NOT_SCHEDULE_TAINTS,
                                           comparison_operators) is not None


def filter_topology_spread_constraints(
    constraints: Iterable[TopologySpreadConstraint], pod_labels: Mapping[str, str], action: str,
    node_inclusion_policy: bool = True,
) -> list[SpreadConstraint]:
    """The constraints whose whenUnsatisfiable is `action`, parsed. matchLabelKeys add the pod's own
    values for those keys to the selector (keys the pod lacks are ignored); a missing selector
    stays Nothing. Raises SelectorError on an unparsable selector.

    `node_inclusion_policy` (NodeInclusionPolicyInPodTopologySpread) off: every constraint gets
    the default policies (node affinity honoured, taints ignored), as upstream's gate-off path."""
    result = []
    for c in constraints:
        if c.when_unsatisfiable != action:
            continue
        selector = Selector.from_label_selector(c.label_selector)
        if c.match_label_keys:
            match = {k: pod_labels[k] for k in c.match_label_keys if k in pod_labels}
            if match and not selector.nothing:
                selector = Selector.from_set(match).add(selector)
        result.append(SpreadConstraint(
            max_skew=c.max_skew,
            topology_key=c.topology_key,
            selector=selector,
            min_domains=c.min_domains if c.min_domains is not None else 1,
            node_affinity_policy=(c.node_affinity_policy if node_inclusion_policy else None) or POLICY_HONOR,
            node_taints_policy=(c.node_taints_policy if node_inclusion_policy else None) or POLICY_IGNORE,
        ))
    return result


def node_labels_match_spread_constraints(node_labels: Mapping[str, str],
                                         constraints: Iterable[SpreadConstraint]) -> bool:
    """True when the node carries every constraint's topology key (an empty value counts)."""
    for c in constraints:
        if c.topology_key not in node_labels:
            return False
    return True


def count_pods_match_selector(pod_infos: Iterable[PodInfo], selector: Selector, ns: str) -> int:
    """Pods of namespace `ns` matching `selector`, skipping terminating ones. An Empty selector
    counts nothing (upstream's early return), unlike Nothing which simply matches nothing."""
    if selector.empty():
        return 0
    n = 0
    matches = selector.matches
    for pi in pod_infos:
        p = pi.pod
        if p.deletion_timestamp is not None or p.namespace != ns:
            continue
        if matches(p.labels):
            n += 1
    return n


def pod_labels_match_spread_constraints(constraints: Iterable[SpreadConstraint], labels: Mapping[str, str]) -> bool:
    for c in constraints:
        if c.selector.matches(labels):
            return True
    return False


def has_required_node_affinity(pod: Pod) -> bool:
    aff = pod.affinity
    na = aff.node_affinity if aff is not None else None
    return na is not None and na.required is not None


def kept_count_keys(snap: object, pod: Pod, constraints: list[SpreadConstraint], all_nodes: list,
                    require_all: bool) -> list[int] | None:
    """The constraints' keys in the snapshot's kept counts (backend/cache/spread_counts.py), or
    None when those counts cannot stand in exactly for walking every node's pods.

    The kept sums cover every node carrying the label, so they equal the walk's sums when every
    node passes the walk's own tests: the pod's required node affinity is none (or no constraint
    honours it), no node is tainted (or no constraint honours taints), and, with `require_all`
    (every topology label required), every node carries all of them."""
    index = getattr(snap, "spread_counts", None)
    if index is None:
        return None
    if any(c.selector.empty() for c in constraints):
        return None
    if (pod.node_selector or has_required_node_affinity(pod)) and any(
            c.node_affinity_policy == POLICY_HONOR for c in constraints):
        return None
    if snap.num_tainted and any(c.node_taints_policy == POLICY_HONOR for c in constraints):  # type: ignore[attr-defined]
        return None
    keys = []
    for c in constraints:
        k = index.key(pod.namespace, c.selector, all_nodes, snap.generation)  # type: ignore[attr-defined]
        if k is None:
            return None
        keys.append(k)
    if require_all:
        topology_keys = {c.topology_key for c in constraints}
        if len(topology_keys) > 1 and any(index.nodes_with_label(tk) != len(all_nodes) for tk in topology_keys):
            return None
    return keys
