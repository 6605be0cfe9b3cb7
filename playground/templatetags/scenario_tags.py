"""Short, human summaries of stored manifests for the editor's lists (text only; autoescaped)."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()

ZONE_LABEL = "topology.kubernetes.io/zone"


def _d(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def human_bytes(value: Any) -> str:
    """A memory quantity as a reader says it: `15164240Ki` -> `14.5Gi`. Exact binary multiples
    keep their short form (`16Gi`); what cannot be parsed is shown as written."""
    from scheduler_core.api.quantity import parse_quantity

    try:
        amount = float(parse_quantity(value))
    except Exception:  # noqa: BLE001 - a summary shows what it cannot read as it is
        return str(value)
    for unit, size in (("Ti", 1024**4), ("Gi", 1024**3), ("Mi", 1024**2), ("Ki", 1024)):
        if amount >= size:
            return f"{amount / size:.3g}{unit}"
    return f"{amount:g}"


def _memory(value: Any) -> str:
    shown = human_bytes(value)
    return f"memory {shown}" if shown == str(value) else f"memory {shown} ({value})"


def _node(manifest: dict[str, Any]) -> list[str]:
    status = _d(manifest.get("status"))
    resources = {**_d(status.get("capacity")), **_d(status.get("allocatable"))}
    spec = _d(manifest.get("spec"))
    labels = _d(_d(manifest.get("metadata")).get("labels"))
    parts = [f"cpu {resources.get('cpu', '-')}", _memory(resources["memory"]) if "memory" in resources else "memory -"]
    parts.append(f"pods {resources.get('pods', 110)}")
    if labels.get(ZONE_LABEL):
        parts.append(f"zone {labels[ZONE_LABEL]}")
    taints = spec.get("taints") if isinstance(spec.get("taints"), list) else []
    for taint in taints:
        taint = _d(taint)
        value = f"={taint['value']}" if taint.get("value") else ""
        parts.append(f"taint {taint.get('key', '')}{value}:{taint.get('effect', '')}")
    if spec.get("unschedulable"):
        parts.append("cordoned")
    return parts


def _pod(manifest: dict[str, Any]) -> list[str]:
    spec = _d(manifest.get("spec"))
    containers = spec.get("containers") if isinstance(spec.get("containers"), list) else []
    cpu = memory = None
    for container in containers:
        requests = _d(_d(_d(container).get("resources")).get("requests"))
        cpu = cpu or requests.get("cpu")
        memory = memory or requests.get("memory")
    parts = []
    if cpu:
        parts.append(f"cpu {cpu}")
    if memory:
        parts.append(_memory(memory))
    if len(containers) > 1:
        parts.append(f"{len(containers)} containers")
    if spec.get("priorityClassName"):
        parts.append(f"priority {spec['priorityClassName']}")
    if spec.get("nodeName"):
        parts.append(f"on {spec['nodeName']}")
    if spec.get("nodeSelector"):
        parts.append("nodeSelector")
    if spec.get("affinity"):
        parts.append("affinity")
    if spec.get("topologySpreadConstraints"):
        parts.append("spread")
    if spec.get("tolerations"):
        parts.append(f"{len(spec['tolerations'])} toleration(s)")
    if spec.get("schedulingGates"):
        parts.append("gated")
    if spec.get("schedulerName"):
        parts.append(f"scheduler {spec['schedulerName']}")
    return parts


def _priority_class(manifest: dict[str, Any]) -> list[str]:
    parts = [f"value {manifest.get('value')}"]
    if manifest.get("globalDefault"):
        parts.append("global default")
    if manifest.get("preemptionPolicy") == "Never":
        parts.append("never preempts")
    return parts


def _pdb(manifest: dict[str, Any]) -> list[str]:
    spec = _d(manifest.get("spec"))
    selector = _d(_d(spec.get("selector")).get("matchLabels"))
    parts = [", ".join(f"{k}={v}" for k, v in selector.items()) or "selector"]
    if spec.get("minAvailable") is not None:
        parts.append(f"minAvailable {spec['minAvailable']}")
    if spec.get("maxUnavailable") is not None:
        parts.append(f"maxUnavailable {spec['maxUnavailable']}")
    return parts


_SUMMARIES = {"Node": _node, "Pod": _pod, "PriorityClass": _priority_class, "PodDisruptionBudget": _pdb}


@register.filter
def summary(obj: Any) -> list[str]:
    """A few words per object: what the editor's list shows next to its name."""
    make = _SUMMARIES.get(getattr(obj, "kind", ""))
    if make is None:
        return []
    try:
        return make(_d(obj.manifest))
    except Exception:  # noqa: BLE001 - a summary must never break the page
        return []


@register.filter
def qualified(obj: Any) -> str:
    """namespace/name for namespaced objects, name otherwise."""
    return f"{obj.namespace}/{obj.name}" if obj.namespace else obj.name
