"""The simulated API server's storage writes (PersistentVolumes, PersistentVolumeClaims), each
followed by what upstream's informers then do: the scheduling queue hears the cluster event
(VolumeBinding, VolumeZone, VolumeRestrictions and NodeVolumeLimits registered for them), and
the controllers the scheduler relies on react (scheduler_core.controllers.persistentvolume).

`StorageAPI` is a part of `APIServer` (apiserver/server.py). Every write is a `storage_change`
event in the stream, so the queue's reactions show next to it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from scheduler_core.api.storage_types import PersistentVolume, PersistentVolumeClaim
from scheduler_core.controllers import ephemeral, persistentvolume
from scheduler_core.framework.types import ActionType, ClusterEvent, EventResource

__all__ = ["StorageAPI"]

_PV = EventResource.PERSISTENT_VOLUME
_PVC = EventResource.PERSISTENT_VOLUME_CLAIM


class StorageAPI:
    """PV and PVC writes (create, update, delete) and the pod-side ephemeral claims."""

    def _storage_event(self, kind: str, name: str, action: str, by: str, change: str) -> None:
        self.sink.emit("storage_change", kind=kind, name=name, action=action, by=by, change=change)

    def create_pvc(self, pvc: PersistentVolumeClaim, by: str, change: str = "created") -> None:
        store = self.cluster.storage
        store.pvcs[pvc.key] = pvc
        self._storage_event("PersistentVolumeClaim", pvc.key, "created", by, change)
        self._cluster_event(ClusterEvent(_PVC, ActionType.ADD), None, pvc)
        persistentvolume.claim_changed(self, None, pvc)

    def update_pvc(self, new: PersistentVolumeClaim, by: str, change: str) -> None:
        store = self.cluster.storage
        old = store.pvcs.get(new.key)
        new = dataclasses.replace(new, resource_version=(old.resource_version if old else 0) + 1)
        store.pvcs[new.key] = new
        self._storage_event("PersistentVolumeClaim", new.key, "updated", by, change)
        self._cluster_event(ClusterEvent(_PVC, ActionType.UPDATE), old, new)
        persistentvolume.claim_changed(self, old, new)

    def delete_pvc(self, key: str, by: str) -> None:
        old = self.cluster.storage.pvcs.pop(key, None)
        if old is not None:
            self._storage_event("PersistentVolumeClaim", key, "deleted", by, "deleted")
            self._cluster_event(ClusterEvent(_PVC, ActionType.DELETE), old, None)

    def create_pv(self, pv: PersistentVolume, by: str, change: str = "created") -> None:
        self.cluster.storage.pvs[pv.name] = pv
        self._storage_event("PersistentVolume", pv.name, "created", by, change)
        self._cluster_event(ClusterEvent(_PV, ActionType.ADD), None, pv)
        persistentvolume.volume_changed(self, None, pv)

    def update_pv(self, new: PersistentVolume, by: str, change: str) -> PersistentVolume:
        store = self.cluster.storage
        old = store.pvs.get(new.name)
        new = dataclasses.replace(new, resource_version=(old.resource_version if old else 0) + 1)
        store.pvs[new.name] = new
        self._storage_event("PersistentVolume", new.name, "updated", by, change)
        self._cluster_event(ClusterEvent(_PV, ActionType.UPDATE), old, new)
        persistentvolume.volume_changed(self, old, new)
        return new

    # ---- the ephemeral volume controller and the garbage collector, for pods -------------------------
    def create_ephemeral_claims(self, pod: Any) -> None:
        """Before the scheduler sees a pod, its ephemeral volumes' claims exist."""
        for pvc in ephemeral.claims_for_pod(pod, self.cluster.storage):
            self.create_pvc(pvc, by="ephemeral-volume-controller",
                            change=f"created for pod {pod.key}'s ephemeral volume")

    def delete_owned_claims(self, pod: Any) -> None:
        """The garbage collector: a deleted pod's ephemeral claims go with it."""
        for key in ephemeral.owned_claims(pod, self.cluster.storage):
            self.delete_pvc(key, by="garbage-collector")
