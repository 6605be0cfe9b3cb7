"""The storage objects and a pod's volumes back to manifests that load to equal objects (the
storage half of api/export.py)."""

from __future__ import annotations

import copy
from typing import Any

from scheduler_core.api.export_meta import object_meta
from scheduler_core.api.quantity import format_quantity
from scheduler_core.api.storage_types import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    StorageObjects,
    Volume,
)
from scheduler_core.api.types import LabelSelector, NodeSelectorTerm

__all__ = ["volume_manifest", "storage_manifests"]


def volume_manifest(v: Volume) -> dict[str, Any]:
    return {"name": v.name, v.source: copy.deepcopy(v.raw)}



def _selector(sel: LabelSelector) -> dict[str, Any]:
    d: dict[str, Any] = {}
    if sel.match_labels:
        d["matchLabels"] = dict(sel.match_labels)
    if sel.match_expressions:
        d["matchExpressions"] = [{"key": e.key, "operator": e.operator,
                                  **({"values": list(e.values)} if e.values else {})}
                                 for e in sel.match_expressions]
    return d


def _term(t: NodeSelectorTerm) -> dict[str, Any]:
    d: dict[str, Any] = {}
    for name, reqs in (("matchExpressions", t.match_expressions), ("matchFields", t.match_fields)):
        if reqs:
            d[name] = [{"key": r.key, "operator": r.operator, **({"values": list(r.values)} if r.values else {})}
                       for r in reqs]
    return d


def _pv(pv: PersistentVolume) -> dict[str, Any]:
    spec: dict[str, Any] = {"capacity": {"storage": format_quantity(pv.capacity or 0)},
                            "accessModes": list(pv.access_modes)}
    if pv.storage_class_name:
        spec["storageClassName"] = pv.storage_class_name
    if pv.volume_mode != "Filesystem":
        spec["volumeMode"] = pv.volume_mode
    if pv.volume_attributes_class_name:
        spec["volumeAttributesClassName"] = pv.volume_attributes_class_name
    spec["persistentVolumeReclaimPolicy"] = pv.reclaim_policy
    spec[pv.source] = copy.deepcopy(pv.source_fields.get("spec", {}))
    if pv.node_affinity is not None:
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [
            _term(t) for t in pv.node_affinity.node_selector_terms]}}
    if pv.claim_ref is not None:
        spec["claimRef"] = {"namespace": pv.claim_ref.namespace, "name": pv.claim_ref.name,
                            **({"uid": pv.claim_ref.uid} if pv.claim_ref.uid else {})}
    return {"apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": object_meta(pv.name, None, pv.labels, pv.annotations), "spec": spec,
            "status": {"phase": pv.phase}}


def _pvc(c: PersistentVolumeClaim) -> dict[str, Any]:
    spec: dict[str, Any] = {"accessModes": list(c.access_modes),
                            "resources": {"requests": {"storage": format_quantity(c.request or 0)}}}
    if c.storage_class_name is not None:
        spec["storageClassName"] = c.storage_class_name
    if c.volume_name:
        spec["volumeName"] = c.volume_name
    if c.selector is not None:
        spec["selector"] = _selector(c.selector)
    if c.volume_mode != "Filesystem":
        spec["volumeMode"] = c.volume_mode
    if c.volume_attributes_class_name:
        spec["volumeAttributesClassName"] = c.volume_attributes_class_name
    meta = object_meta(c.name, c.namespace, c.labels, c.annotations)
    meta["uid"] = c.uid
    if c.owner_references:
        meta["ownerReferences"] = [
            {"apiVersion": o.api_version, "kind": o.kind, "name": o.name,
             **({"uid": o.uid} if o.uid else {}), **({"controller": True} if o.controller else {})}
            for o in c.owner_references]
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec,
            "status": {"phase": c.phase}}


def _class(c: StorageClass) -> dict[str, Any]:
    d: dict[str, Any] = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                         "metadata": object_meta(c.name, None, c.labels, c.annotations),
                         "provisioner": c.provisioner, "volumeBindingMode": c.volume_binding_mode,
                         "reclaimPolicy": c.reclaim_policy}
    if c.parameters:
        d["parameters"] = dict(c.parameters)
    if c.allowed_topologies:
        d["allowedTopologies"] = [{"matchLabelExpressions": [{"key": k, "values": list(v)}
                                                             for k, v in t.match_label_expressions]}
                                  for t in c.allowed_topologies]
    return d


def _csi_node(c: CSINode) -> dict[str, Any]:
    drivers = []
    for d in c.drivers:
        m: dict[str, Any] = {"name": d.name, "nodeID": d.node_id}
        if d.topology_keys:
            m["topologyKeys"] = list(d.topology_keys)
        if d.allocatable_count is not None:
            m["allocatable"] = {"count": d.allocatable_count}
        drivers.append(m)
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
            "metadata": object_meta(c.name, None, None, c.annotations), "spec": {"drivers": drivers}}


def _csi_driver(d: CSIDriver) -> dict[str, Any]:
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": object_meta(d.name, None, d.labels),
            "spec": {"attachRequired": d.attach_required, "storageCapacity": d.storage_capacity}}


def _capacity(c: CSIStorageCapacity) -> dict[str, Any]:
    d: dict[str, Any] = {"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
                         "metadata": object_meta(c.name, c.namespace, c.labels),
                         "storageClassName": c.storage_class_name}
    if c.node_topology is not None:
        d["nodeTopology"] = _selector(c.node_topology)
    if c.capacity is not None:
        d["capacity"] = format_quantity(c.capacity)
    if c.maximum_volume_size is not None:
        d["maximumVolumeSize"] = format_quantity(c.maximum_volume_size)
    return d


def storage_manifests(st: StorageObjects) -> list[dict[str, Any]]:
    """Classes first (in their order: the default class is the newest), then PVs, PVCs, CSI."""
    docs = [_class(c) for c in sorted(st.classes, key=lambda c: c.creation_index)]
    docs += [_pv(pv) for pv in st.pvs]
    docs += [_pvc(c) for c in st.pvcs]
    docs += [_csi_node(c) for c in st.csi_nodes]
    docs += [_csi_driver(d) for d in st.csi_drivers]
    docs += [_capacity(c) for c in st.capacities]
    return docs
