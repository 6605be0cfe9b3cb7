"""The InterPodAffinity plugin: construction, args and queueing hints.

It decides where a pod may and prefers to go relative to pods already running: required pod
affinity (some pod matching all terms in the node's domain — or, for the first pod of a group
matching its own terms, none anywhere), required anti-affinity in both directions (the incoming
pod's terms, and existing pods' terms against the incoming pod), and preferred terms of both for
scoring. Args: `hardPodAffinityWeight` (default 1, 0..100) scores existing pods' required
affinity terms; `ignorePreferredTermsOfExistingPods` (default false).
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.types import Node, Pod
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
from scheduler_core.framework.plugins.interpodaffinity.filtering import FilteringMixin
from scheduler_core.framework.plugins.interpodaffinity.scoring import ScoringMixin
from scheduler_core.framework.types import (
    ActionType,
    AffinityTerm,
    ClusterEvent,
    EventResource,
    PodInfo,
    QueueingHint,
)

NAME = "InterPodAffinity"

_MIN_HARD_POD_AFFINITY_WEIGHT = 0
_MAX_HARD_POD_AFFINITY_WEIGHT = 100


def _matches_all(terms: list[AffinityTerm], pod: Pod) -> bool:
    """podMatchesAllAffinityTerms on unmerged terms, as the queueing hints call it (no namespace
    labels: a namespaceSelector is matched against an empty label set)."""
    if not terms:
        return False
    return all(t.matches(pod, None) for t in terms)


class InterPodAffinity(FilteringMixin, ScoringMixin, PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin,
                       EnqueueExtensions):
    """Required and preferred inter-pod (anti-)affinity (see the module docstring)."""

    name = NAME
    filter_reads_only = True  # Filter keeps nothing per node

    def __init__(self, args: dict[str, Any] | None = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        args = args or {}
        w = args.get("hardPodAffinityWeight")
        if w is None:
            w = 1
        if isinstance(w, bool) or not isinstance(w, int):
            raise PluginArgsError(f"{NAME}: hardPodAffinityWeight: Invalid value: {w!r}: must be an integer")
        if w < _MIN_HARD_POD_AFFINITY_WEIGHT or w > _MAX_HARD_POD_AFFINITY_WEIGHT:
            raise PluginArgsError(f"{NAME}: hardPodAffinityWeight: Invalid value: {w}: not in valid range "
                                  f"[{_MIN_HARD_POD_AFFINITY_WEIGHT}, {_MAX_HARD_POD_AFFINITY_WEIGHT}]")
        self.hard_pod_affinity_weight: int = w
        self.ignore_preferred_terms_of_existing_pods: bool = bool(args.get("ignorePreferredTermsOfExistingPods",
                                                                           False))

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # With queueing hints (always on in v1.35) Node/UpdateNodeTaint is not registered.
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE),
                self.is_schedulable_after_pod_change),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
                self.is_schedulable_after_node_change),
        ]

    def is_schedulable_after_pod_change(self, pod: Pod, old: Pod | None, new: Pod | None) -> int:
        if (new is not None and new.node_name == "") or (old is not None and old.node_name == ""):
            return QueueingHint.SKIP
        pi = PodInfo(pod)
        terms = pi.required_affinity_terms
        anti_terms = pi.required_anti_affinity_terms
        if new is not None and old is not None:
            if not _matches_all(terms, old) and _matches_all(terms, new):
                return QueueingHint.QUEUE
            if _matches_all(anti_terms, old) and not _matches_all(anti_terms, new):
                return QueueingHint.QUEUE
            return QueueingHint.SKIP
        if new is not None:
            return QueueingHint.QUEUE if _matches_all(terms, new) else QueueingHint.SKIP
        if old is None or not _matches_all(anti_terms, old):
            return QueueingHint.SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_node_change(self, pod: Pod, old: Node | None, new: Node | None) -> int:
        pi = PodInfo(pod)
        for t in pi.required_affinity_terms:
            if old is None:
                if new is not None and t.topology_key in new.labels:
                    return QueueingHint.QUEUE
                continue
            if new is None:
                continue
            o = old.labels.get(t.topology_key)
            n = new.labels.get(t.topology_key)
            if o is None and n is not None:
                return QueueingHint.QUEUE
            if o is not None and n is not None and o != n:
                return QueueingHint.QUEUE
        for t in pi.required_anti_affinity_terms:
            if old is None:
                return QueueingHint.QUEUE
            if new is None:
                continue
            o = old.labels.get(t.topology_key)
            n = new.labels.get(t.topology_key)
            if o is not None and n is None:
                return QueueingHint.QUEUE
            if o is not None and n is not None and o != n:
                return QueueingHint.QUEUE
        return QueueingHint.SKIP

    def sign_pod(self, pod: Pod) -> dict[str, Any]:
        """This plugin's fragments of the pod's batching signature (upstream SignPod)."""
        a = pod.affinity
        if a is not None and (a.pod_affinity is not None or a.pod_anti_affinity is not None):
            raise signing.Unsignable("pods with InterPodAffinity are not signable")
        if self.ignore_preferred_terms_of_existing_pods:
            return {}
        return {"labels": tuple(sorted(pod.labels.items()))}
