"""The storage part of a run's view (`Simulation.view`): classes, claims (bound or pending, to
which volume, which pods use them, the node a WaitForFirstConsumer claim was given) and volumes
(capacity, phase, claim, where they can be used), and the CSIStorageCapacities (class, where,
how much; only when the scenario has some). Absent from the view of a run without
storage objects and without pod volumes, so such runs' views are as before."""

from __future__ import annotations

from typing import Any

from scheduler_core.api.quantity import format_quantity
from scheduler_core.api.storage_types import ANN_SELECTED_NODE, CSIStorageCapacity, PersistentVolume, claim_class
from scheduler_core.api.types import LabelSelector
from scheduler_core.framework.plugins.helper.volumes import claim_name

__all__ = ["storage_view", "where_usable", "selector_text"]


def where_usable(pv: PersistentVolume) -> str:
    """The PV's required node affinity in words ("topology.kubernetes.io/zone in zone-a")."""
    if pv.node_affinity is None:
        return ""
    terms = []
    for t in pv.node_affinity.node_selector_terms:
        parts = [f"{e.key} {e.operator.lower()} {','.join(e.values)}".strip() for e in t.match_expressions]
        terms.append(" and ".join(parts))
    return " or ".join(terms)


def selector_text(sel: LabelSelector | None) -> str:
    """A label selector in words ("kubernetes.io/hostname=n1, zone in a,b"); "" for an empty one."""
    if sel is None:
        return ""
    parts = [f"{k}={v}" for k, v in sel.match_labels.items()]
    parts += [f"{e.key} {e.operator.lower()} {','.join(e.values)}".strip() for e in sel.match_expressions]
    return ", ".join(parts)


def _capacity_row(c: CSIStorageCapacity) -> dict[str, Any]:
    return {"key": c.key, "class": c.storage_class_name,
            "where": "nowhere" if c.node_topology is None else (selector_text(c.node_topology) or "every node"),
            "capacity": "" if c.capacity is None else format_quantity(c.capacity),
            "maximumVolumeSize": "" if c.maximum_volume_size is None else format_quantity(c.maximum_volume_size)}


def storage_view(scheduler: Any) -> dict[str, Any] | None:
    """The storage part of the view, or None for a run with no storage objects and no pod
    volumes. Reads the pods with volumes through `ClusterState.volume_pods`, so its cost follows
    the storage objects and their users, not the number of pods."""
    cs = scheduler.cluster
    st = cs.storage
    users: dict[str, list[str]] = {}
    pods = cs.pods
    # Only the pods with volumes (the store's index), not every pod: the view is built each Step.
    for pkey in cs.volume_pods:
        pod = pods[pkey]
        for v in pod.volumes:
            name = claim_name(pod, v)
            if name is not None:
                users.setdefault(f"{pod.namespace}/{name}", []).append(pod.key)
    if not (st.pvs or st.pvcs or st.classes or st.csi_nodes or st.capacities or users):
        return None
    default = st.default_class()
    classes = [{"name": c.name, "provisioner": c.provisioner, "mode": c.volume_binding_mode,
                "default": default is not None and default.name == c.name,
                "topologies": " or ".join(" and ".join(f"{k} in {','.join(v)}" for k, v in t.match_label_expressions)
                                          for t in c.allowed_topologies)}
               for c in sorted(st.classes.values(), key=lambda c: c.name)]
    claims = []
    for key in sorted(set(st.pvcs) | set(users)):
        c = st.pvcs.get(key)
        if c is None:  # a pod names a claim that does not exist
            claims.append({"key": key, "class": "", "request": "", "phase": "Missing", "volume": "",
                           "selectedNode": "", "usedBy": sorted(users.get(key, [])), "access": ""})
            continue
        claims.append({"key": key, "class": claim_class(c), "request": format_quantity(c.request or 0),
                       "phase": c.phase, "volume": c.volume_name,
                       "selectedNode": c.annotations.get(ANN_SELECTED_NODE, ""),
                       "usedBy": sorted(users.get(key, [])), "access": ",".join(c.access_modes)})
    volumes = [{"name": pv.name, "class": pv.storage_class_name, "capacity": format_quantity(pv.capacity or 0),
                "phase": pv.phase, "claim": f"{pv.claim_ref.namespace}/{pv.claim_ref.name}" if pv.claim_ref else "",
                "where": where_usable(pv), "source": pv.csi_driver or pv.source,
                "zone": pv.labels.get("topology.kubernetes.io/zone", "")}
               for pv in sorted(st.pvs.values(), key=lambda p: p.name)]
    out = {"storageClasses": classes, "storageClaims": claims, "storageVolumes": volumes}
    if st.capacities:
        out["storageCapacities"] = [_capacity_row(c) for c in st.capacities.values()]
    return out
