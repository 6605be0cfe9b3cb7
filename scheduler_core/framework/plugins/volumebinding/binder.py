"""The volume binder VolumeBinding delegates to (upstream volumebinding/binder.go): sort a pod's
claims into bound / unbound-delayed / unbound-immediate, find per node which static PVs would
bind (the smallest that fits) or whether the class can provision there, assume the choice at
Reserve, write it at PreBind and check that the PV controller completed it.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

from scheduler_core.api.storage_types import (
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_SELECTED_NODE,
    BINDING_WAIT_FOR_FIRST_CONSUMER,
    NOT_SUPPORTED_PROVISIONER,
    PV_AVAILABLE,
    ClaimRef,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    claim_class,
    volume_class,
)
from scheduler_core.api.types import LABEL_HOSTNAME, Node, Pod
from scheduler_core.apiserver.store.storage_state import StorageState
from scheduler_core.controllers.ephemeral import is_owned_by
from scheduler_core.framework.plugins.helper.volumes import check_node_affinity, claim_name
from scheduler_core.framework.plugins.volumebinding.assume_cache import AssumeCache, AssumeError

__all__ = ["ERR_REASON_BIND_CONFLICT", "ERR_REASON_NODE_CONFLICT", "ERR_REASON_NOT_ENOUGH_SPACE",
           "ERR_REASON_PV_NOT_EXIST", "BinderError", "PodVolumeClaims", "PodVolumes", "BindingInfo",
           "VolumeBinder"]

ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"


class BinderError(Exception):
    """An error the plugin turns into an Error status (fwk.AsStatus)."""


@dataclass
class BindingInfo:
    pvc: PersistentVolumeClaim
    pv: PersistentVolume


@dataclass
class PodVolumes:
    static_bindings: list[BindingInfo] | None = None
    dynamic_provisions: list[PersistentVolumeClaim] | None = None
    # per claim to provision (by key), the CSIStorageCapacity that had room for it on the node
    # (upstream DynamicProvision.NodeCapacity; absent when no capacity was checked)
    node_capacities: dict[str, CSIStorageCapacity] | None = None


@dataclass
class PodVolumeClaims:
    bound_claims: list[PersistentVolumeClaim] = field(default_factory=list)
    unbound_claims_delay_binding: list[PersistentVolumeClaim] = field(default_factory=list)
    unbound_claims_immediate: list[PersistentVolumeClaim] = field(default_factory=list)
    unbound_volumes_delay_binding: dict[str, list[PersistentVolume]] = field(default_factory=dict)
    # per claim, the PVs that pass find_matching_volume's node-independent checks (built at the
    # first Filter call of the cycle; the PVs do not change within it)
    candidates: dict[str, list[PersistentVolume]] = field(default_factory=dict)


def is_pvc_fully_bound(pvc: PersistentVolumeClaim) -> bool:
    return bool(pvc.volume_name) and ANN_BIND_COMPLETED in pvc.annotations


def is_volume_bound_to_claim(pv: PersistentVolume, pvc: PersistentVolumeClaim) -> bool:
    ref = pv.claim_ref
    if ref is None or ref.name != pvc.name or ref.namespace != pvc.namespace:
        return False
    return not (ref.uid and ref.uid != pvc.uid)


def match_topology_selector_terms(terms: list[Any], labels: dict[str, str]) -> bool:
    """upstream v1helper.MatchTopologySelectorTerms: no terms match everything."""
    if not terms:
        return True
    for t in terms:
        if all(k in labels and labels[k] in values for k, values in t.match_label_expressions):
            return True
    return False


def local_pv_node_names(pv: PersistentVolume) -> tuple[str, ...]:
    """v1.30 GetLocalPersistentVolumeNodeNames: the values of a node affinity that is exactly one
    term with exactly one `kubernetes.io/hostname In` expression."""
    ns = pv.node_affinity
    if ns is None or len(ns.node_selector_terms) != 1:
        return ()
    exprs = ns.node_selector_terms[0].match_expressions
    if len(exprs) != 1 or exprs[0].key != LABEL_HOSTNAME or exprs[0].operator != "In":
        return ()
    return tuple(exprs[0].values)


def find_matching_volume(pvc: PersistentVolumeClaim, volumes: list[PersistentVolume], node: Node | None,
                         excluded: dict[str, PersistentVolume], delay_binding: bool
                         ) -> PersistentVolume | None:
    """upstream FindMatchingVolume: the PV pre-bound to the claim, else the smallest Available one
    of the claim's class that fits (size, volume mode, selector, node affinity, access modes)."""
    if pvc.volume_attributes_class_name:
        raise BinderError("unsupported volumeAttributesClassName is set on claim "
                          f"{pvc.key} when the feature-gate VolumeAttributesClass is disabled")
    smallest: PersistentVolume | None = None
    requested = pvc.request or 0
    requested_class = claim_class(pvc)
    labels = node.labels if node is not None else None
    for pv in volumes:
        if pv.name in excluded:
            continue
        bound_to_claim = is_volume_bound_to_claim(pv, pvc)
        if pv.claim_ref is not None and not bound_to_claim:
            continue
        qty = pv.capacity or 0
        if qty < requested:
            continue
        if pvc.volume_mode != pv.volume_mode:
            continue
        if pv.volume_attributes_class_name:
            continue
        if pv.deleting:
            continue
        affinity_ok = labels is None or check_node_affinity(pv, labels)
        if bound_to_claim:
            return pv if affinity_ok else None
        if node is None and delay_binding:
            continue
        if pv.phase != PV_AVAILABLE:
            continue
        if pvc.selector is not None and not pvc.selector.matches(pv.labels):
            continue
        if volume_class(pv) != requested_class:
            continue
        if not affinity_ok:
            continue
        if node is not None and not set(pvc.access_modes) <= set(pv.access_modes):
            continue
        if smallest is None or (smallest.capacity or 0) > qty:
            smallest = pv
    return smallest


