"""resource.k8s.io/v1 objects into a Scenario, and the checks across them.

The apiserver accepts a claim whose DeviceClass does not exist (the scheduler then reports it).
A scenario is the whole cluster, so a class it does not define can never appear: the playground
refuses such a claim or template at load time, naming the document and the field, rather than
letting a typo surface as a pod that stays Pending.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scheduler_core.api.loader.documents import Entry
from scheduler_core.api.loader.reader import FieldReader
from scheduler_core.api.loader.resource import (
    parse_device_class,
    parse_device_taint_rule,
    parse_resource_claim,
    parse_resource_claim_template,
    parse_resource_slice,
)
from scheduler_core.api.resource_types import ResourceClaim, ResourceClaimTemplate
from scheduler_core.api.scenario import Scenario
from scheduler_core.api.types import Pod

__all__ = ["add_resource_object", "check_resource_references", "ADMIN_ACCESS_LABEL"]

ADMIN_ACCESS_LABEL = "resource.kubernetes.io/admin-access"


def add_resource_object(sc: Scenario, r: FieldReader, e: Entry,
                        unique: Callable[[FieldReader, Entry, str, str], None],
                        raws: list[tuple[FieldReader, Any]]) -> None:
    """Parse one DeviceClass / ResourceSlice / ResourceClaim / ResourceClaimTemplate."""
    obj: Any
    if e.kind == "DeviceClass":
        obj = parse_device_class(r, e.obj)
        unique(r, e, "", obj.name)
        sc.device_classes.append(obj)
    elif e.kind == "ResourceSlice":
        obj = parse_resource_slice(r, e.obj)
        unique(r, e, "", obj.name)
        sc.resource_slices.append(obj)
    elif e.kind == "DeviceTaintRule":
        obj = parse_device_taint_rule(r, e.obj)
        unique(r, e, "", obj.name)
        sc.device_taint_rules.append(obj)
    elif e.kind == "ResourceClaim":
        obj = parse_resource_claim(r, e.obj)
        unique(r, e, obj.namespace, obj.name)
        sc.resource_claims.append(obj)
    else:
        obj = parse_resource_claim_template(r, e.obj)
        unique(r, e, obj.namespace, obj.name)
        sc.resource_claim_templates.append(obj)
    raws.append((r, obj))


def check_resource_references(sc: Scenario, pod_raws: list[tuple[FieldReader, Pod]],
                              raws: list[tuple[FieldReader, Any]]) -> None:
    """Device classes named by claims and templates exist; pod references (reservedFor,
    ownerReferences) resolve to the scenario's pods' UIDs."""
    classes = {c.name for c in sc.device_classes}
    admin_namespaces = {ns.name for ns in sc.namespaces
                        if ns.labels.get(ADMIN_ACCESS_LABEL) == "true"}
    for r, obj in raws:
        if isinstance(obj, (ResourceClaim, ResourceClaimTemplate)):
            prefix = "spec" if isinstance(obj, ResourceClaim) else "spec.spec"
            for i, rq in enumerate(obj.spec.requests):
                if rq.exactly is not None:
                    _check_class(r, classes, rq.exactly.device_class_name,
                                 f"{prefix}.devices.requests[{i}].exactly.deviceClassName")
                    if rq.exactly.admin_access and obj.namespace not in admin_namespaces:
                        # DRAAdminAccess (beta, on in v1.35): the apiserver only admits admin
                        # access in namespaces labelled for it.
                        raise r.err(f"{prefix}.devices.requests[{i}].exactly.adminAccess",
                                    "Forbidden: admin access to devices requires the "
                                    f"`{ADMIN_ACCESS_LABEL}: true` label on the containing "
                                    f'namespace "{obj.namespace}"')
                for j, sub in enumerate(rq.first_available):
                    _check_class(r, classes, sub.device_class_name,
                                 f"{prefix}.devices.requests[{i}].firstAvailable[{j}].deviceClassName")
    if not any(isinstance(obj, ResourceClaim) for _, obj in raws):
        return  # no claim to resolve pods for (a cluster's 150,000 pods need no index then)
    pods = {(p.namespace, p.name): p for _, p in pod_raws}
    for _, obj in raws:
        if not isinstance(obj, ResourceClaim):
            continue
        for ref in obj.reserved_for:
            pod = pods.get((obj.namespace, ref.name)) if ref.resource == "pods" and not ref.api_group else None
            if pod is not None:
                ref.uid = pod.uid
        for o in obj.owner_references:
            pod = pods.get((obj.namespace, o.name)) if o.kind == "Pod" else None
            if pod is not None:
                o.uid = pod.uid


def _check_class(r: FieldReader, classes: set[str], name: str, path: str) -> None:
    if name not in classes:
        known = ", ".join(sorted(classes)) if classes else "none"
        raise r.err(path, f'Not found: DeviceClass "{name}" is not defined in the scenario '
                          f"(DeviceClasses defined: {known})")


