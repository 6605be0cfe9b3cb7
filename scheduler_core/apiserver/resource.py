"""The simulated API server's ResourceClaim writes, each followed by the informer handler the
scheduler runs for it (upstream: the ResourceClaim informer feeding the assume cache and the
scheduling queue).

Writers: the resourceclaim controller (claims from templates, reservations dropped and claims
deallocated or deleted when their pod goes) and the DynamicResources plugin (PreBind's allocation
and reservation, Unreserve, PostFilter's deallocation; with DRAExtendedResource also the creation
and deletion of a pod's special claim). Every write is a `resource_claim` event in the run's
stream, and the ResourceClaim Add/Update cluster event the queue's hints look at. The pod status
patch that names the special claim (`status.extendedResourceClaimStatus`) is kept in the
cluster's table; the pod is assumed then, so upstream's queue ignores that update too.

`ResourceAPIServer` is a part of `APIServer` (apiserver/server.py), beside `StorageAPI`.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.framework.types import ActionType, ClusterEvent, EventResource

__all__ = ["ResourceAPIServer", "EVENT_CLAIM_ADD", "EVENT_CLAIM_UPDATE", "EVENT_CLAIM_DELETE"]

EVENT_CLAIM_ADD = ClusterEvent(EventResource.RESOURCE_CLAIM, ActionType.ADD)
EVENT_CLAIM_UPDATE = ClusterEvent(EventResource.RESOURCE_CLAIM, ActionType.UPDATE)
EVENT_CLAIM_DELETE = ClusterEvent(EventResource.RESOURCE_CLAIM, ActionType.DELETE)


def _devices(claim: Any) -> list[str]:
    if claim is None or claim.allocation is None:
        return []
    return [f"{r.driver}/{r.pool}/{r.device}" for r in claim.allocation.results]


class ResourceAPIServer:
    """ResourceClaim create/update/delete (the resource.k8s.io/v1 API of the simulated server)."""

    def create_resource_claim(self, claim: Any, *, by: str, pod: str = "") -> None:
        self.cluster.resource_claims[claim.key] = claim
        self.cluster.dra_revision += 1
        self.sink.emit("resource_claim", action="created", claim=claim.key, pod=pod, by=by,
                       node="", devices=_devices(claim))
        self._cluster_event(EVENT_CLAIM_ADD, None, claim)

    def update_resource_claim(self, new: Any, *, action: str, by: str, pod: str = "",
                              node: str = "") -> None:
        old = self.cluster.resource_claims.get(new.key)
        self.cluster.resource_claims[new.key] = new
        self.cluster.dra_revision += 1
        self.sink.emit("resource_claim", action=action, claim=new.key, pod=pod, by=by, node=node,
                       devices=_devices(new if new.allocation is not None else old))
        self._cluster_event(EVENT_CLAIM_UPDATE, old, new)

    def set_extended_resource_claim_status(self, pod: Any, status: Any, *, by: str) -> None:
        """Patch the pod's status.extendedResourceClaimStatus (DRAExtendedResource)."""
        self.cluster.extended_claim_statuses()[pod.key] = status

    def delete_resource_claim(self, key: str, *, by: str, pod: str = "") -> None:
        claim = self.cluster.resource_claims.pop(key, None)
        if claim is None:
            return
        self.cluster.dra_revision += 1
        self.sink.emit("resource_claim", action="deleted", claim=key, pod=pod, by=by, node="",
                       devices=[])
        self._cluster_event(EVENT_CLAIM_DELETE, claim, None)
