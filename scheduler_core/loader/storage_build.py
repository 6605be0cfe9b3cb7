"""One storage document -> its object, appended to the scenario's `StorageObjects`."""

from __future__ import annotations

from typing import Any

from scheduler_core.api.storage_types import StorageObjects
from scheduler_core.loader.reader import FieldReader
from scheduler_core.loader.storage import (
    parse_csi_driver,
    parse_csi_node,
    parse_csi_storage_capacity,
    parse_persistent_volume,
    parse_persistent_volume_claim,
    parse_storage_class,
)

__all__ = ["add_storage_object"]


def add_storage_object(storage: StorageObjects, r: FieldReader, obj: dict[str, Any], kind: str,
                       index: int) -> tuple[str, str]:
    """Parse and add; returns (namespace, name) for the duplicate check."""
    if kind == "PersistentVolume":
        pv = parse_persistent_volume(r, obj, index)
        storage.pvs.append(pv)
        return "", pv.name
    if kind == "PersistentVolumeClaim":
        pvc = parse_persistent_volume_claim(r, obj, index)
        storage.pvcs.append(pvc)
        return pvc.namespace, pvc.name
    if kind == "StorageClass":
        sc = parse_storage_class(r, obj, index)
        storage.classes.append(sc)
        return "", sc.name
    if kind == "CSINode":
        cn = parse_csi_node(r, obj)
        storage.csi_nodes.append(cn)
        return "", cn.name
    if kind == "CSIStorageCapacity":
        cap = parse_csi_storage_capacity(r, obj)
        storage.capacities.append(cap)
        return cap.namespace, cap.name
    drv = parse_csi_driver(r, obj)
    storage.csi_drivers.append(drv)
    return "", drv.name
