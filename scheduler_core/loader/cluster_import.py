"""Cluster dumps as scenarios: `kubectl get ... -o yaml` Lists and kube-scheduler-simulator
exports, reduced to what the scheduler of that cluster would see.

* A kube-scheduler-simulator export (its ResourcesForSnap JSON: `pods`, `nodes`, `pvs`, `pvcs`,
  `storageClasses`, `priorityClasses`, `namespaces`, `schedulerConfig`, objects without
  kind/apiVersion) becomes one List of typed objects.
* Finished pods (status.phase Succeeded or Failed) are dropped: kube-scheduler's pod informer
  lists pods with a field selector excluding those phases, so they hold no resources.
* In a dump, kinds the engine does not model (volume attachments, controller revisions,
  config and RBAC objects...) are dropped with a reason instead of failing the import; in
  hand-written manifests they stay errors.
* Pods bound to a node missing from the dump are dropped (the pod garbage collector would
  delete them).

Everything else (status, managedFields, resourceVersion, uid, creationTimestamp,
ownerReferences) is left for the loader, which ignores what it does not simulate.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.controllers.workloads.summary import DROPPED, WorkloadSummary

FORMAT_MANIFESTS = "manifests"
FORMAT_KUBECTL = "kubectl-list"
FORMAT_SIMULATOR = "kube-scheduler-simulator"

# ResourcesForSnap field -> (kind, apiVersion); None: not modelled by the engine.
_SIMULATOR_FIELDS: dict[str, tuple[str, str] | None] = {
    "nodes": ("Node", "v1"),
    "namespaces": ("Namespace", "v1"),
    "priorityClasses": ("PriorityClass", "scheduling.k8s.io/v1"),
    "pods": ("Pod", "v1"),
    "pvs": ("PersistentVolume", "v1"),
    "pvcs": ("PersistentVolumeClaim", "v1"),
    "storageClasses": ("StorageClass", "storage.k8s.io/v1"),
}
_SIMULATOR_UNMODELLED = {"pvs": "PersistentVolume", "pvcs": "PersistentVolumeClaim",
                         "storageClasses": "StorageClass"}

# Kinds a dump may hold that have no effect in the engine: dropped, with this reason.
NOT_SIMULATED_KINDS: dict[str, str] = {
    "VolumeAttachment": "volumes are not simulated",
    "ControllerRevision": "revision history is not simulated",
    "Endpoints": "networking is not simulated",
    "EndpointSlice": "networking is not simulated",
    "Ingress": "networking is not simulated",
    "ConfigMap": "configuration objects do not affect scheduling",
    "Secret": "configuration objects do not affect scheduling",
    "ServiceAccount": "configuration objects do not affect scheduling",
    "Event": "events do not affect scheduling",
    "Lease": "leases do not affect scheduling",
}

FINISHED_PHASES = ("Succeeded", "Failed")


def is_simulator_export(doc: Any) -> bool:
    """A mapping without kind whose keys are ResourcesForSnap's."""
    return (isinstance(doc, dict) and "kind" not in doc and "apiVersion" not in doc
            and any(k in doc for k in ("pods", "nodes"))
            and set(doc) <= set(_SIMULATOR_FIELDS) | {"schedulerConfig"})


def _looks_dumped(obj: dict[str, Any]) -> bool:
    """Objects read back from an apiserver carry a resourceVersion / uid / status."""
    meta = obj.get("metadata") or {}
    return isinstance(meta, dict) and bool(meta.get("resourceVersion") or meta.get("uid")
                                           or meta.get("managedFields"))


def _key(obj: dict[str, Any], namespaced: bool = True) -> str:
    meta = obj.get("metadata") or {}
    name = str(meta.get("name") or "?")
    return f"{meta.get('namespace') or 'default'}/{name}" if namespaced else name


