"""resource.k8s.io/v1 objects and the pod's claim fields -> manifests that load back equal
(the DRA half of `api.export`)."""

from __future__ import annotations

from typing import Any

from scheduler_core.api.export_meta import object_meta
from scheduler_core.api.quantity import format_quantity
from scheduler_core.api.resource_types import (
    ALLOCATION_MODE_ALL,
    AllocationResult,
    DeviceClaimSpec,
    DeviceClass,
    DeviceSubRequest,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
)
from scheduler_core.api.types import NodeSelector, Pod

__all__ = ["resource_manifests", "pod_resource_claims", "pod_resource_claim_statuses",
           "RESOURCE_API_VERSION"]

RESOURCE_API_VERSION = "resource.k8s.io/v1"


def _node_selector(ns: NodeSelector) -> dict[str, Any]:
    terms = []
    for t in ns.node_selector_terms:
        d: dict[str, Any] = {}
        if t.match_expressions:
            d["matchExpressions"] = [_req(e.key, e.operator, e.values) for e in t.match_expressions]
        if t.match_fields:
            d["matchFields"] = [_req(e.key, e.operator, e.values) for e in t.match_fields]
        terms.append(d)
    return {"nodeSelectorTerms": terms}


def _req(key: str, op: str, values: tuple[str, ...]) -> dict[str, Any]:
    d: dict[str, Any] = {"key": key, "operator": op}
    if values:
        d["values"] = list(values)
    return d



def _selectors(sels: list) -> list[dict[str, Any]]:
    return [{"cel": {"expression": s.cel}} for s in sels]


def _sub(r: DeviceSubRequest, with_name: bool) -> dict[str, Any]:
    d: dict[str, Any] = {"name": r.name} if with_name else {}
    d["deviceClassName"] = r.device_class_name
    if r.selectors:
        d["selectors"] = _selectors(r.selectors)
    d["allocationMode"] = r.allocation_mode
    if r.allocation_mode != ALLOCATION_MODE_ALL:
        d["count"] = r.count
    if r.tolerations:
        d["tolerations"] = [t.to_json() for t in r.tolerations]
    if r.capacity_requests:
        d["capacity"] = {"requests": _counters_plain(r.capacity_requests, r.capacity_requests_text)}
    return d


def _counters_plain(values: dict[str, Any], texts: dict[str, str]) -> dict[str, str]:
    return {k: texts.get(k) or format_quantity(v) for k, v in values.items()}


def _counters(values: dict[str, Any], texts: dict[str, str]) -> dict[str, Any]:
    return {k: {"value": texts.get(k) or str(v)} for k, v in values.items()}


def _claim_spec(spec: DeviceClaimSpec) -> dict[str, Any]:
    requests = []
    for rq in spec.requests:
        if rq.exactly is not None:
            ex = _sub(rq.exactly, False)
            if rq.exactly.admin_access is not None:
                ex["adminAccess"] = rq.exactly.admin_access
            requests.append({"name": rq.name, "exactly": ex})
        else:
            requests.append({"name": rq.name, "firstAvailable": [_sub(s, True) for s in rq.first_available]})
    devices: dict[str, Any] = {"requests": requests}
    if spec.constraints:
        devices["constraints"] = [{**({"requests": list(c.requests)} if c.requests else {}),
                                   **({"matchAttribute": c.match_attribute} if c.match_attribute
                                      else {"distinctAttribute": c.distinct_attribute})}
                                  for c in spec.constraints]
    if spec.config:
        devices["config"] = [dict(c) for c in spec.config]
    return {"devices": devices}


def _allocation(a: AllocationResult) -> dict[str, Any]:
    results = []
    for r in a.results:
        d: dict[str, Any] = {"request": r.request, "driver": r.driver, "pool": r.pool, "device": r.device}
        if r.admin_access is not None:
            d["adminAccess"] = r.admin_access
        if r.tolerations:
            d["tolerations"] = [t.to_json() for t in r.tolerations]
        if r.share_id is not None:
            d["shareID"] = r.share_id
        if r.consumed_capacity:
            d["consumedCapacity"] = {k: format_quantity(v) for k, v in r.consumed_capacity.items()}
        results.append(d)
    devices: dict[str, Any] = {"results": results}
    if a.config:
        devices["config"] = [dict(c) for c in a.config]
    out: dict[str, Any] = {"devices": devices}
    if a.node_selector is not None:
        out["nodeSelector"] = _node_selector(a.node_selector)
    return out


def device_class_manifest(c: DeviceClass) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if c.selectors:
        spec["selectors"] = _selectors(c.selectors)
    if c.config:
        spec["config"] = [dict(x) for x in c.config]
    if c.extended_resource_name is not None:
        spec["extendedResourceName"] = c.extended_resource_name
    return {"apiVersion": RESOURCE_API_VERSION, "kind": "DeviceClass", "metadata": object_meta(c.name),
            "spec": spec}


