"""VolumeBinding: binds a pod's unbound WaitForFirstConsumer PVCs to PVs (or provisions them)
on the chosen node, and filters nodes where that cannot work (upstream volume_binding.go; the
binder in binder.py).

PreFilter: a pod without claims is skipped; a missing or unusable claim, or an unbound claim of
an Immediate class, rejects the pod on every node. Filter: bound PVs' node affinity, static PVs
that would bind, provisioning (allowedTopologies). Reserve assumes the node's choice, Unreserve
reverts it, PreBind writes it (PVs' claimRef, claims' selected-node annotation) and checks that
the PV controller and provisioner completed it.

Score (StorageCapacityScoring, alpha, off by default): with the gate, a node is scored by how
much of its storage the pod's volumes would use, through the args' `shape` (default: 10 at 0%
used, 0 at 100%, which prefers the node with the most room left): the static PVs that would
bind there (requested vs the PV's capacity), else the claims it would provision (requested vs
the CSIStorageCapacity that had room). Without the gate PreScore returns Skip and a `shape`
is refused.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from scheduler_core.api.storage_types import PVC_LOST
from scheduler_core.api.types import Pod
from scheduler_core.controllers.ephemeral import is_owned_by
from scheduler_core.featuregate.features import gates_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import (
    MAX_NODE_SCORE,
    ClusterEventWithHint,
    EnqueueExtensions,
    FilterPlugin,
    PluginArgsError,
    PreBindPlugin,
    PreFilterPlugin,
    PreScorePlugin,
    ReservePlugin,
    ScorePlugin,
)
from scheduler_core.framework.plugins import names
from scheduler_core.framework.plugins.helper import signing
from scheduler_core.framework.plugins.helper.shape_score import FunctionShapePoint
from scheduler_core.framework.plugins.helper.volumes import (
    claim_name,
    is_schedulable_after_pvc_change,
    pod_volumes,
)
from scheduler_core.framework.plugins.noderesources.fit import validate_function_shape
from scheduler_core.framework.plugins.noderesources.requested_to_capacity_ratio import MAX_CUSTOM_PRIORITY_SCORE
from scheduler_core.framework.plugins.volumebinding.binder import (
    BinderError,
    PodVolumeClaims,
    PodVolumes,
    VolumeBinder,
)
from scheduler_core.framework.plugins.volumebinding.node_dependence import node_dependence
from scheduler_core.framework.plugins.volumebinding.scorer import (
    StorageResource,
    VolumeCapacityScorer,
    build_scorer_function,
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

NAME = names.VOLUME_BINDING
STATE_KEY = NAME
DEFAULT_BIND_TIMEOUT_SECONDS = 600
CSI_STORAGE_CAPACITY = getattr(EventResource, "CSI_STORAGE_CAPACITY", "CSIStorageCapacity")
STORAGE_CAPACITY_SCORING = "StorageCapacityScoring"
# v1 defaulting with the gate on and no shape: prefer the node with the most free capacity.
DEFAULT_SHAPE = ((0, MAX_CUSTOM_PRIORITY_SCORE), (100, 0))


def _shape_points(raw: Any) -> list[tuple[int, int]]:
    if not isinstance(raw, list):
        raise PluginArgsError(f"{NAME}: shape: Invalid value: {raw!r}: must be a list")
    out = []
    for i, p in enumerate(raw):
        if not isinstance(p, dict):
            raise PluginArgsError(f"{NAME}: shape[{i}]: Invalid value: {p!r}: must be a mapping")
        pt = []
        for f in ("utilization", "score"):
            v = p.get(f, 0)
            if isinstance(v, bool) or not isinstance(v, int):
                raise PluginArgsError(f"{NAME}: shape[{i}].{f}: Invalid value: {v!r}: must be an integer")
            pt.append(v)
        out.append((pt[0], pt[1]))
    return out


class _StateData:
    __slots__ = ("all_bound", "pod_volumes_by_node", "pod_volume_claims", "has_static_bindings",
                 "node_keys", "by_node_key", "rejections", "outcomes")

    def __init__(self, claims: PodVolumeClaims | None = None) -> None:
        self.all_bound = False
        self.pod_volumes_by_node: dict[str, PodVolumes] = {}
        self.pod_volume_claims = claims
        self.has_static_bindings = False
        # Filter's answer depends on a node only through the values of a few labels (and its
        # name when a claim names a selected node): `node_keys` lists them (worked out at the
        # first Filter of the cycle; None: not worked out yet), and `by_node_key` holds the
        # answer per combination of their values, so the other nodes with the same zone (say)
        # are a lookup.
        self.node_keys: tuple[tuple[str, ...], bool] | None = None
        self.by_node_key: dict[tuple[str | None, ...], tuple[PodVolumes, list[str]]] = {}
        # filter_nodes' shortcuts: one Status per set of reasons (a rejection is the same for
        # every node alike), and with a single label the outcome per value of it
        self.rejections: dict[int, Status] = {}
        self.outcomes: dict[str | None, tuple[Status | None, PodVolumes]] = {}

    def clone(self) -> _StateData:
        return self


def _node_actions(handle: Any) -> int:
    """Node events that may help: with queueing hints off (v1.30) taint changes too."""
    if gates_of(handle).scheduler_queueing_hints:
        return ActionType.ADD | ActionType.UPDATE_NODE_LABEL
    return ActionType.ADD | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT


class VolumeBinding(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, ReservePlugin, PreBindPlugin,
                    EnqueueExtensions):
    name = NAME

    def __init__(self, args: dict[str, Any] | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        a = args or {}
        timeout = a.get("bindTimeoutSeconds", DEFAULT_BIND_TIMEOUT_SECONDS)
        if isinstance(timeout, bool) or not isinstance(timeout, int):
            raise PluginArgsError(f"{NAME}: bindTimeoutSeconds: Invalid value: {timeout!r}: must be an integer")
        errs = []
        if timeout < 0:
            errs.append(f"bindTimeoutSeconds: Invalid value: {timeout}: invalid BindTimeoutSeconds, should not be "
                        "a negative value")
        # Without a handle (the loader checking the args before any run's gates are known) a
        # shape is checked as the gate would check it; a run whose gates leave the feature off
        # refuses it when it builds its framework.
        scoring = (a.get("shape") is not None if handle is None
                   else gates_of(handle).enabled(STORAGE_CAPACITY_SCORING))
        shape: list[tuple[int, int]] | None = None
        if scoring:
            raw = a.get("shape")
            shape = _shape_points(raw) if raw else list(DEFAULT_SHAPE)
            errs.extend(validate_function_shape(shape, "shape"))
        elif a.get("shape") is not None:
            errs.append("shape: Invalid value: unexpected field `shape`, remove it or turn on the feature gate "
                        "StorageCapacityScoring")
        if errs:
            raise PluginArgsError(f"{NAME}: " + (errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"))
        self.bind_timeout_seconds = timeout
        self.scorer: VolumeCapacityScorer | None = None  # only built with StorageCapacityScoring
        if shape is not None:
            scale = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
            self.scorer = build_scorer_function([FunctionShapePoint(u, sc * scale) for u, sc in shape])
        self.binder = VolumeBinder(handle)

    def _pod_has_pvcs(self, pod: Pod) -> tuple[bool, str | None]:
        """upstream podHasPVCs: whether the pod uses claims, and why it cannot use them yet."""
        has = False
        store = self.handle.cluster.storage
        for vol in pod.volumes:
            name = claim_name(pod, vol)
            if name is None:
                continue
            has = True
            pvc = store.get_pvc(pod.namespace, name)
            if pvc is None:
                if vol.source == "ephemeral":
                    return has, ("waiting for ephemeral volume controller to create the "
                                 f'persistentvolumeclaim "{name}"')
                return has, f'persistentvolumeclaim "{name}" not found'
            if pvc.phase == PVC_LOST:
                return has, (f'persistentvolumeclaim "{pvc.name}" bound to non-existent persistentvolume '
                             f'"{pvc.volume_name}"')
            if pvc.deleting:
                return has, f'persistentvolumeclaim "{pvc.name}" is being deleted'
            if vol.source == "ephemeral" and not is_owned_by(pvc, pod):
                return has, (f"PVC {pvc.namespace}/{pvc.name} was not created for pod "
                             f"{pod.namespace}/{pod.name} (pod is not owner)")
        return has, None

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        if not pod.volumes:
            state.write(STATE_KEY, _StateData())
            return None, SKIP
        has, err = self._pod_has_pvcs(pod)
        if err is not None:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, err)
        if not has:
            state.write(STATE_KEY, _StateData())
            return None, SKIP
        try:
            claims = self.binder.get_pod_volume_claims(pod)
        except BinderError as e:
            return None, Status.error(str(e))
        if claims.unbound_claims_immediate:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                "pod has unbound immediate PersistentVolumeClaims")
        result = None
        if gates_of(self.handle).volume_binding_eligible_nodes:
            eligible = self.binder.get_eligible_nodes(claims.bound_claims)
            if eligible is not None:
                result = PreFilterResult(node_names=eligible)
        state.write(STATE_KEY, _StateData(claims))
        return result, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        s = state.get(STATE_KEY)
        if s is None:
            return Status.error("not found")
        if s.pod_volume_claims is None:
            # Only a pod that PreFilter skipped gets here (a Skip makes the framework not call
            # Filter), so this is the upstream nil dereference's harmless twin: nothing to check.
            return None
        found = self._node_verdict(s, pod, node_info)
        if isinstance(found, Status):
            return found
        volumes, reasons = found
        if reasons:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, *reasons)
        s.pod_volumes_by_node[node_info.node.name] = volumes
        s.has_static_bindings = s.has_static_bindings or bool(volumes.static_bindings)
        return None

    def filter_nodes(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> list[Status | None]:
        """`filter` on every node; nodes alike (the same values of the labels the answer reads)
        share one answer, and a rejection one Status."""
        s = state.get(STATE_KEY)
        if s is None or s.pod_volume_claims is None:
            f = self.filter
            return [f(state, pod, ni) for ni in nodes]
        by_node = s.pod_volumes_by_node
        out: list[Status | None] = []
        if s.node_keys is None:
            s.node_keys = node_dependence(self.binder, s.pod_volume_claims)
        label_keys, by_name = s.node_keys
        # The common case, one label such as the zone: its value -> (the node's Status, or None
        # and the node's PodVolumes), so a node is one lookup.
        single = label_keys[0] if len(label_keys) == 1 and not by_name else None
        outcomes = s.outcomes
        for ni in nodes:
            if single is not None:
                value = ni.node.labels.get(single)
                hit = outcomes.get(value)
                if hit is not None:
                    if hit[0] is None:
                        by_node[ni.name] = hit[1]
                    out.append(hit[0])
                    continue
            found = self._node_verdict(s, pod, ni)
            if isinstance(found, Status):
                out.append(found)
                continue
            volumes, reasons = found
            st = s.rejections.get(id(reasons)) if reasons else None
            if reasons and st is None:
                st = s.rejections[id(reasons)] = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, *reasons)
            if st is None:
                by_node[ni.name] = volumes
                if volumes.static_bindings:
                    s.has_static_bindings = True
            if single is not None:
                outcomes[value] = (st, volumes)
            out.append(st)
        return out

    def _node_verdict(self, s: _StateData, pod: Pod, node_info: NodeInfo) -> tuple[PodVolumes, list[str]] | Status:
        """The binder's answer for the node (shared by the nodes alike), or an Error status."""
        node = node_info.node
        if s.node_keys is None:
            s.node_keys = node_dependence(self.binder, s.pod_volume_claims)
        label_keys, by_name = s.node_keys
        labels = node.labels
        key = tuple([labels.get(k) for k in label_keys])
        if by_name:
            key += (node.name,)
        found = s.by_node_key.get(key)
        if found is None:
            try:
                found = self.binder.find_pod_volumes(pod, s.pod_volume_claims, node)
            except BinderError as e:
                return Status.error(str(e))
            s.by_node_key[key] = found
        return found

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        if self.scorer is None:
            return SKIP
        if state.get(STATE_KEY) is None:
            return Status.error("not found")
        # The scorer exists only with the gate, so upstream's "static bindings or gate" is true.
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        if self.scorer is None:
            return 0, None
        s = state.get(STATE_KEY)
        if s is None:
            return 0, Status.error("not found")
        volumes = s.pod_volumes_by_node.get(node_info.node.name)
        if volumes is None:
            return 0, None
        classes: dict[str, StorageResource] = {}
        if volumes.static_bindings:
            for b in volumes.static_bindings:
                r = classes.setdefault(b.pv.storage_class_name or "", StorageResource())
                r.requested += math.ceil(b.pvc.request or 0)
                r.capacity += math.ceil(b.pv.capacity or 0)
        else:
            capacities = volumes.node_capacities or {}
            for pvc in volumes.dynamic_provisions or []:
                cap = capacities.get(pvc.key)
                if cap is None:
                    continue
                r = classes.setdefault(pvc.storage_class_name or "", StorageResource())
                # The class's capacity on the node, once (two claims share it, they do not add it).
                r.capacity = math.ceil(cap.capacity or 0)
                r.requested += math.ceil(pvc.request or 0)
        return self.scorer(classes), None

    def score_extensions(self) -> None:
        return None

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        s = state.get(STATE_KEY)
        if s is None:
            return Status.error("not found")
        volumes = s.pod_volumes_by_node.get(node_name)
        if volumes is None:
            s.all_bound = True
            return None
        # Nodes alike share one PodVolumes (Filter's memo); assuming replaces its lists, so the
        # chosen node gets its own.
        volumes = s.pod_volumes_by_node[node_name] = dataclasses.replace(volumes)
        try:
            s.all_bound = self.binder.assume_pod_volumes(pod, node_name, volumes)
        except BinderError as e:
            return Status.error(str(e))
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        s = state.get(STATE_KEY)
        if s is None:
            return
        volumes = s.pod_volumes_by_node.get(node_name)
        if volumes is not None:
            self.binder.revert_assumed_pod_volumes(volumes)

    def pre_bind_pre_flight(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        s = state.get(STATE_KEY)
        if s is None:
            return Status.error("not found")
        if s.all_bound:
            return SKIP
        if node_name not in s.pod_volumes_by_node:
            return Status.error(f'no pod volume found for node "{node_name}"')
        return None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        s = state.get(STATE_KEY)
        if s is None:
            return Status.error("not found")
        if s.all_bound:
            return None
        volumes = s.pod_volumes_by_node.get(node_name)
        if volumes is None:
            return Status.error(f'no pod volume found for node "{node_name}"')
        err = self.binder.bind_pod_volumes(pod, node_name, volumes, by=f"{NAME} PreBind")
        if err is not None:
            return Status.error(err)
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        add_update = ActionType.ADD | ActionType.UPDATE
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.STORAGE_CLASS, add_update),
                                 self.is_schedulable_after_storage_class_change),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, add_update),
                                 self.is_schedulable_after_persistent_volume_claim_change),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME, add_update)),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, _node_actions(self.handle))),
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_NODE, add_update),
                                 self.is_schedulable_after_csi_node_change),
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_DRIVER, ActionType.UPDATE),
                                 self.is_schedulable_after_csi_driver_change),
            ClusterEventWithHint(ClusterEvent(CSI_STORAGE_CAPACITY, add_update),
                                 self.is_schedulable_after_csi_storage_capacity_change),
        ]

    def is_schedulable_after_csi_node_change(self, pod: Pod, old: Any, new: Any) -> int:
        if old is None:
            return QueueingHint.QUEUE
        key = "storage.alpha.kubernetes.io/migrated-plugins"
        o = (getattr(old, "annotations", None) or {}).get(key)
        n = (getattr(new, "annotations", None) or {}).get(key)
        return QueueingHint.QUEUE if o != n else QueueingHint.SKIP

    def is_schedulable_after_persistent_volume_claim_change(self, pod: Pod, old: Any, new: Any) -> int:
        return is_schedulable_after_pvc_change(pod, old, new)

    def is_schedulable_after_storage_class_change(self, pod: Pod, old: Any, new: Any) -> int:
        if old is None:
            return QueueingHint.QUEUE
        if getattr(old, "allowed_topologies", None) != getattr(new, "allowed_topologies", None):
            return QueueingHint.QUEUE
        return QueueingHint.SKIP

    def is_schedulable_after_csi_storage_capacity_change(self, pod: Pod, old: Any, new: Any) -> int:
        if old is None:
            return QueueingHint.QUEUE
        o = getattr(old, "volume_limit", None)
        n = getattr(new, "volume_limit", None)
        if n is not None and (o is None or n > o):
            return QueueingHint.QUEUE
        return QueueingHint.SKIP

    def is_schedulable_after_csi_driver_change(self, pod: Pod, old: Any, new: Any) -> int:
        """Only a pod with an inline CSI volume of that driver cares (none here)."""
        for v in pod_volumes(pod):
            if getattr(v, "csi_driver", None) == getattr(new, "name", None):
                if getattr(old, "storage_capacity", False) and not getattr(new, "storage_capacity", False):
                    return QueueingHint.QUEUE
        return QueueingHint.SKIP

    def sign_pod(self, pod: Pod) -> dict[str, Any]:
        """This plugin's fragments of the pod's batching signature (upstream SignPod)."""
        return signing.volumes(pod)
