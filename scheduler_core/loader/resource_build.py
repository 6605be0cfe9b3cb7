"""resource.k8s.io/v1 objects into a Scenario, and the checks across them.

The apiserver accepts a claim whose DeviceClass does not exist: it checks no references
between objects. So does the loader: such a claim or template is loaded with a warning that
says what the scheduler will do, and DynamicResources' PreFilter keeps each pod using it
pending with upstream's own message ("request <name>: device class <class> does not exist")
until the class is created. What the API server does refuse across objects (adminAccess in a
namespace without the admin-access label) is refused here too; docs/loader-references.md
lists every such check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scheduler_core.api.errors import LoadWarning
from scheduler_core.api.resource_types import ResourceClaim, ResourceClaimTemplate
from scheduler_core.api.scenario import Scenario
from scheduler_core.api.types import Pod
from scheduler_core.loader.documents import Entry
from scheduler_core.loader.reader import FieldReader
from scheduler_core.loader.resource import parse_device_class
from scheduler_core.loader.resource_claim import parse_resource_claim, parse_resource_claim_template
from scheduler_core.loader.resource_slice import parse_resource_slice
from scheduler_core.loader.resource_taints import parse_device_taint_rule

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
                              raws: list[tuple[FieldReader, Any]]) -> list[LoadWarning]:
    """Cross-object checks of claims and templates: adminAccess only in a labelled namespace
    (refused, as the apiserver's claim storage does); a DeviceClass the scenario lacks is a
    warning (returned), not an error. Pod references (reservedFor, ownerReferences) resolve to
    the scenario's pods' UIDs."""
    classes = {c.name for c in sc.device_classes}
    warnings: list[LoadWarning] = []
    admin_namespaces = {ns.name for ns in sc.namespaces
                        if ns.labels.get(ADMIN_ACCESS_LABEL) == "true"}
    for r, obj in raws:
        if isinstance(obj, (ResourceClaim, ResourceClaimTemplate)):
            prefix = "spec" if isinstance(obj, ResourceClaim) else "spec.spec"
            for i, rq in enumerate(obj.spec.requests):
                if rq.exactly is not None:
                    _check_class(r, obj, classes, rq.exactly.device_class_name, rq.name,
                                 f"{prefix}.devices.requests[{i}].exactly.deviceClassName", warnings)
                    if rq.exactly.admin_access and obj.namespace not in admin_namespaces:
                        # DRAAdminAccess (beta, on in v1.35): the apiserver only admits admin
                        # access in namespaces labelled for it.
                        raise r.err(f"{prefix}.devices.requests[{i}].exactly.adminAccess",
                                    "Forbidden: admin access to devices requires the "
                                    f"`{ADMIN_ACCESS_LABEL}: true` label on the containing "
                                    f'namespace "{obj.namespace}"')
                for j, sub in enumerate(rq.first_available):
                    _check_class(r, obj, classes, sub.device_class_name, f"{rq.name}/{sub.name}",
                                 f"{prefix}.devices.requests[{i}].firstAvailable[{j}].deviceClassName",
                                 warnings)
    warnings += _missing_claim_warnings(sc, pod_raws)
    if not any(isinstance(obj, ResourceClaim) for _, obj in raws):
        return warnings  # no claim to resolve pods for (a cluster's 150,000 pods need no index then)
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
    return warnings


def _missing_claim_warnings(sc: Scenario, pod_raws: list[tuple[FieldReader, Pod]]) -> list[LoadWarning]:
    """Pods naming a ResourceClaim or ResourceClaimTemplate the scenario lacks: accepted (the
    apiserver checks no references), with one warning per missing object (its first pod, and how
    many more name it). Upstream's DynamicResources PreEnqueue keeps each such pod out of the
    active queue: no claim to read, or none generated from a template that is not there."""
    claims = {(c.namespace, c.name) for c in sc.resource_claims}
    templates = {(t.namespace, t.name) for t in sc.resource_claim_templates}
    found: dict[tuple[str, str, str], LoadWarning] = {}
    for r, pod in pod_raws:
        for i, pc in enumerate(pod.resource_claims or ()):
            if pc.resource_claim_name is not None and (pod.namespace, pc.resource_claim_name) not in claims:
                key = ("ResourceClaim", pod.namespace, pc.resource_claim_name)
                field, waits = f"spec.resourceClaims[{i}].resourceClaimName", \
                    f'resourceclaim.resource.k8s.io "{pc.resource_claim_name}" not found'
            elif pc.resource_claim_template_name is not None and \
                    (pod.namespace, pc.resource_claim_template_name) not in templates:
                key = ("ResourceClaimTemplate", pod.namespace, pc.resource_claim_template_name)
                field, waits = f"spec.resourceClaims[{i}].resourceClaimTemplateName", \
                    "ResourceClaim not created yet"
            else:
                continue
            if key in found:
                found[key].more += 1
                continue
            loc = r.doc
            found[key] = LoadWarning(
                f'{key[0]} "{key[1]}/{key[2]}" is not in the scenario; the API server accepts the '
                "reference, and the scheduler keeps the pod out of its active queue (DynamicResources' "
                f"PreEnqueue: {waits}) until it exists",
                file=loc.file, document=loc.index, kind=loc.kind, name=loc.name, field=field,
                category="reference")
    return list(found.values())


def _check_class(r: FieldReader, obj: Any, classes: set[str], name: str, request: str, path: str,
                 warnings: list[LoadWarning]) -> None:
    """A class the scenario lacks: a warning quoting the status DynamicResources' PreFilter
    gives each pod using the claim (the request named as upstream names it: "req" or
    "req/sub"), so the learner knows before the run why those pods will wait."""
    if name in classes:
        return
    known = ", ".join(sorted(classes)) if classes else "none"
    users = "every pod using a claim made from this template" if isinstance(obj, ResourceClaimTemplate) \
        else "every pod using this claim"
    loc = r.doc
    warnings.append(LoadWarning(
        f'DeviceClass "{name}" is not in the scenario (DeviceClasses: {known}); the API server '
        f"accepts the reference, and the scheduler keeps {users} pending "
        f'(DynamicResources: "request {request}: device class {name} does not exist") '
        "until the class is created",
        file=loc.file, document=loc.index, kind=loc.kind, name=loc.name, field=path,
        category="reference"))


