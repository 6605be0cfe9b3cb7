"""The PersistentVolume controller and an external provisioner, as far as the scheduler relies
on them (kube-controller-manager's persistentvolume-binder-controller; a CSI external-provisioner):

* a PV the scheduler claimed (VolumeBinding's PreBind wrote spec.claimRef) gets bound: the PV's
  phase becomes Bound and its claim gets spec.volumeName, the bind-completed annotation and
  phase Bound;
* a claim the scheduler annotated with `volume.kubernetes.io/selected-node` whose class has a
  real provisioner gets a new PV in the selected node's topology (the class's allowedTopologies
  keys if any, else `topology.kubernetes.io/zone`, else the hostname), size = the request,
  driver = the provisioner, bound to the claim at once;
* claims of Immediate classes are left unbound (no provisioning without a consumer is modelled).

Both react to the API write that triggers them, at the same virtual instant; every step is a
`storage_change` event. VolumeBinding's PreBind then finds the bindings complete.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from scheduler_core.api.storage_types import (
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_DYNAMICALLY_PROVISIONED,
    ANN_SELECTED_NODE,
    NOT_SUPPORTED_PROVISIONER,
    PV_BOUND,
    PVC_BOUND,
    ClaimRef,
    PersistentVolume,
    PersistentVolumeClaim,
    claim_class,
)
from scheduler_core.api.types import (
    LABEL_HOSTNAME,
    LABEL_TOPOLOGY_ZONE,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
)

__all__ = ["volume_changed", "claim_changed", "PV_CONTROLLER", "PROVISIONER"]

PV_CONTROLLER = "persistentvolume-controller"
PROVISIONER = "provisioner"


def volume_changed(api: Any, old: PersistentVolume | None, new: PersistentVolume) -> None:
    """A PV claimed by the scheduler (claimRef set, not yet Bound): complete the binding."""
    ref = new.claim_ref
    if ref is None or new.phase == PV_BOUND:
        return
    pvc = api.cluster.storage.get_pvc(ref.namespace, ref.name)
    if pvc is None or (ref.uid and ref.uid != pvc.uid):
        return
    if pvc.volume_name and pvc.volume_name != new.name:
        return
    api.update_pv(dataclasses.replace(new, phase=PV_BOUND), by=PV_CONTROLLER,
                  change=f"phase Bound (claim {pvc.key})")
    _bind_claim(api, pvc, new.name)


def _bind_claim(api: Any, pvc: PersistentVolumeClaim, pv_name: str) -> None:
    ann = dict(pvc.annotations)
    ann[ANN_BIND_COMPLETED] = "yes"
    ann.setdefault(ANN_BOUND_BY_CONTROLLER, "yes")
    api.update_pvc(dataclasses.replace(pvc, volume_name=pv_name, phase=PVC_BOUND, annotations=ann),
                   by=PV_CONTROLLER, change=f"bound to PersistentVolume {pv_name}")


def claim_changed(api: Any, old: PersistentVolumeClaim | None, new: PersistentVolumeClaim) -> None:
    """A claim annotated with a selected node: provision its volume there."""
    node_name = new.annotations.get(ANN_SELECTED_NODE)
    if not node_name or new.volume_name:
        return
    store = api.cluster.storage
    cls = store.classes.get(claim_class(new))
    if cls is None or not cls.provisioner or cls.provisioner == NOT_SUPPORTED_PROVISIONER:
        return
    node = api.cluster.nodes.get(node_name)
    if node is None:
        return
    name = f"pvc-{new.uid}"
    if name in store.pvs:
        return
    keys: list[str] = []
    for term in cls.allowed_topologies:
        for key, _ in term.match_label_expressions:
            if key not in keys:
                keys.append(key)
    if not keys:
        keys = [LABEL_TOPOLOGY_ZONE] if LABEL_TOPOLOGY_ZONE in node.labels else [LABEL_HOSTNAME]
    exprs = [NodeSelectorRequirement(k, "In", (node.labels[k],)) for k in keys if k in node.labels]
    affinity = NodeSelector([NodeSelectorTerm(match_expressions=exprs)]) if exprs else None
    pv = PersistentVolume(
        name=name, uid=f"{new.uid}-pv", annotations={ANN_DYNAMICALLY_PROVISIONED: cls.provisioner},
        capacity=new.request, access_modes=new.access_modes, storage_class_name=cls.name,
        volume_mode=new.volume_mode, node_affinity=affinity,
        claim_ref=ClaimRef(new.namespace, new.name, new.uid), reclaim_policy=cls.reclaim_policy,
        source="csi", csi_driver=cls.provisioner, volume_handle=name, phase=PV_BOUND)
    where = ", ".join(f"{e.key}={e.values[0]}" for e in exprs) or "anywhere"
    api.create_pv(pv, by=PROVISIONER, change=f"provisioned for claim {new.key} on node {node_name} ({where})")
    _bind_claim(api, store.pvcs[new.key], name)
