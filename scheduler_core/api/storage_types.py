"""The storage objects the volume plugins read (k8s.io/api core/v1 PersistentVolume,
PersistentVolumeClaim, Volume; storage/v1 StorageClass, CSINode, CSIDriver, CSIStorageCapacity), reduced to the
fields the scheduler and the controllers it relies on use, with snake_case names.

Built only by the loader (`scheduler_core.loader.storage`), after the apiserver's defaults
(StorageClass volumeBindingMode Immediate, volumeMode Filesystem, a PV's phase Available or a
pre-bound PVC's Bound) and the DefaultStorageClass admission plugin. Sizes are exact
`Fraction`s of bytes, as `resource.Quantity` is exact.

The objects are replaced, never changed in place, when the API updates them (the PV controller,
the provisioner and VolumeBinding's PreBind write new versions), so a plugin holding an old
version (the assume cache) still sees what it read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from scheduler_core.api.types import LabelSelector, NodeSelector, OwnerReference, Pod

# Well-known names (k8s.io/api core/v1, storage/v1, component-helpers/storage/volume).
READ_WRITE_ONCE = "ReadWriteOnce"
READ_ONLY_MANY = "ReadOnlyMany"
READ_WRITE_MANY = "ReadWriteMany"
READ_WRITE_ONCE_POD = "ReadWriteOncePod"
ACCESS_MODES = (READ_WRITE_ONCE, READ_ONLY_MANY, READ_WRITE_MANY, READ_WRITE_ONCE_POD)

BINDING_IMMEDIATE = "Immediate"
BINDING_WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"

ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_DYNAMICALLY_PROVISIONED = "pv.kubernetes.io/provisioned-by"
ANN_STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
ANN_IS_DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class"
ANN_BETA_IS_DEFAULT_CLASS = "storageclass.beta.kubernetes.io/is-default-class"
ANN_MIGRATED_PLUGINS = "storage.alpha.kubernetes.io/migrated-plugins"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"

PV_AVAILABLE = "Available"
PV_BOUND = "Bound"
PV_RELEASED = "Released"
PVC_PENDING = "Pending"
PVC_BOUND = "Bound"
PVC_LOST = "Lost"

# The in-tree disk volume types VolumeRestrictions compares and CSI migration translates.
DISK_SOURCES = ("gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi")
# In-tree plugin name and CSI driver of the migratable in-tree sources (csi-translation-lib).
MIGRATABLE_SOURCES: dict[str, tuple[str, str]] = {
    "awsElasticBlockStore": ("kubernetes.io/aws-ebs", "ebs.csi.aws.com"),
    "gcePersistentDisk": ("kubernetes.io/gce-pd", "pd.csi.storage.gke.io"),
    "azureDisk": ("kubernetes.io/azure-disk", "disk.csi.azure.com"),
    "cinder": ("kubernetes.io/cinder", "cinder.csi.openstack.org"),
}


@dataclass
class ClaimRef:
    """A PV's spec.claimRef: the claim it is bound (or reserved) to."""

    namespace: str
    name: str
    uid: str = ""


@dataclass
class TopologySelectorTerm:
    """One of a StorageClass's allowedTopologies: every key must have one of its values."""

    match_label_expressions: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)


@dataclass
class PersistentVolume:
    name: str
    uid: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    capacity: Fraction | None = None  # spec.capacity.storage, bytes
    access_modes: tuple[str, ...] = ()
    storage_class_name: str = ""
    volume_mode: str = "Filesystem"
    volume_attributes_class_name: str = ""
    node_affinity: NodeSelector | None = None  # spec.nodeAffinity.required
    claim_ref: ClaimRef | None = None
    reclaim_policy: str = "Retain"
    # the volume source: its type ("csi", "local", "hostPath", "awsElasticBlockStore", ...) and
    # what identifies the disk (a CSI driver and volumeHandle, an in-tree volume's id)
    source: str = ""
    csi_driver: str = ""
    volume_handle: str = ""
    source_fields: dict[str, object] = field(default_factory=dict)
    phase: str = PV_AVAILABLE
    deleting: bool = False
    resource_version: int = 1
    creation_index: int = field(default=0, compare=False)  # document order


@dataclass
class PersistentVolumeClaim:
    name: str
    namespace: str = "default"
    uid: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    owner_references: list[OwnerReference] = field(default_factory=list)
    access_modes: tuple[str, ...] = ()
    storage_class_name: str | None = None  # None: not set ("" asks for no class)
    volume_name: str = ""
    request: Fraction | None = None  # spec.resources.requests.storage, bytes
    selector: LabelSelector | None = None
    volume_mode: str = "Filesystem"
    volume_attributes_class_name: str = ""
    phase: str = PVC_PENDING
    deleting: bool = False
    resource_version: int = 1
    creation_index: int = field(default=0, compare=False)  # document order

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass
class StorageClass:
    name: str
    provisioner: str = ""
    volume_binding_mode: str = BINDING_IMMEDIATE
    allowed_topologies: list[TopologySelectorTerm] = field(default_factory=list)
    reclaim_policy: str = "Delete"
    parameters: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    creation_index: int = field(default=0, compare=False)  # document order

    @property
    def is_default(self) -> bool:
        """Annotated as the cluster's default class (storage/util IsDefaultAnnotation)."""
        return (self.annotations.get(ANN_IS_DEFAULT_CLASS) == "true"
                or self.annotations.get(ANN_BETA_IS_DEFAULT_CLASS) == "true")


