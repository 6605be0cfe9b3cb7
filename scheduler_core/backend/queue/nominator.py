"""Pods nominated to nodes (upstream `backend/queue/nominator.go`).

A preemptor that evicted victims on a node is "nominated" there until it binds: while it waits,
Filter for other pods of equal or lower priority on that node accounts for it as if it were
already running, so the room made for it is not taken by someone else. Per node, nominated pods
keep the order in which they were nominated.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from scheduler_core.api.types import Pod
from scheduler_core.backend.queue.active_queue import pod_uid
from scheduler_core.framework.types import PodInfo


class NominatingMode:
    NOOP = 0  # keep whatever pod.status.nominatedNodeName says
    OVERRIDE = 1  # use NominatingInfo.nominated_node_name


@dataclass
class NominatingInfo:
    nominated_node_name: str = ""
    nominating_mode: int = NominatingMode.NOOP

    def mode(self) -> int:
        return self.nominating_mode


def nominating_mode(ni: NominatingInfo | None) -> int:
    """fwk.NominatingInfo.Mode(): a nil info means Noop."""
    return NominatingMode.NOOP if ni is None else ni.nominating_mode


@dataclass(frozen=True)
class PodRef:
    name: str
    namespace: str
    uid: str

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def to_pod(self) -> Pod:
        """A metadata-only pod, as upstream builds from a podRef (no spec: priority 0)."""
        return Pod(name=self.name, namespace=self.namespace, uid=self.uid)


class Nominator:
    """nominatedPods: node -> {uid: PodRef} in nomination order; nominatedPodToNode: uid -> node.
    (Upstream keeps a list per node and scans it; a dict keyed by uid keeps the same order and
    finds a pod at once: every pod whose preemption found nothing stays under the empty node
    name, so in a cluster with thousands of unschedulable pods that list is thousands long.)

    `pod_lister(namespace, name) -> Pod | None`, when set, is consulted on nomination: a pod that
    no longer exists or already has a node is not nominated (upstream's podLister check).
    """

    def __init__(self, pod_lister: Callable[[str, str], Pod | None] | None = None) -> None:
        self.pod_lister = pod_lister
        self.nominated_pods: dict[str, dict[str, PodRef]] = {}
        self.nominated_pod_to_node: dict[str, str] = {}

    def add_nominated_pod(self, pod_info: PodInfo, nominating_info: NominatingInfo | None = None) -> None:
        pod = pod_info.pod
        # Never keep two entries for one pod.
        self._delete(pod)
        mode = nominating_mode(nominating_info)
        if mode == NominatingMode.OVERRIDE:
            node_name = nominating_info.nominated_node_name  # type: ignore[union-attr]
        elif mode == NominatingMode.NOOP:
            if not pod.nominated_node_name:
                return
            node_name = pod.nominated_node_name
        else:
            node_name = ""
        if self.pod_lister is not None:
            current = self.pod_lister(pod.namespace, pod.name)
            if current is None or current.node_name:
                return
        uid = pod_uid(pod)
        self.nominated_pod_to_node[uid] = node_name
        refs = self.nominated_pods.setdefault(node_name, {})
        if uid not in refs:
            refs[uid] = PodRef(pod.name, pod.namespace, uid)

    def update_nominated_pod(self, old_pod: Pod, new_pod_info: PodInfo) -> None:
        """Re-register the pod under its new object; a nomination made in memory survives an
        update that carries no nominatedNodeName on either side."""
        ni = None
        if not old_pod.nominated_node_name and not new_pod_info.pod.nominated_node_name:
            nnn = self.nominated_pod_to_node.get(pod_uid(old_pod))
            if nnn is not None:
                ni = NominatingInfo(nnn, NominatingMode.OVERRIDE)
        self._delete(old_pod)
        self.add_nominated_pod(new_pod_info, ni)

    def delete_nominated_pod_if_exists(self, pod: Pod) -> None:
        self._delete(pod)

    def _delete(self, pod: Pod) -> None:
        uid = pod_uid(pod)
        nnn = self.nominated_pod_to_node.get(uid)
        if nnn is None:
            return
        refs = self.nominated_pods.get(nnn)
        if refs is not None and refs.pop(uid, None) is not None and not refs:
            del self.nominated_pods[nnn]
        del self.nominated_pod_to_node[uid]

    def has_node_nominations(self) -> bool:
        """Whether some pod is nominated to a real node. A pod whose preemption found no
        candidate is kept under the empty node name (upstream stores it so too: PostFilter's
        "clear the nomination" is an override with ""), but no node is named "", so such an
        entry never adds a pod to any node's Filter: only the other entries make filtering
        take nominated pods into account."""
        return len(self.nominated_pods) > ("" in self.nominated_pods)

    def nominated_refs_for_node(self, node_name: str) -> list[PodRef]:
        refs = self.nominated_pods.get(node_name)
        return list(refs.values()) if refs else []

    def nominated_node_for(self, pod: Pod) -> str | None:
        return self.nominated_pod_to_node.get(pod_uid(pod))

    def __getstate__(self) -> dict:
        # The lister is a callback into the caller's world: re-attach it after unpickling.
        return {"nominated_pods": self.nominated_pods, "nominated_pod_to_node": self.nominated_pod_to_node}

    def __setstate__(self, state: dict) -> None:
        self.pod_lister = None
        self.nominated_pods = state["nominated_pods"]
        self.nominated_pod_to_node = state["nominated_pod_to_node"]
