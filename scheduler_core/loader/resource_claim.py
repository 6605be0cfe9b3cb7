"""ResourceClaims and ResourceClaimTemplates (resource.k8s.io/v1) as the apiserver stores them
(requests with their defaults, exactly one of exactly/firstAvailable, constraints, config, an
allocation result), and a pod's spec.resourceClaims and its containers' resources.claims.

Apart from the other kinds (loader/resource.py): the claim side is what a pod refers to.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.resource_types import (
    ALLOCATION_MODE_ALL,
    ALLOCATION_MODE_EXACT_COUNT,
    ALLOCATION_RESULTS_MAX_SIZE,
    FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE,
    AllocationResult,
    DeviceClaimSpec,
    DeviceConstraint,
    DeviceRequest,
    DeviceRequestAllocationResult,
    DeviceSubRequest,
    ExactDeviceRequest,
    PodResourceClaim,
    ResourceClaim,
    ResourceClaimConsumerReference,
    ResourceClaimTemplate,
)
from scheduler_core.api.validation import dns1123_label_error, dns1123_subdomain_error
from scheduler_core.loader.metadata import parse_metadata, parse_owner_references, stable_uid
from scheduler_core.loader.reader import FieldReader, join_path
from scheduler_core.loader.resource import (
    MAX_CONSTRAINTS,
    MAX_POD_CLAIMS,
    MAX_REQUESTS,
    MAX_RESERVED_FOR,
    _capacity_requests,
    _node_selector,
    _opaque_configs,
    _qualified_name_error,
    _selectors,
)
from scheduler_core.loader.resource_taints import _tolerations

__all__ = ["parse_resource_claim", "parse_resource_claim_template", "parse_pod_resource_claims", "check_container_claims"]


def _count_and_mode(r: FieldReader, m: dict[str, Any], path: str) -> tuple[str, int]:
    mode = r.string(m.get("allocationMode"), f"{path}.allocationMode") or ALLOCATION_MODE_EXACT_COUNT
    if mode not in (ALLOCATION_MODE_EXACT_COUNT, ALLOCATION_MODE_ALL):
        raise r.err(f"{path}.allocationMode", f'Unsupported value: "{mode}": supported values: '
                                              '"All", "ExactCount"')
    raw = m.get("count")
    if mode == ALLOCATION_MODE_ALL:
        if raw is not None and raw != 0:
            raise r.err(f"{path}.count", f"Invalid value: {raw}: must not be specified when "
                                         "allocationMode is 'All'")
        return mode, 0
    count = 1 if raw is None else r.integer(raw, f"{path}.count", bits=64)
    if count <= 0:
        raise r.err(f"{path}.count", f"Invalid value: {count}: must be greater than zero")
    if count > ALLOCATION_RESULTS_MAX_SIZE:
        raise r.err(f"{path}.count", f"Invalid value: {count}: must be less than or equal to "
                                     f"{ALLOCATION_RESULTS_MAX_SIZE}")
    return mode, count


def _class_name(r: FieldReader, m: dict[str, Any], path: str) -> str:
    name = r.string(m.get("deviceClassName"), f"{path}.deviceClassName")
    if not name:
        raise r.err(f"{path}.deviceClassName", "Required value")
    err = dns1123_subdomain_error(name)
    if err:
        raise r.err(f"{path}.deviceClassName", f'Invalid value: "{name}": {err}')
    return name


def _request_name(r: FieldReader, m: dict[str, Any], path: str, seen: set[str]) -> str:
    name = r.string(m.get("name"), f"{path}.name")
    if not name:
        raise r.err(f"{path}.name", "Required value")
    err = dns1123_label_error(name)
    if err:
        raise r.err(f"{path}.name", f'Invalid value: "{name}": {err}')
    if name in seen:
        raise r.err(f"{path}.name", f'Duplicate value: "{name}"')
    seen.add(name)
    return name


def _capacity_fields(r: FieldReader, obj: Any, path: str) -> dict[str, Any]:
    values, texts = _capacity_requests(r, obj, path)
    return {"capacity_requests": values, "capacity_requests_text": texts}


def _claim_spec(r: FieldReader, obj: Any, path: str) -> DeviceClaimSpec:
    m = r.mapping(obj, path)
    devices = r.mapping(m.get("devices"), join_path(path, "devices"))
    dpath = join_path(path, "devices")
    raw_requests = r.seq(devices.get("requests"), f"{dpath}.requests")
    if len(raw_requests) > MAX_REQUESTS:
        raise r.err(f"{dpath}.requests", f"Too many: {len(raw_requests)}: must have at most "
                                         f"{MAX_REQUESTS} items")
    requests: list[DeviceRequest] = []
    names: set[str] = set()
    valid_refs: set[str] = set()
    for i, rq in enumerate(raw_requests):
        p = f"{dpath}.requests[{i}]"
        rm = r.mapping(rq, p, required=True)
        name = _request_name(r, rm, p, names)
        valid_refs.add(name)
        has_exact = rm.get("exactly") is not None
        has_first = bool(rm.get("firstAvailable"))
        if has_exact == has_first:
            raise r.err(p, "Required value: exactly one of `exactly` or `firstAvailable` is required")
        if has_exact:
            ep = f"{p}.exactly"
            em = r.mapping(rm["exactly"], ep)
            mode, count = _count_and_mode(r, em, ep)
            admin = em.get("adminAccess")
            admin = None if admin is None else r.boolean(admin, f"{ep}.adminAccess")
            requests.append(DeviceRequest(name=name, exactly=ExactDeviceRequest(
                name=name, device_class_name=_class_name(r, em, ep),
                selectors=_selectors(r, em.get("selectors"), f"{ep}.selectors"),
                allocation_mode=mode, count=count, admin_access=admin,
                tolerations=_tolerations(r, em.get("tolerations"), f"{ep}.tolerations"),
                **_capacity_fields(r, em.get("capacity"), f"{ep}.capacity"))))
            continue
        fp = f"{p}.firstAvailable"
        subs_raw = r.seq(rm.get("firstAvailable"), fp)
        if len(subs_raw) > FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE:
            raise r.err(fp, f"Too many: {len(subs_raw)}: must have at most "
                            f"{FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE} items")
        subs = []
        sub_names: set[str] = set()
        for j, sr in enumerate(subs_raw):
            sp = f"{fp}[{j}]"
            sm = r.mapping(sr, sp, required=True)
            sname = _request_name(r, sm, sp, sub_names)
            valid_refs.add(f"{name}/{sname}")
            mode, count = _count_and_mode(r, sm, sp)
            subs.append(DeviceSubRequest(
                name=sname, device_class_name=_class_name(r, sm, sp),
                selectors=_selectors(r, sm.get("selectors"), f"{sp}.selectors"),
                allocation_mode=mode, count=count,
                tolerations=_tolerations(r, sm.get("tolerations"), f"{sp}.tolerations"),
                **_capacity_fields(r, sm.get("capacity"), f"{sp}.capacity")))
        requests.append(DeviceRequest(name=name, first_available=subs))
    constraints = []
    raw_constraints = r.seq(devices.get("constraints"), f"{dpath}.constraints")
    if len(raw_constraints) > MAX_CONSTRAINTS:
        raise r.err(f"{dpath}.constraints", f"Too many: {len(raw_constraints)}: must have at most "
                                            f"{MAX_CONSTRAINTS} items")
    for i, c in enumerate(raw_constraints):
        p = f"{dpath}.constraints[{i}]"
        cm = r.mapping(c, p, required=True)
        reqs = r.string_list(cm.get("requests"), f"{p}.requests")
        for j, ref in enumerate(reqs):
            if ref not in valid_refs:
                raise r.err(f"{p}.requests[{j}]", f'Invalid value: "{ref}": must be the name of a '
                                                  "request in the claim or the name of a request "
                                                  "and a subrequest separated by '/'")
        attr = r.string(cm.get("matchAttribute"), f"{p}.matchAttribute")
        distinct = r.string(cm.get("distinctAttribute"), f"{p}.distinctAttribute")
        if bool(attr) == bool(distinct):
            raise r.err(p, "Invalid value: exactly one of `matchAttribute` or `distinctAttribute` "
                           "is required")
        field = "matchAttribute" if attr else "distinctAttribute"
        err = _qualified_name_error(attr or distinct, fully=True)
        if err:
            raise r.err(f"{p}.{field}", f'Invalid value: "{attr or distinct}": {err}')
        constraints.append(DeviceConstraint(requests=reqs, match_attribute=attr,
                                            distinct_attribute=distinct))
    config = _opaque_configs(r, devices.get("config"), f"{dpath}.config", with_requests=True)
    for i, c in enumerate(config):
        for j, ref in enumerate(c.get("requests") or []):
            if ref not in valid_refs:
                raise r.err(f"{dpath}.config[{i}].requests[{j}]",
                            f'Invalid value: "{ref}": must be the name of a request in the claim '
                            "or the name of a request and a subrequest separated by '/'")
    return DeviceClaimSpec(requests=requests, constraints=constraints, config=config)


def _allocation(r: FieldReader, obj: Any, path: str, spec: DeviceClaimSpec) -> AllocationResult | None:
    if obj is None:
        return None
    m = r.mapping(obj, path)
    devices = r.mapping(m.get("devices"), f"{path}.devices")
    refs = set()
    for rq in spec.requests:
        refs.add(rq.name)
        for sub in rq.first_available:
            refs.add(f"{rq.name}/{sub.name}")
    results = []
    raw = r.seq(devices.get("results"), f"{path}.devices.results")
    if len(raw) > ALLOCATION_RESULTS_MAX_SIZE:
        raise r.err(f"{path}.devices.results", f"Too many: {len(raw)}: must have at most "
                                               f"{ALLOCATION_RESULTS_MAX_SIZE} items")
    for i, res in enumerate(raw):
        p = f"{path}.devices.results[{i}]"
        rm = r.mapping(res, p, required=True)
        vals = {}
        for f in ("request", "driver", "pool", "device"):
            v = r.string(rm.get(f), f"{p}.{f}")
            if not v:
                raise r.err(f"{p}.{f}", "Required value")
            vals[f] = v
        if vals["request"] not in refs:
            raise r.err(f"{p}.request", f'Invalid value: "{vals["request"]}": must be the name of a '
                                        "request in the claim or the name of a request and a "
                                        "subrequest separated by '/'")
        admin = rm.get("adminAccess")
        results.append(DeviceRequestAllocationResult(
            request=vals["request"], driver=vals["driver"], pool=vals["pool"],
            device=vals["device"], admin_access=None if admin is None else r.boolean(admin, f"{p}.adminAccess"),
            tolerations=_tolerations(r, rm.get("tolerations"), f"{p}.tolerations"),
            share_id=r.string(rm["shareID"], f"{p}.shareID") if rm.get("shareID") is not None else None,
            consumed_capacity=_capacity_requests(r, {"requests": rm.get("consumedCapacity")},
                                                 f"{p}.consumedCapacity")[0]))
    config = []
    for i, c in enumerate(r.seq(devices.get("config"), f"{path}.devices.config")):
        cm = r.mapping(c, f"{path}.devices.config[{i}]", required=True)
        config.append(dict(cm))
    return AllocationResult(results=results,
                            node_selector=_node_selector(r, m.get("nodeSelector"), f"{path}.nodeSelector"),
                            config=config)


def parse_resource_claim(r: FieldReader, obj: dict[str, Any]) -> ResourceClaim:
    name, namespace, labels, annotations = parse_metadata(r, obj, namespaced=True)
    spec = _claim_spec(r, obj.get("spec"), "spec")
    status = r.mapping(obj.get("status"), "status")
    allocation = _allocation(r, status.get("allocation"), "status.allocation", spec)
    reserved = []
    raw = r.seq(status.get("reservedFor"), "status.reservedFor")
    if len(raw) > MAX_RESERVED_FOR:
        raise r.err("status.reservedFor", f"Too many: {len(raw)}: must have at most "
                                          f"{MAX_RESERVED_FOR} items")
    for i, ref in enumerate(raw):
        p = f"status.reservedFor[{i}]"
        m = r.mapping(ref, p, required=True)
        resource = r.string(m.get("resource"), f"{p}.resource")
        rname = r.string(m.get("name"), f"{p}.name")
        if not resource or not rname:
            raise r.err(p, "Required value: resource and name")
        reserved.append(ResourceClaimConsumerReference(
            resource=resource, name=rname, uid=r.string(m.get("uid"), f"{p}.uid"),
            api_group=r.string(m.get("apiGroup"), f"{p}.apiGroup")))
    if reserved and allocation is None:
        raise r.err("status.reservedFor", "Forbidden: may not be specified when `allocated` is not set")
    return ResourceClaim(name=name, namespace=namespace,
                         uid=stable_uid("ResourceClaim", namespace, name), spec=spec,
                         allocation=allocation, reserved_for=reserved,
                         owner_references=parse_owner_references(r, obj.get("metadata") or {}),
                         labels=labels, annotations=annotations)


def parse_resource_claim_template(r: FieldReader, obj: dict[str, Any]) -> ResourceClaimTemplate:
    name, namespace, labels, annotations = parse_metadata(r, obj, namespaced=True)
    spec = r.mapping(obj.get("spec"), "spec", required=True)
    inner = _claim_spec(r, spec.get("spec"), "spec.spec")
    return ResourceClaimTemplate(name=name, namespace=namespace,
                                 uid=stable_uid("ResourceClaimTemplate", namespace, name),
                                 spec=inner, labels=labels, annotations=annotations)


def parse_pod_resource_claims(r: FieldReader, spec: dict[str, Any],
                              status: Any) -> tuple[list[PodResourceClaim], dict[str, str | None]]:
    """spec.resourceClaims and (from a dump) status.resourceClaimStatuses."""
    if not _any_pod_claims(spec, status):
        return [], {}  # what the reading below gives for neither (most pods: a quick answer)
    raw = r.seq(spec.get("resourceClaims"), "spec.resourceClaims")
    if len(raw) > MAX_POD_CLAIMS:
        raise r.err("spec.resourceClaims", f"Too many: {len(raw)}: must have at most "
                                           f"{MAX_POD_CLAIMS} items")
    out = []
    seen: set[str] = set()
    for i, c in enumerate(raw):
        p = f"spec.resourceClaims[{i}]"
        m = r.mapping(c, p, required=True)
        name = _request_name(r, m, p, seen)
        claim = m.get("resourceClaimName")
        template = m.get("resourceClaimTemplateName")
        if (claim is None) == (template is None):
            raise r.err(p, "Invalid value: must specify one of: `resourceClaimName`, "
                           "`resourceClaimTemplateName`")
        field, value = ("resourceClaimName", claim) if claim is not None else \
            ("resourceClaimTemplateName", template)
        v = r.string(value, f"{p}.{field}")
        err = dns1123_subdomain_error(v)
        if err:
            raise r.err(f"{p}.{field}", f'Invalid value: "{v}": {err}')
        out.append(PodResourceClaim(name=name, resource_claim_name=v if claim is not None else None,
                                    resource_claim_template_name=v if template is not None else None))
    statuses: dict[str, str | None] = {}
    st = status if isinstance(status, dict) else {}
    for i, s in enumerate(r.seq(st.get("resourceClaimStatuses"), "status.resourceClaimStatuses")):
        p = f"status.resourceClaimStatuses[{i}]"
        m = r.mapping(s, p, required=True)
        cname = r.string(m.get("name"), f"{p}.name")
        if cname not in seen:
            raise r.err(f"{p}.name", f'Invalid value: "{cname}": must match the name of an entry '
                                     "in `spec.resourceClaims`")
        generated = m.get("resourceClaimName")
        statuses[cname] = None if generated is None else r.string(generated, f"{p}.resourceClaimName")
    return out, statuses


def check_container_claims(r: FieldReader, spec: dict[str, Any], claims: list[PodResourceClaim]) -> None:
    """containers[].resources.claims name entries of spec.resourceClaims (apiserver validation)."""
    if not _any_container_claims(spec):
        return
    names = {c.name for c in claims}
    for group in ("initContainers", "containers"):
        for i, c in enumerate(r.seq(spec.get(group), f"spec.{group}")):
            if not isinstance(c, dict):
                continue
            res = c.get("resources")
            if not isinstance(res, dict):
                continue
            seen: set[tuple[str, str]] = set()
            for j, cl in enumerate(r.seq(res.get("claims"), f"spec.{group}[{i}].resources.claims")):
                p = f"spec.{group}[{i}].resources.claims[{j}]"
                m = r.mapping(cl, p, required=True)
                cname = r.string(m.get("name"), f"{p}.name")
                if not cname:
                    raise r.err(f"{p}.name", "Required value")
                if cname not in names:
                    raise r.err(f"{p}.name", f'Not found: "{cname}": must be one of the names in '
                                             "pod.spec.resourceClaims"
                                             + (" which are: " + ", ".join(sorted(names)) if names
                                                else " which is empty"))
                key = (cname, r.string(m.get("request"), f"{p}.request"))
                if key in seen:
                    raise r.err(p, f'Duplicate value: "{cname}"')
                seen.add(key)


def _any_pod_claims(spec: dict[str, Any], status: Any) -> bool:
    """Whether `parse_pod_resource_claims` has anything to read: False only when the pod has
    neither spec.resourceClaims nor status.resourceClaimStatuses."""
    return spec.get("resourceClaims") is not None or (
        isinstance(status, dict) and status.get("resourceClaimStatuses") is not None)


def _any_container_claims(spec: dict[str, Any]) -> bool:
    """Whether `check_container_claims` has anything to read: False only when every container
    list is absent or an array, and every container's resources.claims absent or empty, where
    that check reads nothing and refuses nothing (most pods: a quick answer)."""
    for group in ("initContainers", "containers"):
        items = spec.get(group)
        if items is None:
            continue
        if not isinstance(items, list):
            return True
        for c in items:
            if isinstance(c, dict):
                res = c.get("resources")
                if isinstance(res, dict):
                    found = res.get("claims")
                    if found is not None and found != []:
                        return True
    return False
