"""The PodTopologySpread plugin: construction, args, default constraints and queueing hints.

It decides whether placing a pod on a node keeps the pod's group evenly spread over topology
domains (zones, hosts, ...): DoNotSchedule constraints reject nodes whose domain would exceed
`maxSkew` over the least-loaded eligible domain; ScheduleAnyway constraints prefer nodes in
less-loaded domains. A pod without constraints gets the configured default ones — by default the
system defaults (hostname maxSkew 3, zone maxSkew 5, both ScheduleAnyway) — grouped by the
Services / controllers selecting it; a pod no such object selects gets none.
"""

from __future__ import annotations

import re
from typing import Any

from scheduler_core.api.types import (
    LABEL_HOSTNAME,
    LABEL_TOPOLOGY_ZONE,
    LabelSelector,
    Node,
    Pod,
    TopologySpreadConstraint,
)
from scheduler_core.featuregate.features import gates_of
from scheduler_core.framework.interface import (
    ClusterEventWithHint,
    EnqueueExtensions,
    FilterPlugin,
    Handle,
    PluginArgsError,
    PreFilterPlugin,
    PreScorePlugin,
    ScorePlugin,
)
from scheduler_core.framework.plugins.helper import signing
from scheduler_core.framework.plugins.helper.spread import default_selector
from scheduler_core.framework.plugins.podtopologyspread.common import (
    DO_NOT_SCHEDULE,
    POLICY_HONOR,
    POLICY_IGNORE,
    SCHEDULE_ANYWAY,
    SpreadConstraint,
    filter_topology_spread_constraints,
    node_labels_match_spread_constraints,
    pod_labels_match_spread_constraints,
)
from scheduler_core.framework.plugins.podtopologyspread.filtering import FilteringMixin
from scheduler_core.framework.plugins.podtopologyspread.scoring import ScoringMixin
from scheduler_core.framework.types import ActionType, ClusterEvent, EventResource, QueueingHint

NAME = "PodTopologySpread"

SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"

SYSTEM_DEFAULT_CONSTRAINTS: tuple[TopologySpreadConstraint, ...] = (
    TopologySpreadConstraint(max_skew=3, topology_key=LABEL_HOSTNAME, when_unsatisfiable=SCHEDULE_ANYWAY),
    TopologySpreadConstraint(max_skew=5, topology_key=LABEL_TOPOLOGY_ZONE, when_unsatisfiable=SCHEDULE_ANYWAY),
)

_QUALIFIED_NAME = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?\Z")
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")


def _label_name_errors(path: str, key: str) -> list[str]:
    """metav1validation.ValidateLabelName, reduced to its accept/reject decision."""
    prefix, _, name = key.rpartition("/")
    ok = bool(name) and len(name) <= 63 and bool(_QUALIFIED_NAME.match(name))
    if "/" in key:
        ok = ok and bool(prefix) and len(prefix) <= 253 and bool(_DNS_SUBDOMAIN.match(prefix))
    if ok:
        return []
    return [f'{path}: Invalid value: "{key}": name part must consist of alphanumeric characters, '
            "'-', '_' or '.', and must start and end with an alphanumeric character"]


def _parse_label_selector(raw: Any) -> LabelSelector | None:
    if raw is None:
        return None
    from scheduler_core.api.types import LabelSelectorRequirement

    return LabelSelector(
        match_labels=dict(raw.get("matchLabels") or {}),
        match_expressions=[
            LabelSelectorRequirement(e.get("key", ""), e.get("operator", ""), tuple(e.get("values") or ()))
            for e in raw.get("matchExpressions") or ()
        ],
    )


