"""The StatefulSet controller at load time: pods `<set>-<ordinal>` for every missing ordinal,
created in ordinal order, with the identity labels upstream sets (pod name, pod index, the
controller revision) and hostname/subdomain from the set's service."""

from __future__ import annotations

from typing import Any

from scheduler_core.controllers.workloads.context import ExpansionContext, Located
from scheduler_core.controllers.workloads.naming import compute_hash, object_uid
from scheduler_core.controllers.workloads.template import (
    checked_template,
    owner_reference,
    pod_from_template,
    replicas,
)

POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
REVISION_LABEL = "controller-revision-hash"


def expand_stateful_set(ctx: ExpansionContext, where: Located) -> tuple[list[dict[str, Any]], str]:
    template = checked_template(ctx, where)
    spec = where.obj["spec"]
    want = replicas(ctx, where)
    start = (spec.get("ordinals") or {}).get("start", 0)
    if isinstance(start, bool) or not isinstance(start, int) or start < 0:
        raise ctx.error(where, "spec.ordinals.start",
                        f"Invalid value: {start!r}: must be a non-negative integer")
    collisions = (where.obj.get("status") or {}).get("collisionCount")
    revision = f"{where.name}-{compute_hash(template, collisions if isinstance(collisions, int) else None)}"
    owner = owner_reference("apps/v1", "StatefulSet", where.name, object_uid("StatefulSet", where.obj))
    taken = ctx.names("Pod", where.namespace)
    pods: list[dict[str, Any]] = []
    for ordinal in range(start, start + want):
        name = f"{where.name}-{ordinal}"
        if name in taken:
            continue
        pod = pod_from_template(template, name=name, namespace=where.namespace, owner=owner,
                                labels={POD_NAME_LABEL: name, POD_INDEX_LABEL: str(ordinal),
                                        REVISION_LABEL: revision})
        pod["spec"]["hostname"] = name
        if spec.get("serviceName"):
            pod["spec"]["subdomain"] = spec["serviceName"]
        ctx.register(pod)
        pods.append(pod)
    have = want - len(pods)
    done = f"created {len(pods)} pods (ordinals {start}..{start + want - 1})" if pods \
        else f"all {want} ordinals exist; none created"
    return pods, done + (f" ({have} existed)" if pods and have else "")