def claim_candidates(pvc: PersistentVolumeClaim, volumes: list[PersistentVolume]) -> list[PersistentVolume]:
    """The PVs find_matching_volume could return for `pvc` on some node, in order: those whose
    node-independent checks (claimRef, size, volume mode, attributes class, deletion; and for a
    PV not bound to the claim its phase, the claim's selector, the class and the access modes)
    pass. Dropping the others changes nothing: the loop skips them before any early return."""
    if pvc.volume_attributes_class_name:
        raise BinderError("unsupported volumeAttributesClassName is set on claim "
                          f"{pvc.key} when the feature-gate VolumeAttributesClass is disabled")
    requested = pvc.request or 0
    requested_class = claim_class(pvc)
    modes = set(pvc.access_modes)
    out = []
    for pv in volumes:
        if pv.claim_ref is not None and not is_volume_bound_to_claim(pv, pvc):
            continue
        if (pv.capacity or 0) < requested or pvc.volume_mode != pv.volume_mode:
            continue
        if pv.volume_attributes_class_name or pv.deleting:
            continue
        if not is_volume_bound_to_claim(pv, pvc):
            if pv.phase != PV_AVAILABLE or volume_class(pv) != requested_class:
                continue
            if pvc.selector is not None and not pvc.selector.matches(pv.labels):
                continue
            if not modes <= set(pv.access_modes):
                continue
        out.append(pv)
    return out


def match_on_node(pvc: PersistentVolumeClaim, candidates: list[PersistentVolume], node: Node,
                  excluded: dict[str, PersistentVolume]) -> PersistentVolume | None:
    """find_matching_volume over `claim_candidates` on one node: the rest of its checks."""
    smallest: PersistentVolume | None = None
    labels = node.labels
    for pv in candidates:
        if pv.name in excluded:
            continue
        affinity_ok = check_node_affinity(pv, labels)
        if pv.claim_ref is not None and is_volume_bound_to_claim(pv, pvc):
            return pv if affinity_ok else None
        if not affinity_ok:
            continue
        if smallest is None or (smallest.capacity or 0) > (pv.capacity or 0):
            smallest = pv
    return smallest


