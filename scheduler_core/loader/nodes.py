"""v1 Node and its taints, with the kubelet's/apiserver's defaults for allocatable and pods."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from scheduler_core.api.types import ContainerImage, Node, Taint
from scheduler_core.api.validation import label_value_error, qualified_name_error
from scheduler_core.loader.metadata import parse_metadata, stable_uid
from scheduler_core.loader.reader import FieldReader
from scheduler_core.loader.resources import resource_list

__all__ = ["parse_node", "parse_taint", "DEFAULT_MAX_PODS", "TAINT_EFFECTS"]

DEFAULT_MAX_PODS = 110  # the kubelet's --max-pods default
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def parse_taint(r: FieldReader, obj: Any, path: str) -> Taint:
    """A node taint (also used by the timeline's addTaint action)."""
    m = r.mapping(obj, path, required=True)
    key = r.string(m.get("key"), f"{path}.key")
    value = r.string(m.get("value"), f"{path}.value")
    effect = r.string(m.get("effect"), f"{path}.effect")
    if not key:
        raise r.err(f"{path}.key", "Required value")
    err = qualified_name_error(key)
    if err:
        raise r.err(f"{path}.key", f'Invalid value: "{key}": {err}')
    err = label_value_error(value)
    if err:
        raise r.err(f"{path}.value", f'Invalid value: "{value}": {err}')
    if not effect:
        raise r.err(f"{path}.effect", "Required value")
    if effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
        raise r.err(f"{path}.effect", f'Unsupported value: "{effect}": supported values: '
                                      '"NoSchedule", "PreferNoSchedule", "NoExecute"')
    return Taint(key=key, value=value, effect=effect)


def parse_node(r: FieldReader, obj: dict[str, Any], index: int, uid_salt: str = "") -> Node:
    """A v1 Node with the kubelet/apiserver defaults for allocatable and pods applied."""
    name, _, labels, annotations = parse_metadata(r, obj, namespaced=False)
    spec = r.mapping(obj.get("spec"), "spec")
    status = r.mapping(obj.get("status"), "status")
    taints: list[Taint] = []
    seen: set[tuple[str, str]] = set()
    for i, t in enumerate(r.seq(spec.get("taints"), "spec.taints")):
        taint = parse_taint(r, t, f"spec.taints[{i}]")
        if (taint.key, taint.effect) in seen:
            raise r.err(f"spec.taints[{i}]", "Duplicate value: taints must be unique by key "
                                             "and effect pair")
        seen.add((taint.key, taint.effect))
        taints.append(taint)
    unschedulable = r.boolean(spec.get("unschedulable"), "spec.unschedulable")
    capacity = resource_list(r, status.get("capacity"), "status.capacity", container=False)
    if status.get("allocatable") is not None:
        allocatable = resource_list(r, status.get("allocatable"), "status.allocatable",
                                     container=False)
    else:
        allocatable = dict(capacity)
    if "pods" not in capacity:
        capacity["pods"] = Fraction(DEFAULT_MAX_PODS)
    if "pods" not in allocatable:
        allocatable["pods"] = capacity["pods"]
    images: list[ContainerImage] = []
    for i, im in enumerate(r.seq(status.get("images"), "status.images")):
        p = f"status.images[{i}]"
        imm = r.mapping(im, p, required=True)
        names = r.string_list(imm.get("names"), f"{p}.names")
        size = imm.get("sizeBytes")
        size_bytes = 0 if size is None else r.integer(size, f"{p}.sizeBytes", bits=64)
        if size_bytes < 0:
            raise r.err(f"{p}.sizeBytes", "must be greater than or equal to 0")
        images.append(ContainerImage(names=names, size_bytes=size_bytes))
    declared = tuple(r.string_list(status.get("declaredFeatures"), "status.declaredFeatures"))
    return Node(
        declared_features=declared,
        name=name, uid=stable_uid("Node", "", name, uid_salt), labels=labels,
        annotations=annotations, unschedulable=unschedulable, taints=taints, capacity=capacity,
        allocatable=allocatable, images=images, creation_index=index,
    )

