"""What of a node VolumeBinding's Filter reads: the labels (and whether the name) on which the
binder's answer for one pod can depend.

`VolumeBinder.find_pod_volumes` looks at a node only through its labels (bound PVs' and
candidate PVs' node affinity, the classes' allowedTopologies, the CSIStorageCapacities' node
topology) and its name (a claim whose selected-node annotation is set). Within a cycle nothing
else it reads changes, so two nodes with the same values for those labels get the same answer,
reasons included: the plugin computes it once per combination. With 5,000 nodes over three
zones and zonal PVs, that is three computations instead of one per node.

Listing a label that the answer does not depend on is harmless (it only splits the memo); one
that it does depend on must never be missed, so every object the binder may read is walked, not
only the ones it will end up choosing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from scheduler_core.api.storage_types import ANN_SELECTED_NODE, PersistentVolume, claim_class
from scheduler_core.framework.plugins.volumebinding.binder import (
    BinderError,
    PodVolumeClaims,
    VolumeBinder,
    claim_candidates,
)

__all__ = ["node_dependence"]


def _affinity_keys(pv: PersistentVolume | None, keys: set[str]) -> bool:
    """Add the label keys of the PV's required node affinity; True if it has matchFields (which
    the binder evaluates without the node's name, but counting the name in costs little)."""
    if pv is None or pv.node_affinity is None:
        return False
    fields = False
    for term in pv.node_affinity.node_selector_terms:
        for req in term.match_expressions:
            keys.add(req.key)
        fields = fields or bool(term.match_fields)
    return fields


def _selector_keys(selector: Any, keys: set[str]) -> None:
    """The keys a LabelSelector reads (matchLabels and matchExpressions)."""
    keys.update(selector.match_labels)
    for req in selector.match_expressions:
        keys.add(req.key)


def _candidate_pvs(claims: PodVolumeClaims) -> Iterable[PersistentVolume]:
    """The PVs the binder may match a delayed claim with on some node: each claim's candidates
    (worked out here as the binder would at its first Filter, and kept for it), or, for a claim
    whose candidates cannot be worked out (the binder then fails the same way on every node),
    every PV of its class."""
    volumes = claims.unbound_volumes_delay_binding
    for pvc in claims.unbound_claims_delay_binding:
        cands = claims.candidates.get(pvc.key)
        if cands is None:
            try:
                cands = claims.candidates[pvc.key] = claim_candidates(pvc, volumes.get(claim_class(pvc), []))
            except BinderError:
                cands = volumes.get(claim_class(pvc), [])
        yield from cands


def node_dependence(binder: VolumeBinder, claims: PodVolumeClaims) -> tuple[tuple[str, ...], bool]:
    """The label keys, in a fixed order, and whether the node's name, that Filter's answer for
    these claims may depend on."""
    keys: set[str] = set()
    by_name = False
    for pvc in claims.bound_claims:
        by_name = _affinity_keys(binder.pv_cache.get(pvc.volume_name), keys) or by_name
    delayed = claims.unbound_claims_delay_binding
    if delayed:
        if any(ANN_SELECTED_NODE in c.annotations for c in delayed):
            by_name = True
        for pv in _candidate_pvs(claims):
            by_name = _affinity_keys(pv, keys) or by_name
        store = binder.store
        checked: set[str] = set()
        for pvc in delayed:
            name = claim_class(pvc)
            cls = store.classes.get(name) if name else None
            if cls is None or name in checked:
                continue
            checked.add(name)
            for term in cls.allowed_topologies:
                for key, _values in term.match_label_expressions:
                    keys.add(key)
            driver = store.csi_drivers.get(cls.provisioner)
            if driver is None or not driver.storage_capacity:
                continue
            for cap in store.capacities.values():
                if cap.storage_class_name == name and cap.node_topology is not None:
                    _selector_keys(cap.node_topology, keys)
    return tuple(sorted(keys)), by_name
