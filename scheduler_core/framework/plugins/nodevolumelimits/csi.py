"""NodeVolumeLimits (CSI): a node cannot attach more CSI volumes than its CSINode allows
(upstream nodevolumelimits/csi.go): the unique volumes ("driver/handle") of the pods on the node
plus the pod's new ones, per driver, against the driver's allocatable.count. Unbound claims
count by their class's provisioner; in-tree EBS/GCE PD/Azure Disk/Cinder volumes count as their
CSI drivers where the node has a CSINode. A pod without claims or such volumes is skipped.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.storage_types import MIGRATABLE_SOURCES, CSINode, Volume, claim_class
from scheduler_core.api.types import Pod
from scheduler_core.controllers.ephemeral import is_owned_by
from scheduler_core.featuregate.features import gates_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import (
    ClusterEventWithHint,
    EnqueueExtensions,
    FilterPlugin,
    PreFilterPlugin,
)
from scheduler_core.framework.plugins import names
from scheduler_core.framework.plugins.helper import signing
from scheduler_core.framework.plugins.helper.volumes import (
    claim_name,
    csi_driver_of_in_tree,
    in_tree_plugin_of_pv,
    is_csi_migration_on,
    pod_volumes,
    translated_handle,
)
from scheduler_core.framework.status import SKIP, Code, Status
from scheduler_core.framework.types import (
    ActionType,
    ClusterEvent,
    EventResource,
    NodeInfo,
    PreFilterResult,
    QueueingHint,
)

CSI_NAME = names.NODE_VOLUME_LIMITS
ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"
VOLUME_ATTACHMENT = getattr(EventResource, "VOLUME_ATTACHMENT", "VolumeAttachment")


_NEW_POD_STATE_KEY = CSI_NAME + "/newPodVolumes"


class _Cached:
    """A per-cycle value in the CycleState (shared by clones: it never changes in a cycle)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def clone(self) -> _Cached:
        return self


class _NewVolumes:
    """The new pod's volume lookups on a node with a CSINode: the error they met, or its
    attachable volumes ("driver/handle" -> driver) and their drivers."""

    __slots__ = ("err", "volumes", "drivers")

    def __init__(self, err: tuple[Code, str] | None, volumes: dict[str, str]) -> None:
        self.err = err
        self.volumes = volumes
        self.drivers = set(volumes.values())


_NO_LIMITS: dict[str, int] = {}
_NEW_VOLUMES_STATE_KEY = CSI_NAME + "/newPodVolumesOnCSINode"
# What the volume lookups are given for "a node with a CSINode": they only ask whether there is one.
_ANY_CSI_NODE = CSINode(name="")

RANDOM_VOLUME_ID_PREFIX = "scheduler-volume"  # stands in for upstream's random 32-letter prefix


def _is_inline_migratable(vol: Volume) -> bool:
    return vol.source in MIGRATABLE_SOURCES


