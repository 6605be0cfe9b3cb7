"""The fields of the resource.k8s.io/v1 kinds (k8s.io/api/resource/v1), in the notation of
`schema.py`: checked strictly (unknown fields refused with a did-you-mean), fields the
playground does not model accepted and reported once as "not simulated"."""

from __future__ import annotations

from typing import Any

from scheduler_core.loader.schema import (
    KIND_SCHEMAS,
    NODE_SELECTOR_TERM,
    NOT_SIMULATED,
    OBJECT_META,
    SIMULATED,
)

__all__ = ["RESOURCE_API_VERSION", "RESOURCE_KINDS", "RESOURCE_SCHEMAS", "DEVICE_TAINT_RULE_API_VERSION"]

RESOURCE_API_VERSION = "resource.k8s.io/v1"


def _ignored(*names: str) -> dict[str, Any]:
    return dict.fromkeys(names, NOT_SIMULATED)


_TOP = {"apiVersion": SIMULATED, "kind": SIMULATED, "metadata": OBJECT_META}
_NODE_SELECTOR = {"nodeSelectorTerms": [NODE_SELECTOR_TERM]}
_SELECTOR = {"cel": {"expression": SIMULATED}}
_OPAQUE_CONFIG = {"opaque": {"driver": SIMULATED, "parameters": SIMULATED}}
_TOLERATION = {"key": SIMULATED, "operator": SIMULATED, "value": SIMULATED, "effect": SIMULATED,
               "tolerationSeconds": SIMULATED}
_TAINT = {"key": SIMULATED, "value": SIMULATED, "effect": SIMULATED, "timeAdded": SIMULATED}
_SUB_REQUEST = {
    "name": SIMULATED, "deviceClassName": SIMULATED, "selectors": [_SELECTOR],
    "allocationMode": SIMULATED, "count": SIMULATED, "tolerations": [_TOLERATION],
    "capacity": {"requests": SIMULATED},
}
_EXACT_REQUEST = {
    "deviceClassName": SIMULATED, "selectors": [_SELECTOR], "allocationMode": SIMULATED,
    "count": SIMULATED, "adminAccess": SIMULATED, "tolerations": [_TOLERATION],
    "capacity": {"requests": SIMULATED},
}
_CLAIM_SPEC = {
    "devices": {
        "requests": [{"name": SIMULATED, "exactly": _EXACT_REQUEST, "firstAvailable": [_SUB_REQUEST]}],
        "constraints": [{"requests": SIMULATED, "matchAttribute": SIMULATED,
                         "distinctAttribute": SIMULATED}],
        "config": [{"requests": SIMULATED, **_OPAQUE_CONFIG}],
    },
}
_CLAIM_STATUS = {
    "allocation": {
        "devices": {
            "results": [{"request": SIMULATED, "driver": SIMULATED, "pool": SIMULATED,
                         "device": SIMULATED, "adminAccess": SIMULATED, "tolerations": [_TOLERATION],
                         "shareID": SIMULATED, "consumedCapacity": SIMULATED,
                         **_ignored("bindingConditions", "bindingFailureConditions")}],
            "config": [{"source": SIMULATED, "requests": SIMULATED, **_OPAQUE_CONFIG}],
        },
        "nodeSelector": _NODE_SELECTOR,
        **_ignored("allocationTimestamp"),
    },
    "reservedFor": [{"apiGroup": SIMULATED, "resource": SIMULATED, "name": SIMULATED,
                     "uid": SIMULATED}],
    **_ignored("devices"),
}
_DEVICE = {
    "name": SIMULATED, "attributes": SIMULATED, "capacity": SIMULATED, "taints": [_TAINT],
    "consumesCounters": [{"counterSet": SIMULATED, "counters": SIMULATED}],
    "nodeName": SIMULATED, "nodeSelector": _NODE_SELECTOR, "allNodes": SIMULATED,
    "allowMultipleAllocations": SIMULATED,
    **_ignored("bindsToNode", "bindingConditions", "bindingFailureConditions"),
}

RESOURCE_SCHEMAS: dict[str, dict[str, Any]] = {
    "DeviceClass": {**_TOP, "spec": {"selectors": [_SELECTOR], "config": [_OPAQUE_CONFIG],
                                     "extendedResourceName": SIMULATED}},
    "ResourceSlice": {**_TOP, "spec": {
        "driver": SIMULATED,
        "pool": {"name": SIMULATED, "generation": SIMULATED, "resourceSliceCount": SIMULATED},
        "nodeName": SIMULATED, "nodeSelector": _NODE_SELECTOR, "allNodes": SIMULATED,
        "devices": [_DEVICE],
        "sharedCounters": [{"name": SIMULATED, "counters": SIMULATED}],
        "perDeviceNodeSelection": SIMULATED,
    }},
    "ResourceClaim": {**_TOP, "spec": _CLAIM_SPEC, "status": _CLAIM_STATUS},
    "ResourceClaimTemplate": {**_TOP, "spec": {"metadata": OBJECT_META, "spec": _CLAIM_SPEC}},
}

RESOURCE_KINDS: dict[str, tuple[str, ...]] = {kind: (RESOURCE_API_VERSION,) for kind in RESOURCE_SCHEMAS}

# resource.k8s.io/v1alpha3 DeviceTaintRule (DRADeviceTaintRules). deviceClassName and selectors
# were removed from its selector in v1.35, so they are unknown fields.
DEVICE_TAINT_RULE_API_VERSION = "resource.k8s.io/v1alpha3"
RESOURCE_SCHEMAS["DeviceTaintRule"] = {**_TOP, "spec": {
    "deviceSelector": {"driver": SIMULATED, "pool": SIMULATED, "device": SIMULATED},
    "taint": _TAINT,
}, **_ignored("status")}
RESOURCE_KINDS["DeviceTaintRule"] = (DEVICE_TAINT_RULE_API_VERSION,)

# Registered with the other kinds' schemas here (loader.kinds imports this module), so the
# core schema module stays free of the resource API.
KIND_SCHEMAS.update(RESOURCE_SCHEMAS)
