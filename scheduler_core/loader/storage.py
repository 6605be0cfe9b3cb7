"""The storage kinds as the apiserver stores them: defaults, then validation with upstream's
rules and wording (core/validation ValidatePersistentVolume, ValidatePersistentVolumeClaim,
the pod's volumes; storage/validation for StorageClass, CSINode, CSIDriver, CSIStorageCapacity),
one error at a time.

A claim naming a missing class, a missing PV or a missing claim is not an error here: the
apiserver accepts it, and the scheduler reports it (VolumeBinding's PreFilter and Filter).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from scheduler_core.api.storage_types import (
    ACCESS_MODES,
    ANN_BIND_COMPLETED,
    BINDING_IMMEDIATE,
    BINDING_WAIT_FOR_FIRST_CONSUMER,
    PV_AVAILABLE,
    PV_BOUND,
    PVC_BOUND,
    PVC_PENDING,
    READ_WRITE_ONCE_POD,
    ClaimRef,
    ClaimTemplate,
    CSIDriver,
    CSINode,
    CSINodeDriver,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    StorageObjects,
    TopologySelectorTerm,
    Volume,
)
from scheduler_core.api.types import NodeSelector, OwnerReference
from scheduler_core.api.validation import (
    dns1123_label_error,
    dns1123_subdomain_error,
    label_value_error,
    qualified_name_error,
)
from scheduler_core.loader.metadata import parse_metadata, stable_uid
from scheduler_core.loader.reader import FieldReader, join_path
from scheduler_core.loader.schema import STORAGE
from scheduler_core.loader.selectors import label_selector, node_selector_term

POD_VOLUME_SOURCES = STORAGE["pod_volume_sources"]
PV_SOURCES = STORAGE["pv_sources"]

__all__ = ["parse_persistent_volume", "parse_persistent_volume_claim", "parse_storage_class",
           "parse_csi_node", "parse_csi_driver", "parse_csi_storage_capacity", "parse_volumes", "admit_storage",
           "STORAGE_KINDS"]

STORAGE_KINDS = ("PersistentVolume", "PersistentVolumeClaim", "StorageClass", "CSINode", "CSIDriver",
                 "CSIStorageCapacity")
_VOLUME_MODES = ("Block", "Filesystem")
_RECLAIM_POLICIES = ("Delete", "Recycle", "Retain")


def _supported(value: str, options: tuple[str, ...]) -> str:
    return f'Unsupported value: "{value}": supported values: ' + ", ".join(f'"{o}"' for o in options)


def _access_modes(r: FieldReader, obj: Any, path: str) -> tuple[str, ...]:
    modes = r.string_list(obj, path)
    if not modes:
        raise r.err(path, "Required value")
    for i, m in enumerate(modes):
        if m not in ACCESS_MODES:
            raise r.err(f"{path}[{i}]", _supported(m, ACCESS_MODES))
    if READ_WRITE_ONCE_POD in modes and len(modes) > 1:
        raise r.err(path, "Forbidden: may not use ReadWriteOncePod with other access modes")
    return tuple(modes)


def _storage_size(r: FieldReader, obj: Any, path: str, what: str) -> Fraction:
    """A `storage` quantity: present, a valid quantity, not negative, not zero."""
    m = r.mapping(obj, path)
    if "storage" not in m or m.get("storage") is None:
        raise r.err(join_path(path, "storage") if m else path, f"Required value: {what}")
    for k in m:
        if k != "storage":
            raise r.err(path, f'Unsupported value: "{k}": supported values: "storage"')
    p = f"{path}[storage]"
    q = r.quantity(m["storage"], p)
    shown = m["storage"] if isinstance(m["storage"], str) else str(m["storage"])
    if q < 0:
        raise r.err(p, f'Invalid value: "{shown}": must be greater than or equal to 0')
    if q == 0:
        raise r.err(p, f'Invalid value: "{shown}": must be greater than zero')
    return q


def _volume_mode(r: FieldReader, obj: Any, path: str) -> str:
    mode = r.string(obj, path) or "Filesystem"
    if mode not in _VOLUME_MODES:
        raise r.err(path, _supported(mode, _VOLUME_MODES))
    return mode


def _class_name(r: FieldReader, obj: Any, path: str) -> str | None:
    if obj is None:
        return None
    name = r.string(obj, path)
    if name:
        err = dns1123_subdomain_error(name)
        if err:
            raise r.err(path, f'Invalid value: "{name}": {err}')
    return name


def _one_source(r: FieldReader, spec: dict[str, Any], path: str, sources: dict[str, Any]
                ) -> str | None:
    present = [k for k in sources if spec.get(k) is not None]
    if len(present) > 1:
        raise r.err(join_path(path, present[1]), "Forbidden: may not specify more than 1 volume type")
    return present[0] if present else None


# ---- PersistentVolume ------------------------------------------------------------------------
def parse_persistent_volume(r: FieldReader, obj: dict[str, Any], index: int = 0) -> PersistentVolume:
    name, _, labels, annotations = parse_metadata(r, obj, namespaced=False)
    spec = r.mapping(obj.get("spec"), "spec", required=True)
    modes = _access_modes(r, spec.get("accessModes"), "spec.accessModes")
    if spec.get("capacity") is None:
        raise r.err("spec.capacity", "Required value")
    capacity = _storage_size(r, spec.get("capacity"), "spec.capacity", "must specify storage")
    source = _one_source(r, spec, "spec", PV_SOURCES)
    if source is None:
        raise r.err("spec", "Required value: must specify a volume type")
    src = r.mapping(spec.get(source), f"spec.{source}")
    sc_name = _class_name(r, spec.get("storageClassName"), "spec.storageClassName") or ""
    policy = r.string(spec.get("persistentVolumeReclaimPolicy"), "spec.persistentVolumeReclaimPolicy") \
        or "Retain"
    if policy not in _RECLAIM_POLICIES:
        raise r.err("spec.persistentVolumeReclaimPolicy", _supported(policy, _RECLAIM_POLICIES))
    node_affinity = None
    na = spec.get("nodeAffinity")
    if na is not None:
        nam = r.mapping(na, "spec.nodeAffinity")
        req = nam.get("required")
        if req is None:
            raise r.err("spec.nodeAffinity.required", "Required value: must specify required node "
                                                      "constraints")
        rm = r.mapping(req, "spec.nodeAffinity.required")
        tp = "spec.nodeAffinity.required.nodeSelectorTerms"
        raw_terms = r.seq(rm.get("nodeSelectorTerms"), tp)
        if not raw_terms:
            raise r.err(tp, "Required value: must have at least one node selector term")
        node_affinity = NodeSelector([node_selector_term(r, t, f"{tp}[{i}]", allow_invalid_values=False)
                                      for i, t in enumerate(raw_terms)])
    if source == "local" and node_affinity is None:
        raise r.err("spec.nodeAffinity", "Required value: Local volume requires node affinity")
    driver = handle = ""
    fields: dict[str, object] = {"spec": dict(src)}
    if source == "csi":
        driver = r.string(src.get("driver"), "spec.csi.driver")
        handle = r.string(src.get("volumeHandle"), "spec.csi.volumeHandle")
        if not driver:
            raise r.err("spec.csi.driver", "Required value")
        if not handle:
            raise r.err("spec.csi.volumeHandle", "Required value")
    elif source == "local":
        if not r.string(src.get("path"), "spec.local.path"):
            raise r.err("spec.local.path", "Required value")
    else:
        fields.update(_disk_fields(r, source, src, f"spec.{source}"))
    claim_ref = None
    cr = spec.get("claimRef")
    if cr is not None:
        crm = r.mapping(cr, "spec.claimRef")
        claim_ref = ClaimRef(namespace=r.string(crm.get("namespace"), "spec.claimRef.namespace") or "default",
                             name=r.string(crm.get("name"), "spec.claimRef.name"),
                             uid=r.string(crm.get("uid"), "spec.claimRef.uid"))
        if not claim_ref.name:
            raise r.err("spec.claimRef.name", "Required value")
    status = r.mapping(obj.get("status"), "status")
    phase = r.string(status.get("phase"), "status.phase") or PV_AVAILABLE
    phases = ("Pending", "Available", "Bound", "Released", "Failed")
    if phase not in phases:
        raise r.err("status.phase", _supported(phase, phases))
    return PersistentVolume(
        name=name, uid=stable_uid("PersistentVolume", "", name), labels=labels, annotations=annotations,
        capacity=capacity, access_modes=modes, storage_class_name=sc_name,
        volume_mode=_volume_mode(r, spec.get("volumeMode"), "spec.volumeMode"),
        volume_attributes_class_name=r.string(spec.get("volumeAttributesClassName"),
                                              "spec.volumeAttributesClassName"),
        node_affinity=node_affinity, claim_ref=claim_ref, reclaim_policy=policy, source=source,
        csi_driver=driver, volume_handle=handle, source_fields=fields, phase=phase,
        creation_index=index)


def _disk_fields(r: FieldReader, source: str, src: dict[str, Any], path: str) -> dict[str, object]:
    """What identifies an in-tree disk (the ids VolumeRestrictions and CSI migration use)."""
    key = {"gcePersistentDisk": "pdName", "awsElasticBlockStore": "volumeID", "iscsi": "iqn",
           "rbd": "image", "azureDisk": "diskURI", "cinder": "volumeID"}.get(source)
    out: dict[str, object] = {}
    if key is None:
        return out
    ident = r.string(src.get(key), f"{path}.{key}")
    if not ident:
        raise r.err(f"{path}.{key}", "Required value")
    out["id"] = ident
    out["readOnly"] = r.boolean(src.get("readOnly"), f"{path}.readOnly")
    if source == "rbd":
        monitors = r.string_list(src.get("monitors"), f"{path}.monitors")
        if not monitors:
            raise r.err(f"{path}.monitors", "Required value")
        out["monitors"] = tuple(monitors)
        out["pool"] = r.string(src.get("pool"), f"{path}.pool") or "rbd"
    if source == "iscsi" and not r.string(src.get("targetPortal"), f"{path}.targetPortal"):
        raise r.err(f"{path}.targetPortal", "Required value")
    if source == "azureDisk" and not r.string(src.get("diskName"), f"{path}.diskName"):
        raise r.err(f"{path}.diskName", "Required value")
    return out


# ---- PersistentVolumeClaim -------------------------------------------------------------------
def _claim_spec(r: FieldReader, spec: dict[str, Any], path: str) -> dict[str, Any]:
    modes = _access_modes(r, spec.get("accessModes"), join_path(path, "accessModes"))
    res = r.mapping(spec.get("resources"), join_path(path, "resources"))
    requests = res.get("requests")
    rp = join_path(path, "resources.requests")
    if requests is None or (isinstance(requests, dict) and requests.get("storage") is None):
        raise r.err(f"{join_path(path, 'resources')}[storage]", "Required value")
    size = _storage_size(r, requests, rp, "must specify storage")
    if res.get("limits") is not None:
        lim = r.mapping(res.get("limits"), join_path(path, "resources.limits"))
        if lim.get("storage") is not None:
            lq = r.quantity(lim["storage"], f"{join_path(path, 'resources.limits')}[storage]")
            if lq < size:
                raise r.err(f"{rp}[storage]", "Invalid value: must be less than or equal to "
                                              "storage limit")
    return {
        "access_modes": modes, "request": size,
        "storage_class_name": _class_name(r, spec.get("storageClassName"),
                                          join_path(path, "storageClassName")),
        "selector": label_selector(r, spec.get("selector"), join_path(path, "selector")),
        "volume_mode": _volume_mode(r, spec.get("volumeMode"), join_path(path, "volumeMode")),
        "volume_name": r.string(spec.get("volumeName"), join_path(path, "volumeName")),
    }


def parse_persistent_volume_claim(r: FieldReader, obj: dict[str, Any], index: int = 0
                                  ) -> PersistentVolumeClaim:
    name, namespace, labels, annotations = parse_metadata(r, obj, namespaced=True)
    spec = r.mapping(obj.get("spec"), "spec", required=True)
    cs = _claim_spec(r, spec, "spec")
    status = r.mapping(obj.get("status"), "status")
    phase = r.string(status.get("phase"), "status.phase") or PVC_PENDING
    if phase not in ("Pending", "Bound", "Lost"):
        raise r.err("status.phase", _supported(phase, ("Bound", "Lost", "Pending")))
    owners = []
    meta = obj.get("metadata") or {}
    for i, ref in enumerate(r.seq(meta.get("ownerReferences"), "metadata.ownerReferences")):
        p = f"metadata.ownerReferences[{i}]"
        m = r.mapping(ref, p, required=True)
        owners.append(OwnerReference(kind=r.string(m.get("kind"), f"{p}.kind"),
                                     name=r.string(m.get("name"), f"{p}.name"),
                                     api_version=r.string(m.get("apiVersion"), f"{p}.apiVersion") or "v1",
                                     uid=r.string(m.get("uid"), f"{p}.uid"),
                                     controller=r.boolean(m.get("controller"), f"{p}.controller")))
    return PersistentVolumeClaim(
        name=name, namespace=namespace,
        uid=r.string(meta.get("uid"), "metadata.uid") or stable_uid("PersistentVolumeClaim", namespace, name),
        labels=labels, annotations=annotations, owner_references=owners,
        volume_attributes_class_name=r.string(spec.get("volumeAttributesClassName"),
                                              "spec.volumeAttributesClassName"),
        phase=phase, creation_index=index, **cs)


# ---- StorageClass, CSINode, CSIDriver ------------------------------------------------------------
def parse_storage_class(r: FieldReader, obj: dict[str, Any], index: int = 0) -> StorageClass:
    name, _, labels, annotations = parse_metadata(r, obj, namespaced=False)
    provisioner = r.string(obj.get("provisioner"), "provisioner")
    if not provisioner:
        raise r.err("provisioner", "Required value")
    if qualified_name_error(provisioner.lower()):
        raise r.err("provisioner", f'Invalid value: "{provisioner}": {qualified_name_error(provisioner.lower())}')
    mode = r.string(obj.get("volumeBindingMode"), "volumeBindingMode") or BINDING_IMMEDIATE
    modes = (BINDING_IMMEDIATE, BINDING_WAIT_FOR_FIRST_CONSUMER)
    if mode not in modes:
        raise r.err("volumeBindingMode", _supported(mode, modes))
    policy = r.string(obj.get("reclaimPolicy"), "reclaimPolicy") or "Delete"
    if policy not in ("Delete", "Retain"):
        raise r.err("reclaimPolicy", _supported(policy, ("Delete", "Retain")))
    terms = []
    for i, t in enumerate(r.seq(obj.get("allowedTopologies"), "allowedTopologies")):
        p = f"allowedTopologies[{i}]"
        tm = r.mapping(t, p, required=True)
        ep = f"{p}.matchLabelExpressions"
        raw = r.seq(tm.get("matchLabelExpressions"), ep)
        if not raw:
            raise r.err(ep, "Required value: must contain at least one key-value pair")
        exprs: list[tuple[str, tuple[str, ...]]] = []
        for j, e in enumerate(raw):
            q = f"{ep}[{j}]"
            em = r.mapping(e, q, required=True)
            key = r.string(em.get("key"), f"{q}.key")
            err = qualified_name_error(key)
            if err:
                raise r.err(f"{q}.key", f'Invalid value: "{key}": {err}')
            if any(k == key for k, _ in exprs):
                raise r.err(f"{q}.key", f'Duplicate value: "{key}"')
            values = r.string_list(em.get("values"), f"{q}.values")
            if not values:
                raise r.err(f"{q}.values", "Required value: must specify as least one value")
            for v_i, v in enumerate(values):
                verr = label_value_error(v)
                if verr:
                    raise r.err(f"{q}.values[{v_i}]", f'Invalid value: "{v}": {verr}')
            exprs.append((key, tuple(values)))
        terms.append(TopologySelectorTerm(exprs))
    if terms and mode == BINDING_IMMEDIATE:
        pass  # allowed: Immediate provisioning honours allowedTopologies too
    return StorageClass(name=name, provisioner=provisioner, volume_binding_mode=mode,
                        allowed_topologies=terms, reclaim_policy=policy,
                        parameters=r.string_map(obj.get("parameters"), "parameters"),
                        annotations=annotations, labels=labels, creation_index=index)


def parse_csi_node(r: FieldReader, obj: dict[str, Any]) -> CSINode:
    name, _, _, annotations = parse_metadata(r, obj, namespaced=False)
    spec = r.mapping(obj.get("spec"), "spec", required=True)
    drivers: list[CSINodeDriver] = []
    for i, d in enumerate(r.seq(spec.get("drivers"), "spec.drivers")):
        p = f"spec.drivers[{i}]"
        dm = r.mapping(d, p, required=True)
        dname = r.string(dm.get("name"), f"{p}.name")
        if not dname:
            raise r.err(f"{p}.name", "Required value")
        err = dns1123_subdomain_error(dname.lower())
        if err:
            raise r.err(f"{p}.name", f'Invalid value: "{dname}": {err}')
        if any(x.name == dname for x in drivers):
            raise r.err(f"{p}.name", f'Duplicate value: "{dname}"')
        node_id = r.string(dm.get("nodeID"), f"{p}.nodeID")
        if not node_id:
            raise r.err(f"{p}.nodeID", "Required value")
        count = None
        alloc = dm.get("allocatable")
        if alloc is not None:
            am = r.mapping(alloc, f"{p}.allocatable")
            count = r.opt_integer(am.get("count"), f"{p}.allocatable.count")
            if count is not None and count < 0:
                raise r.err(f"{p}.allocatable.count", f"Invalid value: {count}: must be greater than "
                                                      "or equal to 0")
        drivers.append(CSINodeDriver(name=dname, node_id=node_id,
                                     topology_keys=tuple(r.string_list(dm.get("topologyKeys"),
                                                                       f"{p}.topologyKeys")),
                                     allocatable_count=count))
    return CSINode(name=name, annotations=annotations, drivers=drivers)


def parse_csi_driver(r: FieldReader, obj: dict[str, Any]) -> CSIDriver:
    name, _, labels, _ = parse_metadata(r, obj, namespaced=False)
    spec = r.mapping(obj.get("spec"), "spec", required=True)
    attach = spec.get("attachRequired")
    return CSIDriver(name=name,
                     attach_required=True if attach is None else r.boolean(attach, "spec.attachRequired"),
                     storage_capacity=r.boolean(spec.get("storageCapacity"), "spec.storageCapacity"),
                     labels=labels)


def _nonnegative_quantity(r: FieldReader, obj: Any, path: str) -> Fraction | None:
    if obj is None:
        return None
    q = r.quantity(obj, path)
    if q < 0:
        shown = obj if isinstance(obj, str) else str(obj)
        raise r.err(path, f'Invalid value: "{shown}": must be greater than or equal to 0')
    return q


def parse_csi_storage_capacity(r: FieldReader, obj: dict[str, Any]) -> CSIStorageCapacity:
    """storage.k8s.io/v1 CSIStorageCapacity (storage/validation ValidateCSIStorageCapacity): a
    DNS-subdomain name, a valid nodeTopology selector (absent: the capacity is usable nowhere),
    a storageClassName that is a DNS subdomain, a capacity that is not negative."""
    name, namespace, labels, _ = parse_metadata(r, obj, namespaced=True)
    topology = label_selector(r, obj.get("nodeTopology"), "nodeTopology")
    cls = r.string(obj.get("storageClassName"), "storageClassName")
    err = dns1123_subdomain_error(cls)
    if err:
        raise r.err("storageClassName", f'Invalid value: "{cls}": {err}')
    capacity = _nonnegative_quantity(r, obj.get("capacity"), "capacity")
    max_size = None if obj.get("maximumVolumeSize") is None else r.quantity(obj["maximumVolumeSize"],
                                                                          "maximumVolumeSize")
    return CSIStorageCapacity(namespace=namespace, name=name, storage_class_name=cls, node_topology=topology,
                              capacity=capacity, maximum_volume_size=max_size, labels=labels)


# ---- a pod's volumes -----------------------------------------------------------------------------
def parse_volumes(r: FieldReader, obj: Any, path: str) -> list[Volume]:
    """spec.volumes: names unique DNS labels, one source each (emptyDir when none, the
    apiserver's default), the sources the plugins compare read."""
    out: list[Volume] = []
    seen: set[str] = set()
    for i, v in enumerate(r.seq(obj, path)):
        p = f"{path}[{i}]"
        m = r.mapping(v, p, required=True)
        name = r.string(m.get("name"), f"{p}.name")
        if not name:
            raise r.err(f"{p}.name", "Required value")
        err = dns1123_label_error(name)
        if err:
            raise r.err(f"{p}.name", f'Invalid value: "{name}": {err}')
        if name in seen:
            raise r.err(f"{p}.name", f'Duplicate value: "{name}"')
        seen.add(name)
        source = _one_source(r, m, p, POD_VOLUME_SOURCES) or "emptyDir"
        raw = m.get(source)
        src = r.mapping(raw, f"{p}.{source}")
        vol = Volume(name=name, source=source, raw=dict(src))
        sp = f"{p}.{source}"
        if source == "persistentVolumeClaim":
            vol.claim_name = r.string(src.get("claimName"), f"{sp}.claimName")
            if not vol.claim_name:
                raise r.err(f"{sp}.claimName", "Required value")
            vol.read_only = r.boolean(src.get("readOnly"), f"{sp}.readOnly")
        elif source == "ephemeral":
            tmpl = src.get("volumeClaimTemplate")
            if tmpl is None:
                raise r.err(f"{sp}.volumeClaimTemplate", "Required value")
            tp = f"{sp}.volumeClaimTemplate"
            tm = r.mapping(tmpl, tp)
            meta = r.mapping(tm.get("metadata"), f"{tp}.metadata")
            cs = _claim_spec(r, r.mapping(tm.get("spec"), f"{tp}.spec", required=True), f"{tp}.spec")
            vol.claim_template = ClaimTemplate(
                labels=r.labels(meta.get("labels"), f"{tp}.metadata.labels"),
                annotations=r.string_map(meta.get("annotations"), f"{tp}.metadata.annotations"),
                **cs)
        elif source == "csi":
            vol.csi_driver = r.string(src.get("driver"), f"{sp}.driver")
            if not vol.csi_driver:
                raise r.err(f"{sp}.driver", "Required value")
        else:
            fields = _disk_fields(r, source, src, sp)
            vol.disk_id = str(fields.get("id", ""))
            vol.read_only = bool(fields.get("readOnly", False))
            vol.monitors = tuple(fields.get("monitors", ()))  # type: ignore[arg-type]
            vol.pool = str(fields.get("pool", ""))
        out.append(vol)
    return out


# ---- what the controllers and admission do before the scheduler sees the objects ------------------
def admit_storage(storage: StorageObjects) -> None:
    """DefaultStorageClass admission for claims without a class, and the PV controller's view of
    claims written with spec.volumeName: bound (bind-completed, phase Bound), their PV claimed."""
    # The newest default class wins; objects created together tie on creationTimestamp, and
    # upstream then takes the first by name.
    defaults = sorted((c for c in storage.classes if c.is_default), key=lambda c: c.name)
    pvs = {pv.name: pv for pv in storage.pvs}
    for pvc in storage.pvcs:
        if pvc.storage_class_name is None and defaults and "volume.beta.kubernetes.io/storage-class" \
                not in pvc.annotations:
            pvc.storage_class_name = defaults[0].name
        if pvc.volume_name:
            pvc.annotations.setdefault(ANN_BIND_COMPLETED, "yes")
            pvc.phase = PVC_BOUND
            pv = pvs.get(pvc.volume_name)
            if pv is not None and pv.claim_ref is None:
                pv.claim_ref = ClaimRef(pvc.namespace, pvc.name, pvc.uid)
                pv.phase = PV_BOUND
            elif pv is not None and pv.claim_ref.name == pvc.name and \
                    pv.claim_ref.namespace == pvc.namespace:
                pv.phase = PV_BOUND