def resource_slice_manifest(s: ResourceSlice) -> dict[str, Any]:
    spec: dict[str, Any] = {"driver": s.driver, "pool": {
        "name": s.pool_name, "generation": s.pool_generation, "resourceSliceCount": s.resource_slice_count}}
    if s.node_name:
        spec["nodeName"] = s.node_name
    if s.node_selector is not None:
        spec["nodeSelector"] = _node_selector(s.node_selector)
    if s.all_nodes:
        spec["allNodes"] = True
    if s.per_device_node_selection:
        spec["perDeviceNodeSelection"] = True
    devices = []
    for d in s.devices:
        dd: dict[str, Any] = {"name": d.name}
        if d.attributes:
            dd["attributes"] = {k: a.to_json() for k, a in d.attributes.items()}
        if d.capacity:
            dd["capacity"] = {k: {"value": d.capacity_text.get(k) or str(v),
                                  **({"requestPolicy": d.request_policies[k].text}
                                     if k in d.request_policies else {})}
                              for k, v in d.capacity.items()}
        if d.allow_multiple_allocations is not None:
            dd["allowMultipleAllocations"] = d.allow_multiple_allocations
        if d.consumes_counters:
            dd["consumesCounters"] = [{"counterSet": c.counter_set,
                                       "counters": _counters(c.counters, c.counters_text)}
                                      for c in d.consumes_counters]
        if d.node_name:
            dd["nodeName"] = d.node_name
        if d.node_selector is not None:
            dd["nodeSelector"] = _node_selector(d.node_selector)
        if d.all_nodes:
            dd["allNodes"] = True
        if d.taints:
            dd["taints"] = [_taint(t) for t in d.taints]
        devices.append(dd)
    if s.shared_counters:
        spec["sharedCounters"] = [{"name": c.name, "counters": _counters(c.counters, c.counters_text)}
                                  for c in s.shared_counters]
    if devices or not s.shared_counters:
        spec["devices"] = devices
    return {"apiVersion": RESOURCE_API_VERSION, "kind": "ResourceSlice", "metadata": object_meta(s.name),
            "spec": spec}


def resource_claim_manifest(c: ResourceClaim) -> dict[str, Any]:
    meta = object_meta(c.name, c.namespace, c.labels, c.annotations)
    if c.owner_references:
        meta["ownerReferences"] = [
            {"apiVersion": o.api_version, "kind": o.kind, "name": o.name,
             **({"uid": o.uid} if o.uid else {}), **({"controller": True} if o.controller else {})}
            for o in c.owner_references]
    out: dict[str, Any] = {"apiVersion": RESOURCE_API_VERSION, "kind": "ResourceClaim", "metadata": meta,
                           "spec": _claim_spec(c.spec)}
    status: dict[str, Any] = {}
    if c.allocation is not None:
        status["allocation"] = _allocation(c.allocation)
    if c.reserved_for:
        status["reservedFor"] = [{**({"apiGroup": r.api_group} if r.api_group else {}),
                                  "resource": r.resource, "name": r.name, **({"uid": r.uid} if r.uid else {})}
                                 for r in c.reserved_for]
    if status:
        out["status"] = status
    return out


def resource_claim_template_manifest(t: ResourceClaimTemplate) -> dict[str, Any]:
    return {"apiVersion": RESOURCE_API_VERSION, "kind": "ResourceClaimTemplate",
            "metadata": object_meta(t.name, t.namespace, t.labels, t.annotations),
            "spec": {"spec": _claim_spec(t.spec)}}


def _taint(t: Any) -> dict[str, Any]:
    return {"key": t.key, **({"value": t.value} if t.value else {}), "effect": t.effect,
            **({"timeAdded": t.time_added} if t.time_added else {})}


def device_taint_rule_manifest(rule: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if rule.has_selector:
        spec["deviceSelector"] = {k: v for k, v in (("driver", rule.driver), ("pool", rule.pool),
                                                    ("device", rule.device)) if v is not None}
    spec["taint"] = _taint(rule.taint)
    return {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule",
            "metadata": object_meta(rule.name), "spec": spec}


def resource_manifests(sc: Any) -> list[dict[str, Any]]:
    """Classes, slices, taint rules, templates, claims (the order a cluster would be set up in)."""
    docs = [device_class_manifest(c) for c in sc.device_classes]
    docs += [resource_slice_manifest(s) for s in sc.resource_slices]
    docs += [device_taint_rule_manifest(t) for t in getattr(sc, "device_taint_rules", [])]
    docs += [resource_claim_template_manifest(t) for t in sc.resource_claim_templates]
    docs += [resource_claim_manifest(c) for c in sc.resource_claims]
    return docs


def pod_resource_claims(p: Pod) -> list[dict[str, Any]]:
    out = []
    for c in p.resource_claims:
        d: dict[str, Any] = {"name": c.name}
        if c.resource_claim_name is not None:
            d["resourceClaimName"] = c.resource_claim_name
        else:
            d["resourceClaimTemplateName"] = c.resource_claim_template_name
        out.append(d)
    return out


def pod_resource_claim_statuses(p: Pod) -> list[dict[str, Any]]:
    return [{"name": n, **({"resourceClaimName": v} if v is not None else {})}
            for n, v in p.resource_claim_statuses.items()]
