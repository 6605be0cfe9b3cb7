"""A small fake framework Handle for plugin unit tests, plus terse builders for API objects.

`FakeSnapshot(pods, nodes)` places every pod with a node_name on its node (like upstream's
cache.NewSnapshot) and answers list()/get()/have_pods_with_*_list() in node order.
`FakeCluster` answers namespace labels (with the apiserver's kubernetes.io/metadata.name label)
and the Services / controllers of a namespace.
"""

from __future__ import annotations

from random import Random

from scheduler_core.api.types import (
    Affinity,
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PodAntiAffinity,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
    WorkloadSelector,
)
from scheduler_core.framework.types import NodeInfo, PodInfo


class FakeSnapshot:
    def __init__(self, pods: list[Pod] | None = None, nodes: list[Node] | None = None) -> None:
        self.node_infos: list[NodeInfo] = [NodeInfo(n) for n in nodes or []]
        self._by_name = {ni.name: ni for ni in self.node_infos}
        for p in pods or []:
            ni = self._by_name.get(p.node_name)
            if ni is not None:
                ni.add_pod(p)

    def list(self) -> list[NodeInfo]:
        return self.node_infos

    def get(self, node_name: str) -> NodeInfo | None:
        return self._by_name.get(node_name)

    def have_pods_with_affinity_list(self) -> list[NodeInfo]:
        return [ni for ni in self.node_infos if ni.pods_with_affinity]

    def have_pods_with_required_anti_affinity_list(self) -> list[NodeInfo]:
        return [ni for ni in self.node_infos if ni.pods_with_required_anti_affinity]


class FakeCluster:
    def __init__(self, namespaces: dict[str, dict[str, str]] | None = None,
                 workloads: list[WorkloadSelector] | None = None) -> None:
        self._namespaces = namespaces or {}
        self._workloads = workloads or []

    def namespace_labels(self, namespace: str) -> dict[str, str]:
        labels = dict(self._namespaces.get(namespace, {}))
        labels.setdefault("kubernetes.io/metadata.name", namespace)
        return labels

    def pdbs(self) -> list:
        return []

    def workload_selectors(self, namespace: str) -> list[WorkloadSelector]:
        return [w for w in self._workloads if w.namespace == namespace]

    def get_pod(self, namespace: str, name: str) -> Pod | None:
        return None


class FakeHandle:
    def __init__(self, snapshot: FakeSnapshot | None = None, cluster: FakeCluster | None = None) -> None:
        self.snapshot = snapshot or FakeSnapshot()
        self.cluster = cluster or FakeCluster()
        self.rng = Random(0)

    def now(self) -> float:
        return 0.0

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        return []


# ---- builders -------------------------------------------------------------------------------

def make_node(name: str, labels: dict[str, str] | None = None, taints: list[Taint] | None = None) -> Node:
    return Node(name=name, labels=dict(labels or {}), taints=list(taints or []))


def make_pod(name: str, *, ns: str = "default", node: str = "", labels: dict[str, str] | None = None,
             spread: list[TopologySpreadConstraint] | None = None, affinity: Affinity | None = None,
             node_selector: dict[str, str] | None = None, tolerations: list[Toleration] | None = None,
             terminating: bool = False, uid: str = "") -> Pod:
    return Pod(
        name=name, namespace=ns, uid=uid or f"uid-{ns}-{name}", node_name=node, labels=dict(labels or {}),
        topology_spread_constraints=list(spread or []), affinity=affinity,
        node_selector=dict(node_selector or {}), tolerations=list(tolerations or []),
        deletion_timestamp=1.0 if terminating else None,
    )


def exists(*keys: str) -> LabelSelector:
    return LabelSelector(match_expressions=[LabelSelectorRequirement(k, "Exists") for k in keys])


def match_labels(**kv: str) -> LabelSelector:
    return LabelSelector(match_labels=dict(kv))


def selector_in(key: str, *values: str) -> LabelSelector:
    return LabelSelector(match_expressions=[LabelSelectorRequirement(key, "In", tuple(values))])


def tsc(max_skew: int, key: str, when: str = "DoNotSchedule", selector: LabelSelector | None = None,
        min_domains: int | None = None, node_affinity_policy: str | None = None,
        node_taints_policy: str | None = None, match_label_keys: list[str] | None = None) -> TopologySpreadConstraint:
    return TopologySpreadConstraint(
        max_skew=max_skew, topology_key=key, when_unsatisfiable=when, label_selector=selector,
        min_domains=min_domains, node_affinity_policy=node_affinity_policy,
        node_taints_policy=node_taints_policy, match_label_keys=list(match_label_keys or []),
    )


def node_affinity_in(key: str, *values: str) -> Affinity:
    return Affinity(node_affinity=NodeAffinity(required=NodeSelector([
        NodeSelectorTerm(match_expressions=[NodeSelectorRequirement(key, "In", tuple(values))])])))


def term(selector: LabelSelector | None, key: str, namespaces: list[str] | None = None,
         namespace_selector: LabelSelector | None = None) -> PodAffinityTerm:
    return PodAffinityTerm(label_selector=selector, topology_key=key, namespaces=list(namespaces or []),
                           namespace_selector=namespace_selector)


def pod_affinity(required: list[PodAffinityTerm] | None = None,
                 preferred: list[tuple[int, PodAffinityTerm]] | None = None,
                 anti_required: list[PodAffinityTerm] | None = None,
                 anti_preferred: list[tuple[int, PodAffinityTerm]] | None = None,
                 base: Affinity | None = None) -> Affinity:
    a = base or Affinity()
    if required or preferred:
        a.pod_affinity = PodAffinity(
            required=list(required or []),
            preferred=[WeightedPodAffinityTerm(w, t) for w, t in preferred or []])
    if anti_required or anti_preferred:
        a.pod_anti_affinity = PodAntiAffinity(
            required=list(anti_required or []),
            preferred=[WeightedPodAffinityTerm(w, t) for w, t in anti_preferred or []])
    return a
