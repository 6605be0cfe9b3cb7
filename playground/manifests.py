"""Plain Kubernetes manifests as the web app stores them: splitting YAML, building YAML, identity.

The engine's loader (`scheduler_core.loader`) is the one parser that decides whether a
scenario is valid; this module only cuts accepted YAML into one manifest per object (for the
database rows) and joins rows back into multi-document YAML (for validation and export).
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Iterable, Iterator
from typing import Any

import yaml

from playground import block_yaml

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

# Kinds whose objects live in a namespace ("default" when the manifest names none).
NAMESPACED_KINDS = frozenset(
    {"Pod", "PodDisruptionBudget", "Service", "ReplicationController", "ReplicaSet", "StatefulSet",
     "ResourceClaim", "ResourceClaimTemplate", "PersistentVolumeClaim"}
)
API_VERSIONS = {
    "Node": "v1",
    "Pod": "v1",
    "Namespace": "v1",
    "Service": "v1",
    "ReplicationController": "v1",
    "PriorityClass": "scheduling.k8s.io/v1",
    "PodDisruptionBudget": "policy/v1",
    "ReplicaSet": "apps/v1",
    "StatefulSet": "apps/v1",
    "KubeSchedulerConfiguration": "kubescheduler.config.k8s.io/v1",
    "DeviceClass": "resource.k8s.io/v1",
    "ResourceSlice": "resource.k8s.io/v1",
    "ResourceClaim": "resource.k8s.io/v1",
    "ResourceClaimTemplate": "resource.k8s.io/v1",
    "PersistentVolume": "v1",
    "PersistentVolumeClaim": "v1",
    "StorageClass": "storage.k8s.io/v1",
    "CSINode": "storage.k8s.io/v1",
    "CSIDriver": "storage.k8s.io/v1",
    "CSIStorageCapacity": "storage.k8s.io/v1",
}
# An upper bound on values in one import, checked while walking (alias-expanded) data: at least
# this many, and as many as the byte limit (PLAYGROUND_MAX_BYTES) can hold without aliases (each
# value takes at least two characters: itself and a separator), so every file the byte limit
# admits fits (a 5,000-node x 150,000-pod dump holds ~9 million values in 69.5 MB). Alias
# expansion is bounded by the loader before this.
MIN_MAX_VALUES = 2_000_000


def max_values() -> int:
    from playground.limits import max_yaml_bytes

    return max(MIN_MAX_VALUES, max_yaml_bytes() // 2)


class ManifestError(ValueError):
    """Input that the loader accepted but that cannot be stored as JSON (rare: NaN, binary)."""


def identity(manifest: dict[str, Any]) -> tuple[str, str, str]:
    """(kind, namespace, name) of a manifest; namespace is "" for cluster-scoped kinds."""
    kind = str(manifest.get("kind") or "")
    metadata = manifest.get("metadata") if isinstance(manifest.get("metadata"), dict) else {}
    name = metadata.get("name")
    name = "" if name is None else str(name)
    namespace = ""
    if kind in NAMESPACED_KINDS:
        namespace = str(metadata.get("namespace") or "default")
    return kind, namespace, name


def _jsonable(value: Any, budget: list[int]) -> Any:
    """A copy of YAML-loaded data that JSON can hold (and that the database stores as JSON)."""
    budget[0] -= 1
    if budget[0] < 0:
        raise ManifestError("the YAML expands to too many values")
    if isinstance(value, dict):
        return {str(k) if not isinstance(k, str) else k: _jsonable(v, budget) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v, budget) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        raise ManifestError(f"{value!r} is not a storable number")
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, bytes):
        raise ManifestError("binary values are not supported")
    if isinstance(value, set):
        return [_jsonable(v, budget) for v in sorted(value, key=str)]
    return value


def split_documents(text: str) -> list[dict[str, Any]]:
    """One manifest per object, in document order; `kind: List` items are flattened.

    Call this only on text the engine's loader has accepted (it rejects syntax errors, alias
    bombs and non-mapping documents with precise messages); the guards here are a second line.
    """
    return split_loaded(yaml.load_all(text, Loader=_Loader))


def split_loaded(documents: Iterable[Any]) -> list[dict[str, Any]]:
    """`split_documents` of documents already decoded (the engine's loader hands back those it
    read, so an accepted upload is parsed once); the result shares nothing with them."""
    budget = [max_values()]
    return [_jsonable(item, budget) for item in loaded_objects(documents)]


def loaded_objects(documents: Iterable[Any]) -> Iterator[dict[str, Any]]:
    """The objects of decoded documents as they are (not copied), in order: each document, or
    each item of a `kind: List`; empty ones skipped. ManifestError for a non-mapping."""
    for document in documents:
        if document is None:
            continue
        if not isinstance(document, dict):
            raise ManifestError("every document must be a Kubernetes object")
        if document.get("kind") == "List" or (document.get("kind") is None and "items" in document):
            items = document.get("items") or []
        else:
            items = [document]
        for item in items:
            if item is None:
                continue
            if not isinstance(item, dict):
                raise ManifestError("every list item must be a Kubernetes object")
            yield item


def storable_copy(manifest: dict[str, Any]) -> dict[str, Any]:
    """One object as `split_loaded` stores it (a copy JSON can hold), counted on its own."""
    return _jsonable(manifest, [max_values()])


def build_yaml(manifests: Iterable[dict[str, Any]], header: str = "") -> str:
    """Multi-document YAML of `manifests` in order (what the loader reads and users download)."""
    body = block_yaml.dump_all(list(manifests), dumper=_Dumper)  # PyYAML's text, most documents written directly
    if header:
        comment = "".join(f"# {line}\n" for line in header.splitlines())
        return comment + body
    return body


def dump_one(manifest: dict[str, Any]) -> str:
    """One manifest as YAML (for the scheduler configuration textarea)."""
    return yaml.dump(manifest, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True, width=100)


def load_one(text: str) -> Any:
    """Parse one YAML document with the safe loader (callers validate through the engine after)."""
    return yaml.load(text, Loader=_Loader)
