"""What the volume plugins share about a pod's volumes and PersistentVolumes: the claim a volume
uses (upstream ephemeral.VolumeClaimName), a PV's node affinity check (component-helpers
storage/volume CheckNodeAffinity), CSI migration of in-tree disks (csi-translation-lib, only the
parts the scheduler uses) and the PVC queueing hint VolumeBinding and VolumeZone share.

A pod without volumes never reaches anything here but `pod_volumes`: the plugins' Skip paths.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.storage_types import (
    ANN_MIGRATED_PLUGINS,
    MIGRATABLE_SOURCES,
    CSINode,
    PersistentVolume,
    Volume,
    ephemeral_claim_name,
)
from scheduler_core.api.types import Pod
from scheduler_core.framework.plugins.helper.nodeaffinity import LazyErrorNodeSelector
from scheduler_core.framework.types import QueueingHint


def pod_volumes(pod: Pod) -> list[Volume]:
    """The pod's spec.volumes."""
    return pod.volumes


def claim_name(pod: Pod, vol: Volume) -> str | None:
    """The PVC a volume uses: its claimName, an ephemeral volume's `<pod>-<volume>`, else None."""
    if vol.source == "persistentVolumeClaim":
        return vol.claim_name
    if vol.source == "ephemeral":
        return ephemeral_claim_name(pod.name, vol.name)
    return None


class _LabelsOnly:
    """A node reduced to its labels, as CheckNodeAffinity builds one (matchFields never match)."""

    __slots__ = ("labels", "name")

    def __init__(self, labels: dict[str, str]) -> None:
        self.labels = labels
        self.name = ""


_SELECTORS: dict[int, tuple[Any, LazyErrorNodeSelector]] = {}


def check_node_affinity(pv: PersistentVolume, node_labels: dict[str, str]) -> bool:
    """Whether the node's labels satisfy the PV's required node affinity (none: yes)."""
    ns = pv.node_affinity
    if ns is None:
        return True
    hit = _SELECTORS.get(id(ns))
    if hit is None or hit[0] is not ns:
        if len(_SELECTORS) > 100_000:
            _SELECTORS.clear()
        hit = (ns, LazyErrorNodeSelector(ns))
        _SELECTORS[id(ns)] = hit
    return hit[1].match(_LabelsOnly(node_labels))  # type: ignore[arg-type]


# ---- CSI migration (in-tree disks counted and matched as their CSI drivers) ----------------------
def in_tree_plugin_of_pv(pv: PersistentVolume) -> str | None:
    m = MIGRATABLE_SOURCES.get(pv.source)
    return m[0] if m else None


def is_csi_migration_on(csi_node: CSINode | None, plugin_name: str | None) -> bool:
    """upstream nodevolumelimits isCSIMigrationOn: the four always-migrated in-tree plugins
    count as their CSI drivers wherever the node has a CSINode."""
    if csi_node is None or not plugin_name:
        return False
    return any(plugin_name == p for p, _ in MIGRATABLE_SOURCES.values())


def is_plugin_migrated_on_node(plugin_name: str, csi_node: CSINode | None) -> bool:
    """The CSINode's migrated-plugins annotation lists the in-tree plugin."""
    if csi_node is None:
        return False
    ann = csi_node.annotations.get(ANN_MIGRATED_PLUGINS, "")
    return plugin_name in ann.split(",") if ann else False


def translated_handle(source: str, ident: str) -> str:
    """The CSI volumeHandle csi-translation-lib derives from an in-tree disk's id."""
    if source == "gcePersistentDisk":
        return f"projects/UNSPECIFIED/zones/UNSPECIFIED/disks/{ident}"
    return ident


def csi_driver_of_in_tree(source: str) -> str | None:
    m = MIGRATABLE_SOURCES.get(source)
    return m[1] if m else None


# ---- queueing hint shared by VolumeBinding and VolumeZone ---------------------------------------
def is_schedulable_after_pvc_change(pod: Pod, old: Any, new: Any) -> int:
    """A PersistentVolumeClaim change matters only when it is one of the pod's own claims."""
    if new is None or new.namespace != pod.namespace:
        return QueueingHint.SKIP
    for v in pod.volumes:
        if claim_name(pod, v) == new.name:
            return QueueingHint.QUEUE
    return QueueingHint.SKIP
