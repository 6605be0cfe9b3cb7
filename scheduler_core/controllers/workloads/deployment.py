"""The Deployment controller at load time: the Deployment's current ReplicaSet.

A new Deployment gets one ReplicaSet named `<deployment>-<pod-template-hash>`, the hash label
added to its template and selector, owned by the Deployment, with the revision annotations the
controller writes. The ReplicaSet controller then creates the pods. A Deployment that already
owns ReplicaSets (a cluster dump) is not rolled out again; its newest revision is the one a
run-time scale acts on.
"""

from __future__ import annotations

import copy
from typing import Any

from scheduler_core.controllers.workloads.context import ExpansionContext, Located
from scheduler_core.controllers.workloads.naming import compute_hash, object_uid
from scheduler_core.controllers.workloads.summary import ScaleTarget
from scheduler_core.controllers.workloads.template import checked_template, owner_reference, replicas

POD_TEMPLATE_HASH = "pod-template-hash"
REVISION = "deployment.kubernetes.io/revision"
DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS = "deployment.kubernetes.io/max-replicas"


def _max_surge(spec: dict[str, Any], want: int) -> int:
    """The rolling update's maxSurge (default 25%, rounded up) for the max-replicas note."""
    strategy = spec.get("strategy") or {}
    if strategy.get("type") == "Recreate":
        return 0
    surge = (strategy.get("rollingUpdate") or {}).get("maxSurge", "25%")
    if isinstance(surge, str) and surge.endswith("%"):
        try:
            return -(-want * int(surge[:-1]) // 100)
        except ValueError:
            return 0
    return surge if isinstance(surge, int) else 0


def _revision(rs: dict[str, Any]) -> int:
    value = ((rs.get("metadata") or {}).get("annotations") or {}).get(REVISION, "0")
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def expand_deployment(ctx: ExpansionContext, where: Located,
                      ) -> tuple[list[dict[str, Any]], str, ScaleTarget | None]:
    """The ReplicaSet to create (none if the Deployment owns some), the outcome in words, and
    the scale target for run-time scaling."""
    template = checked_template(ctx, where)
    spec = where.obj["spec"]
    existing = ctx.owned("Deployment", where.namespace, where.name, kind="ReplicaSet")
    if existing:
        newest = max(existing, key=_revision)
        meta = newest.get("metadata") or {}
        target = ScaleTarget(where.namespace, where.name, str(meta.get("name")),
                             object_uid("ReplicaSet", newest),
                             (newest.get("spec") or {}).get("template") or {})
        return [], f"owns {len(existing)} ReplicaSets; not rolled out again", target
    want = replicas(ctx, where)
    collisions = (where.obj.get("status") or {}).get("collisionCount")
    pod_hash = compute_hash(template, collisions if isinstance(collisions, int) else None)
    rs_name = f"{where.name}-{pod_hash}"
    rs_template = copy.deepcopy(template)
    rs_template.setdefault("metadata", {})
    rs_template["metadata"]["labels"] = {**(template.get("metadata") or {}).get("labels", {}),
                                         POD_TEMPLATE_HASH: pod_hash}
    selector = copy.deepcopy(spec["selector"])
    selector["matchLabels"] = {**(selector.get("matchLabels") or {}), POD_TEMPLATE_HASH: pod_hash}
    rs = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": rs_name,
            "namespace": where.namespace,
            "labels": dict(rs_template["metadata"]["labels"]),
            "annotations": {REVISION: "1", DESIRED_REPLICAS: str(want),
                            MAX_REPLICAS: str(want + _max_surge(spec, want))},
            "ownerReferences": [owner_reference("apps/v1", "Deployment", where.name,
                                                object_uid("Deployment", where.obj))],
        },
        "spec": {"replicas": want, "selector": selector, "template": rs_template},
    }
    ctx.register(rs)
    target = ScaleTarget(where.namespace, where.name, rs_name, object_uid("ReplicaSet", rs),
                         rs_template)
    return [rs], f"rolled out as ReplicaSet {rs_name}", target
