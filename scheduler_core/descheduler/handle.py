"""What a descheduling pass sees of the run: its nodes, the pods bound to them, the PDBs and
PriorityClasses (upstream: frameworktypes.Handle over the descheduler's informers).

The pass reads the engine's API state (ClusterState), never the scheduler's cache: the
descheduler is another client of the API server.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from scheduler_core.api.types import Node, Pod
from scheduler_core.framework.plugins.helper.nodeaffinity import get_required_node_affinity
from scheduler_core.framework.types import pod_requests

from . import argsreader as ar

_NO_SCHEDULE = ("NoSchedule", "NoExecute")


class Handle:
    def __init__(self, scheduler: Any, node_selector: str = "") -> None:
        self.scheduler = scheduler
        cs = scheduler.cluster
        self.cluster = cs
        terms = ar.node_selector_text(node_selector, "nodeSelector", _never) if node_selector else ()
        self.nodes: list[Node] = [n for _, n in sorted(cs.nodes.items())
                                  if ar.selector_text_matches(terms, n.labels)]
        self.priority_classes = cs.priority_classes
        self._requested: dict[str, dict[str, Fraction]] = {}  # node -> summed requests (node fit)
        self._by_node: dict[str, list[Pod]] = {n.name: [] for n in cs.nodes.values()}
        for key in cs.all_pods:
            pod = cs.pods.get(key)
            rec = cs.records.get(key)
            if pod is not None and rec is not None and rec.status == "Bound" and rec.node in self._by_node:
                self._by_node[rec.node].append(pod)

    # ---- reading ------------------------------------------------------------------------------
    def pods_on(self, node_name: str) -> list[Pod]:
        """The pods bound to the node (terminating ones included, as a lister returns them)."""
        return list(self._by_node.get(node_name, ()))

    def node_of(self, pod: Pod) -> str:
        rec = self.cluster.records.get(pod.key)
        return (rec.node if rec is not None else None) or pod.node_name

    def pdbs_covering(self, pod: Pod) -> list[Any]:
        return [p for p in self.cluster.pdbs()
                if p.namespace == pod.namespace and p.selector is not None and p.selector.matches(pod.labels)]

    def owner_pod_count(self, pod: Pod) -> int:
        """Pods sharing the pod's controlling owner (minReplicas)."""
        ref = next((o for o in pod.owner_references if o.controller), None) or pod.owner_references[0]
        return sum(1 for p in self.cluster.pods.values()
                   if p.namespace == pod.namespace and any(o.kind == ref.kind and o.name == ref.name
                                                           for o in p.owner_references))

    def forget(self, pod: Pod, node_name: str) -> None:
        """An evicted pod leaves the pass's view of its node (a lister would drop it)."""
        pods = self._by_node.get(node_name)
        if pods is not None:
            self._by_node[node_name] = [p for p in pods if p.key != pod.key]
        self._requested.pop(node_name, None)

    # ---- node fit (upstream: nodeutil.PodFitsAnyOtherNode / PodFitsCurrentNode) ----------------
    def node_requested(self, node_name: str) -> dict[str, Fraction]:
        """What the node's pods request, summed once per pass (an eviction forgets the sum)."""
        total = self._requested.get(node_name)
        if total is None:
            total = {}
            for p in self._by_node.get(node_name, ()):
                for name, q in pod_requests(p).items():
                    total[name] = total.get(name, Fraction(0)) + q
            total["pods"] = Fraction(len(self._by_node.get(node_name, ())))
            self._requested[node_name] = total
        return total

    def placement_errors(self, pod: Pod, node: Node) -> list[str]:
        """Why the node would not admit the pod, resources aside: selector and required node
        affinity, NoSchedule/NoExecute taints, cordon."""
        errs: list[str] = []
        if not get_required_node_affinity(pod).match(node):
            errs.append("pod node selector does not match the node label")
        untolerated = [t for t in node.taints if t.effect in _NO_SCHEDULE
                       and not any(tol.tolerates_taint(t) for tol in pod.tolerations)]
        if untolerated:
            errs.append("pod does not tolerate taints on the node")
        if node.unschedulable:
            errs.append("node is not schedulable")
        return errs

    def fit_errors(self, pod: Pod, node: Node) -> list[str]:
        """Why the pod could not run on the node (empty: it fits), as upstream's NodeFit says."""
        errs = self.placement_errors(pod, node)
        if errs:
            return errs
        used = self.node_requested(node.name)
        alloc = node.allocatable
        for name, q in pod_requests(pod).items():
            if q and used.get(name, Fraction(0)) + q > alloc.get(name, Fraction(0)):
                errs.append(f"insufficient {name}")
        if used.get("pods", 0) + 1 > alloc.get("pods", Fraction(110)):
            errs.append("insufficient pods")
        return errs

    def pod_fits_any_other_node(self, pod: Pod, node_selector: str = "") -> bool:
        here = self.node_of(pod)
        terms = ar.node_selector_text(node_selector, "nodeSelector", _never) if node_selector else ()
        return any(n.name != here and ar.selector_text_matches(terms, n.labels) and not self.fit_errors(pod, n)
                   for n in self.nodes)


def _never(path: str, reason: str) -> Exception:  # selectors were checked when the policy loaded
    return ValueError(f"{path}: {reason}")