@dataclass
class CSINodeDriver:
    name: str
    node_id: str = ""
    topology_keys: tuple[str, ...] = ()
    allocatable_count: int | None = None


@dataclass
class CSINode:
    name: str
    annotations: dict[str, str] = field(default_factory=dict)
    drivers: list[CSINodeDriver] = field(default_factory=list)

    @property
    def driver_limits(self) -> dict[str, int]:
        """driver -> allocatable.count, for the drivers that report one."""
        return {d.name: d.allocatable_count for d in self.drivers if d.allocatable_count is not None}


@dataclass
class CSIDriver:
    name: str
    attach_required: bool = True
    storage_capacity: bool = False
    labels: dict[str, str] = field(default_factory=dict)


@dataclass
class CSIStorageCapacity:
    """storage.k8s.io/v1 CSIStorageCapacity: what a CSI driver reported it can still provision
    for one class in one topology segment (`node_topology`; None: nowhere). VolumeBinding reads
    these for a class whose provisioner is a CSIDriver with `storageCapacity: true`."""

    namespace: str
    name: str
    storage_class_name: str
    node_topology: LabelSelector | None = None
    capacity: Fraction | None = None
    maximum_volume_size: Fraction | None = None
    labels: dict[str, str] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def volume_limit(self) -> Fraction | None:
        """The largest volume it could provision: maximumVolumeSize when reported (the more
        precise figure), else capacity (upstream volumeLimit)."""
        return self.maximum_volume_size if self.maximum_volume_size is not None else self.capacity


@dataclass
class ClaimTemplate:
    """An ephemeral volume's volumeClaimTemplate: the claim the ephemeral volume controller
    creates as `<pod>-<volume>`, owned by the pod."""

    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    access_modes: tuple[str, ...] = ()
    storage_class_name: str | None = None
    request: Fraction | None = None
    selector: LabelSelector | None = None
    volume_mode: str = "Filesystem"
    volume_name: str = ""


@dataclass
class Volume:
    """One of a pod's spec.volumes. `source` is the volume source's field name; the fields below
    hold what the volume plugins compare for that source."""

    name: str
    source: str = "emptyDir"
    claim_name: str = ""  # persistentVolumeClaim.claimName
    read_only: bool = False
    claim_template: ClaimTemplate | None = None  # ephemeral.volumeClaimTemplate
    csi_driver: str = ""  # csi.driver (inline CSI volume)
    # in-tree disks: gcePersistentDisk.pdName, awsElasticBlockStore.volumeID, iscsi.iqn,
    # rbd (monitors, pool, image), azureDisk.diskURI, cinder.volumeID
    disk_id: str = ""
    monitors: tuple[str, ...] = ()
    pool: str = ""
    # the source as written (export writes it back)
    raw: dict[str, object] = field(default_factory=dict)


@dataclass
class StorageObjects:
    """A scenario's storage objects, in document order."""

    pvs: list[PersistentVolume] = field(default_factory=list)
    pvcs: list[PersistentVolumeClaim] = field(default_factory=list)
    classes: list[StorageClass] = field(default_factory=list)
    csi_nodes: list[CSINode] = field(default_factory=list)
    csi_drivers: list[CSIDriver] = field(default_factory=list)
    capacities: list[CSIStorageCapacity] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.pvs or self.pvcs or self.classes or self.csi_nodes or self.csi_drivers
                    or self.capacities)


def claim_class(pvc: PersistentVolumeClaim) -> str:
    """The claim's class: the beta annotation wins over spec.storageClassName (upstream
    GetPersistentVolumeClaimClass)."""
    ann = pvc.annotations.get(ANN_BETA_STORAGE_CLASS)
    if ann is not None:
        return ann
    return pvc.storage_class_name or ""


def volume_class(pv: PersistentVolume) -> str:
    """The volume's class (upstream GetPersistentVolumeClass)."""
    ann = pv.annotations.get(ANN_BETA_STORAGE_CLASS)
    if ann is not None:
        return ann
    return pv.storage_class_name


def ephemeral_claim_name(pod_name: str, volume_name: str) -> str:
    """The PVC an ephemeral volume uses (upstream ephemeral.VolumeClaimName)."""
    return f"{pod_name}-{volume_name}"


@dataclass
class VolumePod(Pod):
    """A Pod with spec.volumes (see `Pod.volumes`). A plain Pod has no such field: it keeps 29
    attributes, the most CPython 3.11 lets instances share one key table, so the pods of most
    scenarios (no volumes) stay small. `dataclasses.replace` keeps the class, so every copy of
    the pod keeps its volumes."""

    pod_volumes: list[Volume] = field(default_factory=list)

    @property
    def volumes(self) -> list[Volume]:
        return self.pod_volumes
