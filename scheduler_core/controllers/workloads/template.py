"""Pods from a controller's pod template, as controller.GetPodFromTemplate builds them."""

from __future__ import annotations

import copy
from typing import Any

from scheduler_core.controllers.workloads.context import ExpansionContext, Located
from scheduler_core.controllers.workloads.selectors import label_selector_matches


def owner_reference(api_version: str, kind: str, name: str, uid: str) -> dict[str, Any]:
    """metav1.NewControllerRef: the owner as controller, blocking the owner's deletion."""
    return {"apiVersion": api_version, "kind": kind, "name": name, "uid": uid,
            "controller": True, "blockOwnerDeletion": True}


def checked_template(ctx: ExpansionContext, where: Located, *, selector_required: bool = True,
                     ) -> dict[str, Any]:
    """spec.template, with the apiserver's checks that matter here: present, with a spec, and
    (for controllers with a selector) labels the selector selects."""
    spec = where.obj.get("spec")
    if not isinstance(spec, dict):
        raise ctx.error(where, "spec", "Required value")
    template = spec.get("template")
    if not isinstance(template, dict) or not isinstance(template.get("spec"), dict):
        raise ctx.error(where, "spec.template.spec", "Required value: a pod template")
    meta = template.get("metadata") or {}
    if not isinstance(meta, dict):
        raise ctx.error(where, "spec.template.metadata", "expected an object")
    labels = meta.get("labels") or {}
    if selector_required:
        selector = spec.get("selector")
        if not isinstance(selector, dict) or not (selector.get("matchLabels")
                                                  or selector.get("matchExpressions")):
            raise ctx.error(where, "spec.selector", "Required value")
        if not isinstance(labels, dict) or not label_selector_matches(selector, labels):
            raise ctx.error(where, "spec.template.metadata.labels",
                            "Invalid value: `selector` does not match template `labels`")
    return template


def pod_from_template(template: dict[str, Any], *, name: str, namespace: str,
                      owner: dict[str, Any], labels: dict[str, str] | None = None,
                      annotations: dict[str, str] | None = None,
                      generate_name: str | None = None) -> dict[str, Any]:
    """A Pod manifest: the template's labels, annotations, finalizers and spec, the controller
    as owner, in the controller's namespace."""
    tmeta = template.get("metadata") or {}
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if generate_name:
        meta["generateName"] = generate_name
    all_labels = dict(tmeta.get("labels") or {})
    all_labels.update(labels or {})
    if all_labels:
        meta["labels"] = all_labels
    all_annotations = dict(tmeta.get("annotations") or {})
    all_annotations.update(annotations or {})
    if all_annotations:
        meta["annotations"] = all_annotations
    if tmeta.get("finalizers"):
        meta["finalizers"] = list(tmeta["finalizers"])
    meta["ownerReferences"] = [owner]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": copy.deepcopy(template["spec"])}


def replicas(ctx: ExpansionContext, where: Located, default: int = 1) -> int:
    """spec.replicas (defaulted to 1), a non-negative integer."""
    value = (where.obj.get("spec") or {}).get("replicas")
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise ctx.error(where, "spec.replicas", f"expected an integer, got {value!r:.60}")
    if value < 0:
        raise ctx.error(where, "spec.replicas",
                        f"Invalid value: {value}: must be greater than or equal to 0")
    if value > 2**31 - 1:  # an int32 in the API: the apiserver's decoder refuses more
        shown = str(value) if value.bit_length() < 128 else f"an integer of {len(str(value)):,} digits"
        raise ctx.error(where, "spec.replicas", f"Invalid value: {shown}: out of range for int32")
    return value