class CSILimits(PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    name = CSI_NAME

    def __init__(self, args: dict[str, Any] | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        gates = gates_of(handle)
        self.volume_limit_scaling = bool(gates.overrides) and gates.enabled("VolumeLimitScaling")
        self._limits: dict[int, tuple[CSINode, dict[str, int]]] = {}
        self._equal_limits: dict[tuple[tuple[str, int], ...], dict[str, int]] = {}
        # node name -> (its CSINode when last seen, that CSINode's limits), for filter_nodes
        self._by_node: dict[str, tuple[CSINode | None, dict[str, int]]] = {}

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        for v in pod.volumes:
            if v.source in ("persistentVolumeClaim", "ephemeral") or _is_inline_migratable(v):
                return None, None
        return None, SKIP

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not pod.volumes:
            return None
        node = node_info.node
        store = self.handle.cluster.storage
        csi_node = store.csi_nodes.get(node.name)
        if self.volume_limit_scaling:
            return self._filter_with_driver_check(pod, node_info, csi_node)
        limits = self._driver_limits(csi_node)
        if not limits:
            # No limit to check: only the new pod's claims can fail (a missing claim, one not
            # the pod's), the same on every node, so that is found once per cycle.
            return self._new_pod_status(state, pod)
        new = self._new_pod_volumes(state, pod)
        if new.err is not None:
            code, msg = new.err
            return Status(code, msg) if code != Code.ERROR else Status.error(msg)
        if not new.volumes:
            return None
        # Each volume of a pod on the node is at most one attached unique volume, so while the
        # node's volumes and the new ones together stay within the smallest limit that applies,
        # no driver can be over its limit: the exact count is needed only near a limit.
        smallest = min((limits[d] for d in new.drivers if d in limits), default=None)
        if smallest is None or node_info.volume_count + len(new.volumes) <= smallest:
            return None
        return self._check_limits(node_info, csi_node, dict(new.volumes), limits)

    def filter_nodes(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> list[Status | None]:
        """`filter` on every node, with the cycle's part (the new pod's volumes, the smallest
        limit that applies to them per set of limits) worked out once."""
        if not pod.volumes:
            return [None] * len(nodes)
        if self.volume_limit_scaling:
            f = self.filter
            return [f(state, pod, ni) for ni in nodes]
        csi_nodes = self.handle.cluster.storage.csi_nodes
        # (pure lookups, worked out once per cycle whether or not a node here has limits)
        new = self._new_pod_volumes(state, pod)
        if new.err is not None or not new.volumes:
            f = self.filter
            return [f(state, pod, ni) for ni in nodes]
        n_new = len(new.volumes)
        # id(limits) -> the most volumes a node may already have for the new ones to pass
        # without the exact count (None: no limit applies to the new volumes' drivers)
        most_for: dict[int, int | None] = {}
        out: list[Status | None] = []
        known = self._by_node
        for ni in nodes:
            name = ni.name
            csi_node = csi_nodes.get(name)
            hit = known.get(name)
            if hit is None or hit[0] is not csi_node:
                hit = known[name] = (csi_node, self._driver_limits(csi_node))
            limits = hit[1]
            if not limits:
                out.append(self._new_pod_status(state, pod))
                continue
            key = id(limits)
            if key in most_for:
                most = most_for[key]
            else:
                smallest = min((limits[d] for d in new.drivers if d in limits), default=None)
                most = most_for[key] = None if smallest is None else smallest - n_new
            if most is None or ni.volume_count <= most:
                out.append(None)
            else:
                out.append(self._check_limits(ni, csi_node, dict(new.volumes), limits))
        return out

    def _driver_limits(self, csi_node: CSINode | None) -> dict[str, int]:
        """The CSINode's per-driver limits, worked out once per CSINode object (objects are
        replaced on every write, so a changed CSINode is a new key). Equal limits are one
        object, so per-cycle answers keyed by it serve every node with the same limits."""
        if csi_node is None:
            return _NO_LIMITS
        hit = self._limits.get(id(csi_node))
        if hit is None or hit[0] is not csi_node:
            if len(self._limits) > 100_000:
                self._limits.clear()
                self._equal_limits.clear()
            limits = csi_node.driver_limits
            limits = self._equal_limits.setdefault(tuple(sorted(limits.items())), limits)
            hit = (csi_node, limits)
            self._limits[id(csi_node)] = hit
        return hit[1]

    def _new_pod_volumes(self, state: CycleState, pod: Pod) -> _NewVolumes:
        """The new pod's attachable volumes on a node with a CSINode, once per cycle: the node
        enters them only through whether it has a CSINode (CSI migration), which it has here."""
        cached = state.get(_NEW_VOLUMES_STATE_KEY)
        if cached is not None:
            return cached.value
        volumes: dict[str, str] = {}
        err = self._filter_attachable_volumes(pod, _ANY_CSI_NODE, True, volumes)
        new = _NewVolumes(err, volumes)
        state.write(_NEW_VOLUMES_STATE_KEY, _Cached(new))
        return new

    def _check_limits(self, node_info: NodeInfo, csi_node: CSINode, new_volumes: dict[str, str],
                      limits: dict[str, int]) -> Status | None:
        attached: dict[str, str] = {}
        for pi in node_info.pods:
            if pi.pod.volumes:
                self._filter_attachable_volumes(pi.pod, csi_node, False, attached)
        attached_count: dict[str, int] = {}
        for unique, driver in attached.items():
            new_volumes.pop(unique, None)
            attached_count[driver] = attached_count.get(driver, 0) + 1
        new_count: dict[str, int] = {}
        for driver in new_volumes.values():
            new_count[driver] = new_count.get(driver, 0) + 1
        for driver, count in new_count.items():
            limit = limits.get(driver)
            if limit is not None and attached_count.get(driver, 0) + count > limit:
                return Status(Code.UNSCHEDULABLE, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
        return None

    def _filter_with_driver_check(self, pod: Pod, node_info: NodeInfo, csi_node: CSINode | None) -> Status | None:
        """Filter with VolumeLimitScaling: upstream's order (the new volumes, their drivers
        installed on the node, then the limits). Drivers are checked in the volumes' unique-name
        order (upstream walks a map, so with two missing drivers either may be named)."""
        new_volumes: dict[str, str] = {}
        err = self._filter_attachable_volumes(pod, csi_node, True, new_volumes)
        if err is not None:
            code, msg = err
            return Status(code, msg) if code != Code.ERROR else Status.error(msg)
        if not new_volumes:
            return None
        drivers = self.handle.cluster.storage.csi_drivers
        installed = {d.name for d in csi_node.drivers} if csi_node is not None else set()
        for unique in sorted(new_volumes):
            driver = new_volumes[unique]
            if driver in drivers and driver not in installed:
                return Status(Code.UNSCHEDULABLE, f"{driver} CSI driver is not installed on the node")
        limits = csi_node.driver_limits if csi_node is not None else {}
        if not limits:
            return None
        return self._check_limits(node_info, csi_node, new_volumes, limits)

    def _new_pod_status(self, state: CycleState, pod: Pod) -> Status | None:
        """The status of the new pod's own volume lookups on a node without limits."""
        cached = state.get(_NEW_POD_STATE_KEY)
        if cached is None:
            err = self._filter_attachable_volumes(pod, None, True, {})
            cached = (err,)
            state.write(_NEW_POD_STATE_KEY, _Cached(cached))
        else:
            cached = cached.value
        err = cached[0]
        if err is None:
            return None
        code, msg = err
        return Status(code, msg) if code != Code.ERROR else Status.error(msg)

    def _filter_attachable_volumes(self, pod: Pod, csi_node: CSINode | None, new_pod: bool,
                                   result: dict[str, str]) -> tuple[Code, str] | None:
        """Add the pod's attachable CSI volumes ("driver/handle" -> driver) to `result`."""
        store = self.handle.cluster.storage
        for vol in pod.volumes:
            name = claim_name(pod, vol)
            if name is None:
                self._check_attachable_inline_volume(vol, csi_node, result)
                continue
            if not name:
                return Code.ERROR, "PersistentVolumeClaim had no name"
            pvc = store.get_pvc(pod.namespace, name)
            if pvc is None:
                if new_pod:
                    return (Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                            f'looking up PVC {pod.namespace}/{name}: persistentvolumeclaim "{name}" not found')
                continue
            if vol.source == "ephemeral" and not is_owned_by(pvc, pod):
                return (Code.ERROR, f"PVC {pvc.namespace}/{pvc.name} was not created for pod "
                                    f"{pod.namespace}/{pod.name} (pod is not owner)")
            driver, handle = self._csi_driver_info(csi_node, pvc)
            if not driver or not handle:
                continue
            result[f"{driver}/{handle}"] = driver
        return None

    def _check_attachable_inline_volume(self, vol: Volume, csi_node: CSINode | None,
                                        result: dict[str, str]) -> None:
        if not _is_inline_migratable(vol):
            return
        plugin = MIGRATABLE_SOURCES[vol.source][0]
        if not is_csi_migration_on(csi_node, plugin):
            return
        driver = csi_driver_of_in_tree(vol.source)
        result[f"{driver}/{translated_handle(vol.source, vol.disk_id)}"] = driver or ""

    def _csi_driver_info(self, csi_node: CSINode | None, pvc: Any) -> tuple[str, str]:
        store = self.handle.cluster.storage
        if not pvc.volume_name:
            return self._csi_driver_info_from_sc(csi_node, pvc)
        pv = store.pvs.get(pvc.volume_name)
        if pv is None:
            return self._csi_driver_info_from_sc(csi_node, pvc)
        if pv.source == "csi":
            return pv.csi_driver, pv.volume_handle
        plugin = in_tree_plugin_of_pv(pv)
        if plugin is None or not is_csi_migration_on(csi_node, plugin):
            return "", ""
        return csi_driver_of_in_tree(pv.source) or "", translated_handle(pv.source, str(pv.source_fields.get("id", "")))

    def _csi_driver_info_from_sc(self, csi_node: CSINode | None, pvc: Any) -> tuple[str, str]:
        sc_name = claim_class(pvc)
        if not sc_name:
            return "", ""
        cls = self.handle.cluster.storage.classes.get(sc_name)
        if cls is None:
            return "", ""
        handle = f"{RANDOM_VOLUME_ID_PREFIX}-{pvc.namespace}/{pvc.name}"
        for plugin, driver in MIGRATABLE_SOURCES.values():
            if cls.provisioner == plugin:
                if not is_csi_migration_on(csi_node, plugin):
                    return "", ""
                return driver, handle
        return cls.provisioner, handle

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_NODE, ActionType.ADD)),
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_NODE, ActionType.UPDATE),
                                 self.is_schedulable_after_csi_node_updated),
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE), self.is_schedulable_after_pod_deleted),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD),
                                 self.is_schedulable_after_pvc_added),
            ClusterEventWithHint(ClusterEvent(VOLUME_ATTACHMENT, ActionType.DELETE),
                                 self.is_schedulable_after_volume_attachment_deleted),
        ]

    def is_schedulable_after_pod_deleted(self, pod: Pod, old: Pod, new: Any) -> int:
        """Only a placed pod with attachable volumes frees a slot."""
        vols = pod_volumes(old)
        if not vols or (not old.node_name and not old.nominated_node_name):
            return QueueingHint.SKIP
        for v in vols:
            if v.source in ("persistentVolumeClaim", "ephemeral") or _is_inline_migratable(v):
                return QueueingHint.QUEUE
        return QueueingHint.SKIP

    def is_schedulable_after_pvc_added(self, pod: Pod, old: Any, new: Any) -> int:
        if getattr(new, "namespace", None) != pod.namespace:
            return QueueingHint.SKIP
        name = getattr(new, "name", None)
        for v in pod_volumes(pod):
            if claim_name(pod, v) == name:
                return QueueingHint.QUEUE
        return QueueingHint.SKIP

    def is_schedulable_after_volume_attachment_deleted(self, pod: Pod, old: Any, new: Any) -> int:
        for v in pod_volumes(pod):
            if v.source == "persistentVolumeClaim":
                return QueueingHint.QUEUE
            if _is_inline_migratable(v) and getattr(new if new is not None else old, "attacher", None) == \
                    csi_driver_of_in_tree(v.source):
                return QueueingHint.QUEUE
        return QueueingHint.SKIP

    def is_schedulable_after_csi_node_updated(self, pod: Pod, old: Any, new: Any) -> int:
        """Queue when some driver's allocatable volume count went up."""
        old_limits = dict(getattr(old, "driver_limits", None) or {})
        for driver, limit in (getattr(new, "driver_limits", None) or {}).items():
            if (limit or 0) > (old_limits.get(driver) or 0):
                return QueueingHint.QUEUE
        return QueueingHint.SKIP

    def sign_pod(self, pod: Pod) -> dict[str, Any]:
        """This plugin's fragments of the pod's batching signature (upstream SignPod)."""
        return signing.volumes(pod)
