"""Pod helpers the strategies share (upstream pkg/descheduler/pod, pkg/utils): QoS class,
the low-to-high priority order evictions go in, namespace filters, taint checks."""

from __future__ import annotations

from collections.abc import Iterable

from scheduler_core.api.types import Pod, Taint

_QOS_ORDER = {"BestEffort": 0, "Burstable": 1, "Guaranteed": 2}


def qos_class(pod: Pod) -> str:
    """v1qos.GetPodQOS over cpu and memory."""
    containers = [*pod.init_containers, *pod.containers]
    any_set = False
    guaranteed = True
    for c in containers:
        for name in ("cpu", "memory"):
            req, lim = c.requests.get(name), c.limits.get(name)
            if req or lim:
                any_set = True
            if not lim or req != lim:
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def sort_pods_by_priority_low_to_high(pods: list[Pod]) -> list[Pod]:
    """SortPodsBasedOnPriorityLowToHigh: lower priority first; equal priority by QoS,
    BestEffort, then Burstable, then Guaranteed (a stable sort keeps the node's order)."""
    return sorted(pods, key=lambda p: (p.priority, _QOS_ORDER[qos_class(p)]))


def in_namespaces(pod: Pod, namespaces: tuple[tuple[str, ...], tuple[str, ...]] | None) -> bool:
    if namespaces is None:
        return True
    include, exclude = namespaces
    if include and pod.namespace not in include:
        return False
    return pod.namespace not in exclude


def tolerates_taints(pod: Pod, taints: Iterable[Taint], effects: tuple[str, ...] = ("NoSchedule", "NoExecute")) -> bool:
    """TolerationsTolerateTaintsWithFilter: every taint of those effects is tolerated."""
    return all(any(t.tolerates_taint(taint) for t in pod.tolerations)
               for taint in taints if taint.effect in effects)


def pod_tolerates_taints_of_any(pod: Pod, taints_by_node: dict[str, list[Taint]]) -> bool:
    """utils.PodToleratesTaints: the pod tolerates the NoSchedule/NoExecute taints of at least
    one of the nodes (no node: false)."""
    return any(tolerates_taints(pod, taints) for taints in taints_by_node.values())