class VolumeBinder:
    """One profile's binder: its assume caches over the cluster's PVs and PVCs."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle  # the framework: its cluster, and the API writer (options.client)
        self.pv_cache = AssumeCache(self, "pvs", "PersistentVolume")
        self.pvc_cache = AssumeCache(self, "pvcs", "PersistentVolumeClaim")

    @property
    def store(self) -> StorageState:
        return self._handle.cluster.storage

    @property
    def _store(self) -> StorageState:
        return self._handle.cluster.storage

    def _api_of(self) -> Any:
        return self._handle.options.client

    # ---- PreFilter ------------------------------------------------------------------------------
    def is_delay_binding_mode(self, pvc: PersistentVolumeClaim) -> bool:
        name = claim_class(pvc)
        if not name:
            return False
        cls = self._store.classes.get(name)
        if cls is None:
            return False
        return cls.volume_binding_mode == BINDING_WAIT_FOR_FIRST_CONSUMER

    def get_pod_volume_claims(self, pod: Pod) -> PodVolumeClaims:
        out = PodVolumeClaims()
        for vol in pod.volumes:
            name = claim_name(pod, vol)
            if name is None:
                continue
            key = f"{pod.namespace}/{name}"
            pvc = self.pvc_cache.get(key)
            if pvc is None:
                raise BinderError(f'error getting PVC "{key}": persistentvolumeclaim "{name}" not found')
            if vol.source == "ephemeral" and not is_owned_by(pvc, pod):
                raise BinderError(f"PVC {pvc.namespace}/{pvc.name} was not created for pod "
                                  f"{pod.namespace}/{pod.name} (pod is not owner)")
            if is_pvc_fully_bound(pvc):
                out.bound_claims.append(pvc)
            elif self.is_delay_binding_mode(pvc) and not pvc.volume_name:
                out.unbound_claims_delay_binding.append(pvc)
            else:
                out.unbound_claims_immediate.append(pvc)
        for pvc in out.unbound_claims_delay_binding:
            cls = claim_class(pvc)
            out.unbound_volumes_delay_binding[cls] = [
                self.pv_cache.latest(pv, pv.name) for pv in self._store.pvs_of_class(cls)]
        return out

    def get_eligible_nodes(self, bound_claims: list[PersistentVolumeClaim]) -> set[str] | None:
        """v1.30 (GetEligibleNodes): the nodes every bound local PV names by hostname; None when
        no bound PV narrows anything or a bound PV is missing."""
        eligible: set[str] | None = None
        for pvc in bound_claims:
            pv = self.pv_cache.get(pvc.volume_name)
            if pv is None:
                return None
            names = local_pv_node_names(pv)
            if names:
                eligible = set(names) if eligible is None else eligible & set(names)
        return eligible

    # ---- Filter ---------------------------------------------------------------------------------
    def find_pod_volumes(self, pod: Pod, claims: PodVolumeClaims, node: Node
                         ) -> tuple[PodVolumes, list[str]]:
        """The bindings and provisionings that would make the pod's volumes work on `node`, and
        the reasons they cannot (upstream FindPodVolumes). Raises BinderError."""
        pv = PodVolumes()
        bound_ok = unbound_ok = sufficient = pvs_found = True
        static: list[BindingInfo] = []
        dynamic: list[PersistentVolumeClaim] = []
        if claims.bound_claims:
            bound_ok, pvs_found = self._check_bound_claims(claims.bound_claims, node)
        if claims.unbound_claims_delay_binding:
            to_match: list[PersistentVolumeClaim] = []
            to_provision: list[PersistentVolumeClaim] = []
            selected_elsewhere = False
            for c in claims.unbound_claims_delay_binding:
                selected = c.annotations.get(ANN_SELECTED_NODE)
                if selected is not None:
                    if selected != node.name:
                        unbound_ok = False
                        selected_elsewhere = True
                        break
                    to_provision.append(c)
                else:
                    to_match.append(c)
            if not selected_elsewhere:
                if to_match:
                    unbound_ok, static, unmatched = self._find_matching_volumes(to_match, claims, node)
                    to_provision += unmatched
                if to_provision:
                    unbound_ok, sufficient, dynamic, capacities = self._check_volume_provisions(to_provision, node)
                    pv.node_capacities = capacities or None
        reasons = []
        if not bound_ok:
            reasons.append(ERR_REASON_NODE_CONFLICT)
        if not unbound_ok:
            reasons.append(ERR_REASON_BIND_CONFLICT)
        if not sufficient:
            reasons.append(ERR_REASON_NOT_ENOUGH_SPACE)
        if not pvs_found:
            reasons.append(ERR_REASON_PV_NOT_EXIST)
        pv.static_bindings = static or None
        pv.dynamic_provisions = dynamic or None
        return pv, reasons

    def _check_bound_claims(self, claims: list[PersistentVolumeClaim], node: Node) -> tuple[bool, bool]:
        for pvc in claims:
            pv = self.pv_cache.get(pvc.volume_name)
            if pv is None:
                return True, False
            if not check_node_affinity(pv, node.labels):
                return False, True
        return True, True

    def _find_matching_volumes(self, claims: list[PersistentVolumeClaim], pod_claims: PodVolumeClaims,
                               node: Node) -> tuple[bool, list[BindingInfo], list[PersistentVolumeClaim]]:
        chosen: dict[str, PersistentVolume] = {}
        found = True
        bindings: list[BindingInfo] = []
        unbound: list[PersistentVolumeClaim] = []
        volumes = pod_claims.unbound_volumes_delay_binding
        for pvc in sorted(claims, key=lambda c: c.request or 0):
            cands = pod_claims.candidates.get(pvc.key)
            if cands is None:
                cands = claim_candidates(pvc, volumes.get(claim_class(pvc), []))
                pod_claims.candidates[pvc.key] = cands
            pv = match_on_node(pvc, cands, node, chosen) if cands else None
            if pv is None:
                unbound.append(pvc)
                found = False
                continue
            chosen[pv.name] = pv
            bindings.append(BindingInfo(pvc, pv))
        return found, bindings, unbound

    def _check_volume_provisions(self, claims: list[PersistentVolumeClaim], node: Node
                                 ) -> tuple[bool, bool, list[PersistentVolumeClaim], dict[str, CSIStorageCapacity]]:
        out: list[PersistentVolumeClaim] = []
        capacities: dict[str, CSIStorageCapacity] = {}
        store = self._store
        for pvc in claims:
            name = claim_class(pvc)
            if not name:
                raise BinderError(f'no class for claim "{pvc.key}"')
            cls = store.classes.get(name)
            if cls is None:
                raise BinderError(f'failed to find storage class "{name}"')
            if not cls.provisioner or cls.provisioner == NOT_SUPPORTED_PROVISIONER:
                return False, True, [], {}
            if not match_topology_selector_terms(cls.allowed_topologies, node.labels):
                return False, True, [], {}
            sufficient, capacity = self._has_enough_capacity(cls.provisioner, pvc, name, node)
            if not sufficient:
                return True, False, [], {}
            if capacity is not None:
                capacities[pvc.key] = capacity
            out.append(pvc)
        return True, True, out, capacities

    def _has_enough_capacity(self, provisioner: str, pvc: PersistentVolumeClaim, class_name: str,
                             node: Node) -> tuple[bool, CSIStorageCapacity | None]:
        """Whether a CSIStorageCapacity of the class reachable from `node` has room for the claim,
        and which (the first in namespace/name order; upstream takes the lister's first). Only
        for a provisioner that is a CSIDriver with `storageCapacity: true`; any other provisioner
        is not checked (upstream hasEnoughCapacity). Sizes compare as whole bytes, rounded up
        (Quantity.Value)."""
        if pvc.request is None:
            return True, None
        driver = self._store.csi_drivers.get(provisioner)
        if driver is None or not driver.storage_capacity:
            return True, None
        size = math.ceil(pvc.request)
        for cap in self._store.capacities.values():
            if cap.storage_class_name != class_name:
                continue
            limit = cap.volume_limit
            if limit is None or math.ceil(limit) < size:
                continue
            if cap.node_topology is None or not cap.node_topology.matches(node.labels):
                continue
            return True, cap
        return False, None

    # ---- Reserve / Unreserve ----------------------------------------------------------------------
    def are_pod_volumes_bound(self, pod: Pod) -> bool:
        for vol in pod.volumes:
            name = claim_name(pod, vol)
            if name is None:
                continue
            pvc = self.pvc_cache.get(f"{pod.namespace}/{name}")
            if pvc is None or not is_pvc_fully_bound(pvc):
                return False
        return True

    def assume_pod_volumes(self, pod: Pod, node_name: str, volumes: PodVolumes) -> bool:
        """Assume the node's bindings (PVs' claimRef) and provisionings (claims' selected-node);
        True when every volume is bound already."""
        if self.are_pod_volumes_bound(pod):
            return True
        new_bindings: list[BindingInfo] = []
        try:
            for b in volumes.static_bindings or []:
                new_pv, dirty = _bind_volume_to_claim(b.pv, b.pvc)
                if dirty:
                    self.pv_cache.assume(new_pv, new_pv.name)
                new_bindings.append(BindingInfo(b.pvc, new_pv))
            new_claims: list[PersistentVolumeClaim] = []
            for c in volumes.dynamic_provisions or []:
                ann = {**c.annotations, ANN_SELECTED_NODE: node_name}
                clone = dataclasses.replace(c, annotations=ann)
                self.pvc_cache.assume(clone, clone.key)
                new_claims.append(clone)
        except AssumeError as e:
            for b in new_bindings:
                self.pv_cache.restore(b.pv.name)
            for c in volumes.dynamic_provisions or []:
                self.pvc_cache.restore(c.key)
            raise BinderError(str(e)) from None
        volumes.static_bindings = new_bindings
        volumes.dynamic_provisions = new_claims
        return False

    def revert_assumed_pod_volumes(self, volumes: PodVolumes) -> None:
        for b in volumes.static_bindings or []:
            self.pv_cache.restore(b.pv.name)
        for c in volumes.dynamic_provisions or []:
            self.pvc_cache.restore(c.key)

    # ---- PreBind ----------------------------------------------------------------------------------
    def bind_pod_volumes(self, pod: Pod, node_name: str, volumes: PodVolumes, by: str) -> str | None:
        """Write the assumed bindings and provisionings through the API, then check that the PV
        controller and the provisioner completed them; an error text, or None."""
        api = self._api_of()
        bindings = volumes.static_bindings
        claims = volumes.dynamic_provisions
        if bindings is None:
            return f'failed to get cached bindings for pod "{pod.key}"'
        if claims is None:
            return f'failed to get cached claims to provision for pod "{pod.key}"'
        for b in bindings:
            b.pv = api.update_pv(b.pv, by=by, change=f"claimRef set to {b.pvc.key} for pod {pod.key}")
        for i, c in enumerate(claims):
            api.update_pvc(c, by=by, change=f"annotated {ANN_SELECTED_NODE}={node_name} for pod {pod.key}")
            claims[i] = self._store.pvcs.get(c.key, c)
        return self._check_bindings(pod, node_name, bindings, claims)

    def _check_bindings(self, pod: Pod, node_name: str, bindings: list[BindingInfo],
                        claims: list[PersistentVolumeClaim]) -> str | None:
        api = self._api_of()
        node = api.cluster.nodes.get(node_name)
        if node is None:
            return f'failed to get node "{node_name}": node "{node_name}" not found'
        if pod.key not in api.cluster.pods:
            return f'pod does not exist any more: pods "{pod.name}" not found'
        for b in bindings:
            pv = self.pv_cache.get_api_obj(b.pv.name)
            pvc = self.pvc_cache.get_api_obj(b.pvc.key)
            if pv is None or pvc is None:
                return "failed to check binding: not found"
            if not check_node_affinity(pv, node.labels):
                return (f'pv "{pv.name}" node affinity doesn\'t match node "{node_name}": '
                        "no matching NodeSelectorTerms")
            if pv.claim_ref is None or not pv.claim_ref.uid:
                return f'ClaimRef got reset for pv "{pv.name}"'
            if not is_pvc_fully_bound(pvc):
                return "binding volumes: context deadline exceeded"
        for c in claims:
            pvc = self.pvc_cache.get_api_obj(c.key)
            if pvc is None:
                return "failed to check provisioning pvc: not found"
            if pvc.annotations.get(ANN_SELECTED_NODE) != node_name:
                return f'provisioning failed for PVC "{pvc.name}"'
            if pvc.volume_name:
                pv = self.pv_cache.get_api_obj(pvc.volume_name)
                if pv is not None and not check_node_affinity(pv, node.labels):
                    return (f'pv "{pv.name}" node affinity doesn\'t match node "{node_name}": '
                            "no matching NodeSelectorTerms")
            if not is_pvc_fully_bound(pvc):
                return "binding volumes: context deadline exceeded"
        return None


def _bind_volume_to_claim(pv: PersistentVolume, pvc: PersistentVolumeClaim) -> tuple[PersistentVolume, bool]:
    """upstream GetBindVolumeToClaim: the PV with claimRef (and bound-by-controller) set."""
    dirty = False
    set_by_controller = not is_volume_bound_to_claim(pv, pvc)
    new = pv
    ref = pv.claim_ref
    if ref is None or ref.name != pvc.name or ref.namespace != pvc.namespace or ref.uid != pvc.uid:
        new = dataclasses.replace(new, claim_ref=ClaimRef(pvc.namespace, pvc.name, pvc.uid))
        dirty = True
    if set_by_controller and ANN_BOUND_BY_CONTROLLER not in new.annotations:
        new = dataclasses.replace(new, annotations={**new.annotations, ANN_BOUND_BY_CONTROLLER: "yes"})
        dirty = True
    return new, dirty

