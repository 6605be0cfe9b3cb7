"""ObjectMeta (name, namespace, labels, annotations) and the stable UIDs objects get from it."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from scheduler_core.api.loader.reader import FieldReader
from scheduler_core.api.validation import dns1123_label_error, dns1123_subdomain_error

__all__ = ["parse_metadata", "stable_uid"]

_UID_NAMESPACE = uuid.UUID("6f1d3c52-8c3e-4f0e-9a57-5c2b8d1e7a10")


def stable_uid(kind: str, namespace: str, name: str, salt: str = "") -> str:
    """A UID that depends only on the object's identity, so runs are reproducible."""
    return str(uuid.uuid5(_UID_NAMESPACE, f"{kind}/{namespace}/{name}{salt}"))


def parse_metadata(r: FieldReader, obj: dict[str, Any], *, namespaced: bool,
              name_check: Callable[[str], str | None] = dns1123_subdomain_error,
              ) -> tuple[str, str, dict[str, str], dict[str, str]]:
    meta = r.mapping(obj.get("metadata"), "metadata", required=True)
    name = r.string(meta.get("name"), "metadata.name")
    if not name:
        if meta.get("generateName"):
            raise r.err("metadata.name", "Required value: generateName is not supported; give "
                                         "every object a name")
        raise r.err("metadata.name", "Required value: name or generateName is required")
    namespace = ""
    if namespaced:
        namespace = r.string(meta.get("namespace"), "metadata.namespace") or "default"
        err = dns1123_label_error(namespace)
        if err:
            raise r.err("metadata.namespace", f'Invalid value: "{namespace}": {err}')
        r.doc.name = f"{namespace}/{name}"
    else:
        r.doc.name = name
    err = name_check(name)
    if err:
        raise r.err("metadata.name", f'Invalid value: "{name}": {err}')
    labels = r.labels(meta.get("labels"), "metadata.labels")
    annotations = r.string_map(meta.get("annotations"), "metadata.annotations")
    return name, namespace, labels, annotations

