"""The ephemeral volume controller: a pod's `ephemeral` volume gets its PersistentVolumeClaim
`<pod>-<volume>`, made from the volume's volumeClaimTemplate and owned by the pod (controller
reference), before the scheduler looks at the pod (VolumeBinding refuses a claim that is not
the pod's: "PVC ... was not created for pod ... (pod is not owner)")."""

from __future__ import annotations

from collections.abc import Iterator

from scheduler_core.api.storage_types import PersistentVolumeClaim, ephemeral_claim_name
from scheduler_core.api.types import OwnerReference, Pod
from scheduler_core.api.uid import stable_uid
from scheduler_core.apiserver.store.storage_state import StorageState

__all__ = ["claims_for_pod", "owned_claims", "is_owned_by"]


def is_owned_by(pvc: PersistentVolumeClaim, pod: Pod) -> bool:
    """upstream ephemeral.VolumeIsForPod: the claim's controller is this pod (by uid)."""
    return any(o.controller and o.kind == "Pod" and o.uid == pod.uid for o in pvc.owner_references)


def claims_for_pod(pod: Pod, store: StorageState) -> Iterator[PersistentVolumeClaim]:
    """The claims to create for the pod's ephemeral volumes (none that exist already)."""
    for vol in pod.volumes:
        t = vol.claim_template
        if vol.source != "ephemeral" or t is None:
            continue
        name = ephemeral_claim_name(pod.name, vol.name)
        if store.get_pvc(pod.namespace, name) is not None:
            continue
        sc_name = t.storage_class_name
        if sc_name is None:  # DefaultStorageClass admission
            default = store.default_class()
            sc_name = default.name if default is not None else None
        yield PersistentVolumeClaim(
            name=name, namespace=pod.namespace, uid=stable_uid("PersistentVolumeClaim", pod.namespace, name,
                                                               pod.uid),
            labels=dict(t.labels), annotations=dict(t.annotations),
            owner_references=[OwnerReference(kind="Pod", name=pod.name, api_version="v1", uid=pod.uid,
                                             controller=True)],
            access_modes=t.access_modes, storage_class_name=sc_name, request=t.request,
            selector=t.selector, volume_mode=t.volume_mode, volume_name=t.volume_name)


def owned_claims(pod: Pod, store: StorageState) -> list[str]:
    """Keys of the claims this pod controls (its ephemeral volumes')."""
    out = []
    for vol in pod.volumes:
        if vol.source != "ephemeral":
            continue
        pvc = store.get_pvc(pod.namespace, ephemeral_claim_name(pod.name, vol.name))
        if pvc is not None and is_owned_by(pvc, pod):
            out.append(pvc.key)
    return out
