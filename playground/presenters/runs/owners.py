"""Pods grouped by owner, as `kubectl get` users think of them: a Deployment's pods together
(through its ReplicaSet), then each StatefulSet, DaemonSet, Job or bare ReplicaSet, and the pods
nobody owns as one group of their own.

The engine's view gives each pod its controller (`owner`, "Kind/name" from its ownerReferences)
and the Deployments it can scale with their current ReplicaSet (`deployments`); a ReplicaSet that
is no Deployment's current one is shown as itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

BARE = "bare"


@dataclass(frozen=True)
class OwnerGroup:
    """One owner's pods: `key` is stable ("Deployment/shop/web", "bare"); `counts` per status."""

    key: str
    kind: str  # Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, ... or "" for bare pods
    name: str
    via: str  # the ReplicaSet between a Deployment and its pods ("" otherwise)
    size: int
    counts: tuple[tuple[str, int], ...]

    @property
    def label(self) -> str:
        return f"{self.kind} {self.name}" if self.kind else "Pods without an owner"


def replica_set_owners(view: dict[str, Any]) -> dict[tuple[str, str], tuple[str, str]]:
    """(namespace, ReplicaSet) -> (namespace, Deployment) for each scalable Deployment."""
    return {(d["namespace"], d["replicaSet"]): (d["namespace"], d["name"]) for d in view.get("deployments") or []}


def owner_of(pod: dict[str, Any], rs_owners: dict[tuple[str, str], tuple[str, str]]) -> tuple[str, str, str, str]:
    """(group key, kind, name, via) of one pod of the view."""
    owner = pod.get("owner")
    if not owner or "/" not in owner:
        return BARE, "", "", ""
    kind, name = owner.split("/", 1)
    namespace = str(pod.get("key", "")).split("/", 1)[0]
    if kind == "ReplicaSet" and (namespace, name) in rs_owners:
        _, deployment = rs_owners[(namespace, name)]
        return f"Deployment/{namespace}/{deployment}", "Deployment", deployment, name
    return f"{kind}/{namespace}/{name}", kind, name, ""


def group_pods(view: dict[str, Any], pods: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, OwnerGroup]]:
    """`pods` ordered by group (groups in order of their first pod, bare pods last; a stable sort,
    so pods keep their order within a group), and each group by key. No group has a pod twice."""
    rs_owners = replica_set_owners(view)
    keys: dict[str, tuple[str, str, str]] = {}
    members: dict[str, list[dict[str, Any]]] = {}
    bare = (BARE, "", "", "")
    seen: dict[tuple[str, str], tuple[str, str, str, str]] = {}  # (owner, namespace) -> its group
    for pod in pods:  # every pod of the run on every render: the common cases stay cheap
        owner = pod.get("owner")
        if not owner:
            key, kind, name, via = bare
        else:
            namespace = str(pod.get("key", "")).split("/", 1)[0]
            found = seen.get((owner, namespace))
            if found is None:
                found = seen[(owner, namespace)] = owner_of(pod, rs_owners)
            key, kind, name, via = found
        if key not in members:
            keys[key] = (kind, name, via)
            members[key] = []
        members[key].append(pod)
    order = [k for k in keys if k != BARE] + ([BARE] if BARE in keys else [])
    groups = {}
    for key in order:
        kind, name, via = keys[key]
        counts: dict[str, int] = {}
        for pod in members[key]:
            counts[pod.get("status", "")] = counts.get(pod.get("status", ""), 0) + 1
        groups[key] = OwnerGroup(key, kind, name, via, len(members[key]), tuple(sorted(counts.items())))
    return [pod for key in order for pod in members[key]], groups


def rows_with_headers(
    page_items: list[dict[str, Any]], groups: dict[str, OwnerGroup], view: dict[str, Any]
) -> list[dict[str, Any]]:
    """The page's pods with a header row before each group's first pod on the page
    ({"group": OwnerGroup} or {"pod": pod})."""
    rs_owners = replica_set_owners(view)
    rows: list[dict[str, Any]] = []
    current = None
    for pod in page_items:
        key = owner_of(pod, rs_owners)[0]
        if key != current:
            rows.append({"group": groups[key]})
            current = key
        rows.append({"pod": pod})
    return rows
