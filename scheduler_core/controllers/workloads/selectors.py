"""Label selectors, node selectors and taints evaluated on raw manifests.

The workload controllers decide before the loader has built typed objects (a DaemonSet must know
which nodes are eligible to create its pods), so these read plain mappings. Semantics follow
apimachinery's label selectors and component-helpers' node affinity and taint helpers.
"""

from __future__ import annotations

from typing import Any

NO_SCHEDULE = "NoSchedule"
NO_EXECUTE = "NoExecute"


def _as_int(value: str) -> int | None:
    try:
        return int(value)
    except ValueError:
        return None


def requirement_matches(op: str, present: bool, value: str, values: list[str]) -> bool:
    """One matchExpressions requirement against a label (present/value)."""
    if op == "In":
        return present and value in values
    if op == "NotIn":
        return not present or value not in values
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    if op in ("Gt", "Lt") and present and len(values) == 1:
        have, want = _as_int(value), _as_int(values[0])
        if have is None or want is None:
            return False
        return have > want if op == "Gt" else have < want
    return False


def label_selector_matches(selector: dict[str, Any] | None, labels: dict[str, str]) -> bool:
    """metav1.LabelSelector: matchLabels and matchExpressions all hold. None matches nothing
    and an empty selector everything, as LabelSelectorAsSelector makes them."""
    if selector is None:
        return False
    for k, v in (selector.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for e in selector.get("matchExpressions") or []:
        key = e.get("key", "")
        if not requirement_matches(e.get("operator", ""), key in labels, labels.get(key, ""),
                                   [str(x) for x in e.get("values") or []]):
            return False
    return True


def _term_matches(term: dict[str, Any], node_name: str, labels: dict[str, str]) -> bool:
    exprs = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    if not exprs and not fields:
        return False  # an empty term matches no objects
    for e in exprs:
        key = e.get("key", "")
        if not requirement_matches(e.get("operator", ""), key in labels, labels.get(key, ""),
                                   [str(x) for x in e.get("values") or []]):
            return False
    for f in fields:
        if f.get("key") != "metadata.name":
            return False
        if not requirement_matches(f.get("operator", ""), True, node_name,
                                   [str(x) for x in f.get("values") or []]):
            return False
    return True


def required_node_affinity_matches(pod_spec: dict[str, Any], node: dict[str, Any]) -> bool:
    """nodeaffinity.GetRequiredNodeAffinity(pod).Match(node): nodeSelector and the required
    node affinity terms (ORed)."""
    meta = node.get("metadata") or {}
    labels = meta.get("labels") or {}
    name = meta.get("name", "")
    for k, v in (pod_spec.get("nodeSelector") or {}).items():
        if labels.get(k) != v:
            return False
    affinity = (pod_spec.get("affinity") or {}).get("nodeAffinity") or {}
    required = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if required is None:
        return True
    return any(_term_matches(t or {}, name, labels) for t in required.get("nodeSelectorTerms") or [])


def toleration_tolerates(tol: dict[str, Any], taint: dict[str, Any]) -> bool:
    """v1.Toleration.ToleratesTaint."""
    effect = tol.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = tol.get("key") or ""
    op = tol.get("operator") or "Equal"
    if key and key != taint.get("key"):
        return False
    if op == "Exists":
        return True
    if not key:
        return False  # an empty key is only valid with Exists
    return (tol.get("value") or "") == (taint.get("value") or "")


def untolerated_taint(taints: list[dict[str, Any]], tolerations: list[dict[str, Any]],
                      effects: tuple[str, ...] = (NO_SCHEDULE, NO_EXECUTE)) -> dict[str, Any] | None:
    """The first taint with one of `effects` that no toleration tolerates (None: all are)."""
    for taint in taints:
        if taint.get("effect") not in effects:
            continue
        if not any(toleration_tolerates(t, taint) for t in tolerations):
            return taint
    return None
