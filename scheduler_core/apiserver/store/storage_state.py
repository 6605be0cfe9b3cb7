"""The storage objects the simulated API server holds (PersistentVolumes, PersistentVolumeClaims,
StorageClasses, CSINodes, CSIDrivers, CSIStorageCapacities): what the volume plugins' listers read.

Objects are replaced on every write (with a higher resource_version), never changed in place,
so what a plugin read earlier (VolumeBinding's assume cache) stays as it was read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scheduler_core.api.storage_types import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    StorageObjects,
    volume_class,
)
from scheduler_core.apiserver.store.pv_index import PVIndex

__all__ = ["StorageState"]


@dataclass
class StorageState:
    pvs: dict[str, PersistentVolume] = field(default_factory=dict)
    pvcs: dict[str, PersistentVolumeClaim] = field(default_factory=dict)  # "ns/name" ->
    classes: dict[str, StorageClass] = field(default_factory=dict)
    csi_nodes: dict[str, CSINode] = field(default_factory=dict)
    csi_drivers: dict[str, CSIDriver] = field(default_factory=dict)
    capacities: dict[str, CSIStorageCapacity] = field(default_factory=dict)  # "ns/name" ->

    def __post_init__(self) -> None:
        # The PVs are filed by class as they are written (VolumeBinding lists a class's PVs for
        # every pod with a WaitForFirstConsumer claim).
        if not isinstance(self.pvs, PVIndex):
            self.pvs = PVIndex(self.pvs)

    @classmethod
    def from_objects(cls, objs: StorageObjects) -> StorageState:
        return cls(pvs={pv.name: pv for pv in objs.pvs},
                   pvcs={c.key: c for c in objs.pvcs},
                   classes={c.name: c for c in objs.classes},
                   csi_nodes={c.name: c for c in objs.csi_nodes},
                   csi_drivers={d.name: d for d in objs.csi_drivers},
                   capacities={c.key: c for c in sorted(objs.capacities, key=lambda c: c.key)})

    def get_pvc(self, namespace: str, name: str) -> PersistentVolumeClaim | None:
        return self.pvcs.get(f"{namespace}/{name}")

    def pvs_of_class(self, class_name: str) -> list[PersistentVolume]:
        """The PVs of a class, in name order (upstream's assume cache index; its order is a
        map's, the name order makes ties deterministic)."""
        pvs = self.pvs
        if isinstance(pvs, PVIndex):
            return pvs.of_class(class_name)
        return sorted((pv for pv in pvs.values() if volume_class(pv) == class_name),
                      key=lambda pv: pv.name)

    def default_class(self) -> StorageClass | None:
        """The newest class annotated as default (upstream GetDefaultClass); the scenario's
        classes all exist from the start, so ties go to the first by name."""
        defaults = [c for c in self.classes.values() if c.is_default]
        if not defaults:
            return None
        return min(defaults, key=lambda c: c.name)  # created together: first by name