def parse_args(args: dict[str, Any] | None) -> tuple[list[TopologySpreadConstraint], str]:
    """PodTopologySpreadArgs with upstream's defaults (defaultingType System) and validation."""
    args = args or {}
    defaulting_type = args.get("defaultingType") or SYSTEM_DEFAULTING
    raw_constraints = args.get("defaultConstraints") or []
    errs: list[str] = []
    if defaulting_type not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
        errs.append(f'defaultingType: Unsupported value: "{defaulting_type}": supported values: '
                    f'"{SYSTEM_DEFAULTING}", "{LIST_DEFAULTING}"')
    elif defaulting_type == SYSTEM_DEFAULTING and raw_constraints:
        errs.append(f'defaultingType: Invalid value: "{defaulting_type}": when .defaultConstraints are not empty')
    constraints: list[TopologySpreadConstraint] = []
    if not isinstance(raw_constraints, list):
        raise PluginArgsError(f"{NAME}: defaultConstraints: must be a list")
    for i, raw in enumerate(raw_constraints):
        p = f"defaultConstraints[{i}]"
        max_skew = raw.get("maxSkew", 0)
        key = raw.get("topologyKey", "") or ""
        when = raw.get("whenUnsatisfiable", "") or ""
        if not isinstance(max_skew, int) or max_skew <= 0:
            errs.append(f"{p}.maxSkew: Invalid value: {max_skew}: not in valid range (0, inf)")
        if not key:
            errs.append(f"{p}.topologyKey: Required value: can not be empty")
        else:
            errs.extend(_label_name_errors(f"{p}.topologyKey", key))
        if not when:
            errs.append(f"{p}.whenUnsatisfiable: Required value: can not be empty")
        elif when not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
            errs.append(f'{p}.whenUnsatisfiable: Unsupported value: "{when}": supported values: '
                        f'"{DO_NOT_SCHEDULE}", "{SCHEDULE_ANYWAY}"')
        if raw.get("labelSelector") is not None:
            errs.append(f"{p}.labelSelector: Forbidden: constraint must not define a selector, as they deduced "
                        "for each pod")
        for j in range(i):
            other = raw_constraints[j]
            if other.get("topologyKey", "") == key and other.get("whenUnsatisfiable", "") == when:
                errs.append(f'defaultConstraints[{i}]: Duplicate value: "{{{key}, {when}}}"')
                break
        constraints.append(TopologySpreadConstraint(
            max_skew=max_skew if isinstance(max_skew, int) else 0,
            topology_key=key,
            when_unsatisfiable=when,
            label_selector=_parse_label_selector(raw.get("labelSelector")),
            min_domains=raw.get("minDomains"),
            node_affinity_policy=raw.get("nodeAffinityPolicy"),
            node_taints_policy=raw.get("nodeTaintsPolicy"),
            match_label_keys=list(raw.get("matchLabelKeys") or ()),
        ))
    if errs:
        msg = errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"
        raise PluginArgsError(f"{NAME}: {msg}")
    return constraints, defaulting_type


def _same_pod(a: Pod, b: Pod) -> bool:
    if a.uid or b.uid:
        return a.uid == b.uid
    return a.namespace == b.namespace and a.name == b.name


def involved_in_topology_spreading(incoming: Pod, pod_with_spreading: Pod) -> bool:
    """The changed pod can matter to the target's spreading: it is the target itself, or an
    assigned pod in the target's namespace."""
    return _same_pod(incoming, pod_with_spreading) or (
        incoming.node_name != "" and incoming.namespace == pod_with_spreading.namespace)


def has_constraint_with_node_taints_policy_honor(constraints: list[SpreadConstraint]) -> bool:
    return any(c.node_taints_policy == POLICY_HONOR for c in constraints)


def check_topology_key_labels_changed(original: dict[str, str], modified: dict[str, str],
                                      constraints: list[SpreadConstraint]) -> bool:
    return any(original.get(c.topology_key, "") != modified.get(c.topology_key, "") for c in constraints)