def _from_simulator(doc: dict[str, Any], summary: WorkloadSummary) -> dict[str, Any]:
    items: list[Any] = []
    for field, kind_version in _SIMULATOR_FIELDS.items():
        objs = doc.get(field) or []
        if kind_version is None:
            for o in objs:
                summary.add(DROPPED, _SIMULATOR_UNMODELLED[field],
                            _key(o, field == "pvcs") if isinstance(o, dict) else "?",
                            "volumes are not simulated")
            continue
        kind, version = kind_version
        for o in objs:
            items.append({"apiVersion": version, "kind": kind, **o} if isinstance(o, dict) else o)
    config = doc.get("schedulerConfig")
    if isinstance(config, dict):
        converted = _simulator_config(config, summary)
        if converted is not None:
            items.append(converted)
    return {"apiVersion": "v1", "kind": "List", "items": items}


def _simulator_config(config: dict[str, Any], summary: WorkloadSummary) -> dict[str, Any] | None:
    """The exported KubeSchedulerConfiguration, if this engine accepts it; else the defaults."""
    from scheduler_core.loader.scheduler_config import ConfigError, parse_config

    doc = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
           **config}
    try:
        parse_config(doc)
    except ConfigError as exc:
        summary.add(DROPPED, "KubeSchedulerConfiguration", "schedulerConfig",
                    f"not accepted by this engine ({exc.field + ': ' if exc.field else ''}"
                    f"{exc.reason}); the default configuration is used")
        return None
    return doc


def normalize_dump(documents: list[Any]) -> tuple[list[Any], WorkloadSummary]:
    """The documents with simulator exports converted and, in dumps, finished pods, unmodelled
    kinds and pods bound to missing nodes dropped. Same length as the input (document numbers in
    error messages stay right). Plain manifests come back unchanged except for finished pods."""
    summary = WorkloadSummary()
    docs = list(documents)
    for i, d in enumerate(docs):
        if is_simulator_export(d):
            summary.source_format = FORMAT_SIMULATOR
            docs[i] = _from_simulator(d, summary)
    objects = [o for d in docs for o in _objects(d)]
    if summary.source_format == FORMAT_MANIFESTS and any(_looks_dumped(o) for o in objects):
        summary.source_format = FORMAT_KUBECTL
    dump = summary.source_format != FORMAT_MANIFESTS
    node_names = {str((o.get("metadata") or {}).get("name")) for o in objects if o.get("kind") == "Node"}

    def keep(obj: Any) -> bool:
        if not isinstance(obj, dict):
            return True  # the loader reports it
        kind = obj.get("kind")
        if kind == "Pod":
            phase = (obj.get("status") or {}).get("phase") if isinstance(obj.get("status"), dict) else None
            if phase in FINISHED_PHASES:
                summary.add(DROPPED, "Pod", _key(obj), f"finished (phase {phase}): holds no resources")
                return False
            node = (obj.get("spec") or {}).get("nodeName") if isinstance(obj.get("spec"), dict) else None
            if dump and node and node not in node_names:
                summary.add(DROPPED, "Pod", _key(obj), f'bound to node "{node}", which the dump lacks')
                return False
        elif dump and kind in NOT_SIMULATED_KINDS:
            summary.add(DROPPED, str(kind), _key(obj), NOT_SIMULATED_KINDS[str(kind)])
            return False
        return True

    for i, d in enumerate(docs):
        if _is_list(d):
            items = d.get("items")
            if isinstance(items, list):
                docs[i] = {**d, "items": [it for it in items if keep(it)]}
        elif isinstance(d, dict) and not keep(d):
            docs[i] = {"apiVersion": "v1", "kind": "List", "items": []}
    return docs, summary


def _is_list(d: Any) -> bool:
    return isinstance(d, dict) and (d.get("kind") == "List" or (
        d.get("kind") is None and "items" in d and d.get("apiVersion") in (None, "v1")))


def _objects(d: Any) -> list[dict[str, Any]]:
    if _is_list(d):
        return [it for it in d.get("items") or [] if isinstance(it, dict)]
    return [d] if isinstance(d, dict) else []
