"""Scaling a Deployment during a run: its current ReplicaSet's controller adds or deletes pods.

Scale-up creates pods from the ReplicaSet's template with generated names (seeded by the
ReplicaSet and the action's index, so a replayed run creates the same names), admitted as any
added pod. Scale-down deletes the pods upstream's ReplicaSet controller would (getPodsToDelete /
ActivePodsWithRanks): unscheduled before scheduled, Pending before Running, lower
controller.kubernetes.io/pod-deletion-cost first, pods doubled up on a node with more of the
set's pods first, then the newest first.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.types import Pod
from scheduler_core.controllers.workloads.naming import NameGenerator, pods_prefix
from scheduler_core.controllers.workloads.summary import ScaleTarget
from scheduler_core.controllers.workloads.template import owner_reference, pod_from_template

DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
_PHASE_ORDER = {"Pending": 0, "Unknown": 1, "Running": 2}


def owned_pods(pods: list[Pod], target: ScaleTarget) -> list[Pod]:
    """The active pods the ReplicaSet controls."""
    return [p for p in pods if p.namespace == target.namespace and p.deletion_timestamp is None
            and any(o.controller and o.kind == "ReplicaSet" and o.name == target.replica_set
                    for o in p.owner_references)]


def _cost(p: Pod) -> int:
    try:
        return int(p.annotations.get(DELETION_COST, "0"))
    except ValueError:
        return 0


def pods_to_delete(pods: list[Pod], count: int) -> list[Pod]:
    """The `count` pods upstream's ranking deletes first."""
    per_node: dict[str, int] = {}
    for p in pods:
        if p.node_name:
            per_node[p.node_name] = per_node.get(p.node_name, 0) + 1

    def rank(p: Pod) -> tuple[Any, ...]:
        return (bool(p.node_name), _PHASE_ORDER.get(p.phase, 2) if p.node_name else 0, _cost(p),
                -per_node.get(p.node_name, 0), -p.creation_time, -p.creation_index)

    return sorted(pods, key=rank)[:max(0, count)]


def pods_to_create(target: ScaleTarget, count: int, taken: set[str], seed: str) -> list[dict[str, Any]]:
    """`count` Pod manifests from the ReplicaSet's template, named `<rs>-<5 characters>`."""
    gen = NameGenerator(seed, taken)
    prefix = pods_prefix(target.replica_set)
    owner = owner_reference("apps/v1", "ReplicaSet", target.replica_set, target.replica_set_uid)
    return [pod_from_template(target.template, name=gen.generate(prefix), namespace=target.namespace,
                              owner=owner, generate_name=prefix) for _ in range(max(0, count))]