class PodTopologySpread(FilteringMixin, ScoringMixin, PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin,
                        EnqueueExtensions):
    """Spreads a group of pods over topology domains (see the module docstring)."""

    name = NAME
    filter_reads_only = True  # Filter keeps nothing per node

    def __init__(self, args: dict[str, Any] | None = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        constraints, defaulting_type = parse_args(args)
        self.default_constraints: list[TopologySpreadConstraint] | tuple = constraints
        self.system_defaulted = False
        if defaulting_type == SYSTEM_DEFAULTING:
            self.default_constraints = SYSTEM_DEFAULT_CONSTRAINTS
            self.system_defaulted = True
        # The whenUnsatisfiable values among them: most pods need no default constraints parsed.
        self.default_actions = frozenset(c.when_unsatisfiable for c in self.default_constraints)
        # TaintTolerationComparisonOperators (alpha): nodeTaintsPolicy Honor matches Gt/Lt too.
        gates = gates_of(handle)
        self.comparison_operators = bool(gates.overrides) and gates.enabled("TaintTolerationComparisonOperators")
        # NodeInclusionPolicyInPodTopologySpread: beta and on at v1.30 (settable), GA and locked on
        # since v1.33.
        self.node_inclusion_policy = not gates.overrides or gates.enabled("NodeInclusionPolicyInPodTopologySpread")

    # -- constraints ------------------------------------------------------------------------

    def _build_default_constraints(self, pod: Pod, action: str) -> list[SpreadConstraint]:
        """The default constraints of kind `action`, with the selector deduced from the Services and
        controllers selecting the pod; none when nothing selects it.

        The selector is found before the constraints are parsed: most pods of a cluster without
        Services or controllers have none, and then nothing needs parsing. The order changes no
        answer: default constraints cannot carry a selector (parse_args refuses one), so parsing
        them cannot fail, and finding the selector never fails."""
        if action not in self.default_actions:
            return []
        cluster = getattr(self.handle, "cluster", None)
        workloads = cluster.workload_selectors(pod.namespace) if cluster is not None else []
        if not workloads:
            return []  # no Service or controller in the namespace: default_selector is empty
        selector = default_selector(pod, workloads)
        if selector.empty():
            return []
        constraints = filter_topology_spread_constraints(self.default_constraints, pod.labels, action,
                                                         self.node_inclusion_policy)
        for c in constraints:
            c.selector = selector
        return constraints

    def _get_constraints(self, pod: Pod) -> list[SpreadConstraint]:
        """The pod's DoNotSchedule constraints, or the default ones when it declares none."""
        if pod.topology_spread_constraints:
            return filter_topology_spread_constraints(pod.topology_spread_constraints, pod.labels, DO_NOT_SCHEDULE,
                                                      self.node_inclusion_policy)
        return self._build_default_constraints(pod, DO_NOT_SCHEDULE)

    # -- queueing hints -----------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        pod_actions = ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.UPDATE_POD_TOLERATIONS | ActionType.DELETE
        node_actions = ActionType.ADD | ActionType.DELETE | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.POD, pod_actions), self.is_schedulable_after_pod_change),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, node_actions), self.is_schedulable_after_node_change),
        ]

    def is_schedulable_after_pod_change(self, pod: Pod, old: Pod | None, new: Pod | None) -> int:
        if (new is not None and not involved_in_topology_spreading(new, pod)) or (
                old is not None and not involved_in_topology_spreading(old, pod)):
            return QueueingHint.SKIP
        try:
            constraints = self._get_constraints(pod)
        except ValueError:
            return QueueingHint.QUEUE
        if new is not None and old is not None:
            if (_same_pod(pod, new) and new.tolerations != old.tolerations
                    and has_constraint_with_node_taints_policy_honor(constraints)):
                return QueueingHint.QUEUE
            if new.labels == old.labels:
                return QueueingHint.SKIP
            for c in constraints:
                if c.selector.matches(old.labels) != c.selector.matches(new.labels):
                    return QueueingHint.QUEUE
            return QueueingHint.SKIP
        if new is not None:
            return QueueingHint.QUEUE if pod_labels_match_spread_constraints(constraints, new.labels) \
                else QueueingHint.SKIP
        if old is not None and pod_labels_match_spread_constraints(constraints, old.labels):
            return QueueingHint.QUEUE
        return QueueingHint.SKIP

    def is_schedulable_after_node_change(self, pod: Pod, old: Node | None, new: Node | None) -> int:
        try:
            constraints = self._get_constraints(pod)
        except ValueError:
            return QueueingHint.QUEUE
        old_match = old is not None and node_labels_match_spread_constraints(old.labels, constraints)
        new_match = new is not None and node_labels_match_spread_constraints(new.labels, constraints)
        if old is not None and new is not None:
            if old_match != new_match:
                return QueueingHint.QUEUE
            if new_match and (check_topology_key_labels_changed(old.labels, new.labels, constraints)
                              or old.taints != new.taints):
                return QueueingHint.QUEUE
            return QueueingHint.SKIP
        if new is not None:
            return QueueingHint.QUEUE if new_match else QueueingHint.SKIP
        return QueueingHint.QUEUE if old_match else QueueingHint.SKIP

    def sign_pod(self, pod: Pod) -> dict[str, Any]:
        """This plugin's fragments of the pod's batching signature (upstream SignPod)."""
        if pod.topology_spread_constraints:
            raise signing.Unsignable("pods with topology constraints are not signable")
        if self.default_constraints:
            raise signing.Unsignable("pods with default topology constraints are not signable")
        return {}


__all__ = ["PodTopologySpread", "NAME", "SYSTEM_DEFAULT_CONSTRAINTS", "POLICY_IGNORE", "LIST_DEFAULTING"]
