"""The ReplicaSet controller at load time: create the pods that bring the set to spec.replicas.

Pods already owned by the set (a cluster dump) count; only the difference is created, named
`<replicaset>-<5 characters>` like upstream's generateName.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.controllers.workloads.context import ExpansionContext, Located
from scheduler_core.controllers.workloads.naming import NameGenerator, object_uid, pods_prefix
from scheduler_core.controllers.workloads.template import (
    checked_template,
    owner_reference,
    pod_from_template,
    replicas,
)


def expand_replica_set(ctx: ExpansionContext, where: Located) -> tuple[list[dict[str, Any]], str]:
    """Pods to create for one ReplicaSet, and what was done in words."""
    template = checked_template(ctx, where)
    want = replicas(ctx, where)
    have = len(ctx.owned("ReplicaSet", where.namespace, where.name))
    if have >= want:
        return [], f"{have} existing pods of {want} replicas kept; none created"
    owner = owner_reference("apps/v1", "ReplicaSet", where.name, object_uid("ReplicaSet", where.obj))
    gen = NameGenerator(f"ReplicaSet/{where.key}", ctx.names("Pod", where.namespace))
    prefix = pods_prefix(where.name)
    pods = [pod_from_template(template, name=gen.generate(prefix), namespace=where.namespace,
                              owner=owner, generate_name=prefix)
            for _ in range(want - have)]
    for p in pods:
        ctx.register(p)
    done = f"created {len(pods)} pods for {want} replicas"
    return pods, done + (f" ({have} existed)" if have else "")
