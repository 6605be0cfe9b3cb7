"""The StatefulSet controller at load time: pods `<set>-<ordinal>` for every missing ordinal,
created in ordinal order, with the identity labels upstream sets (pod name, pod index, the
controller revision) and hostname/subdomain from the set's service."""

from __future__ import annotations

import copy
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
    if isinstance(start, bool) or not isinstance(start, int) or not 0 <= start <= 2**31 - 1:
        raise ctx.error(where, "spec.ordinals.start",
                        f"Invalid value: {start!r}: must be a non-negative integer")
    collisions = (where.obj.get("status") or {}).get("collisionCount")
    revision = f"{where.name}-{compute_hash(template, collisions if isinstance(collisions, int) else None)}"
    owner = owner_reference("apps/v1", "StatefulSet", where.name, object_uid("StatefulSet", where.obj))
    taken = ctx.names("Pod", where.namespace)
    pods: list[dict[str, Any]] = []
    for ordinal in range(start, start + want):
        name = f"{where.name}-{ordinal}"
        claims = volume_claims(ctx, where, ordinal)
        for claim in claims:  # missing claims are created for existing pods too
            if claim["metadata"]["name"] not in ctx.names("PersistentVolumeClaim", where.namespace):
                ctx.register(claim)
                pods.append(claim)
        if name in taken:
            continue
        pod = pod_from_template(template, name=name, namespace=where.namespace, owner=owner,
                                labels={POD_NAME_LABEL: name, POD_INDEX_LABEL: str(ordinal),
                                        REVISION_LABEL: revision})
        pod["spec"]["hostname"] = name
        if spec.get("serviceName"):
            pod["spec"]["subdomain"] = spec["serviceName"]
        _use_claims(pod, claims)
        ctx.register(pod)
        pods.append(pod)
    made = sum(1 for o in pods if o.get("kind") == "Pod")
    have = want - made
    done = f"created {made} pods (ordinals {start}..{start + want - 1})" if made \
        else f"all {want} ordinals exist; none created"
    if len(pods) > made:
        done += f" and {len(pods) - made} PersistentVolumeClaims"
    return pods, done + (f" ({have} existed)" if made and have else "")


def volume_claims(ctx: ExpansionContext, where: Located, ordinal: int) -> list[dict[str, Any]]:
    """The claims of one ordinal: `<template>-<set>-<ordinal>` for each volumeClaimTemplate,
    labelled with the template's labels and the set's selector labels."""
    spec = where.obj["spec"]
    templates = spec.get("volumeClaimTemplates") or []
    if not isinstance(templates, list):
        raise ctx.error(where, "spec.volumeClaimTemplates", "expected an array")
    selector = ((spec.get("selector") or {}).get("matchLabels") or {})
    out = []
    for i, t in enumerate(templates):
        if not isinstance(t, dict) or not isinstance(t.get("metadata"), dict) \
                or not isinstance((t.get("metadata") or {}).get("name"), str):
            raise ctx.error(where, f"spec.volumeClaimTemplates[{i}].metadata.name", "Required value")
        meta = t["metadata"]
        labels = {**(meta.get("labels") or {}), **selector}
        claim_meta: dict[str, Any] = {"name": f"{meta['name']}-{where.name}-{ordinal}",
                                      "namespace": where.namespace}
        if labels:
            claim_meta["labels"] = labels
        if meta.get("annotations"):
            claim_meta["annotations"] = dict(meta["annotations"])
        out.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": claim_meta,
                    "spec": copy.deepcopy(t.get("spec") or {})})
    return out


def _use_claims(pod: dict[str, Any], claims: list[dict[str, Any]]) -> None:
    """The pod's volumes named like a template use its claim (replacing a same-named volume)."""
    if not claims:
        return
    suffix = len(pod["metadata"]["name"]) + 1
    names = {c["metadata"]["name"][:-suffix] for c in claims}
    volumes = [v for v in pod["spec"].get("volumes") or [] if not (isinstance(v, dict) and v.get("name") in names)]
    for c in claims:
        tname = c["metadata"]["name"][:-suffix]
        volumes.append({"name": tname, "persistentVolumeClaim": {"claimName": c["metadata"]["name"]}})
    pod["spec"]["volumes"] = volumes
